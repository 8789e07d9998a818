//===- RuntimeTestUtil.h - The executable tests' fixture --------*- C++ -*-===//
//
// A CPU device opened apart from the environment (VMAPC_CPU_ISA and
// VMAPC_CPU_THREADS are ignored, so that a test sees the defaults whatever
// the shell running it sets), and the stand-in artifact of TestUtil.h loaded
// on it.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_RUNTIMETESTUTIL_H
#define VMAPC_TEST_RUNTIMETESTUTIL_H

#include "TestUtil.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/Runtime.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace vmapc_test {

inline std::string serialize(const vmapc::Artifact &a) {
  std::string bytes;
  vmapc::Status s = vmapc::serializeArtifact(a, &bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  return bytes;
}

inline uint64_t ceilDiv(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

inline uintptr_t joinAddress(const int32_t *p) {
  return uintptr_t(uint32_t(p[0])) | uintptr_t(uint32_t(p[1])) << 32;
}

/// Opens `spec` with VMAPC_CPU_ISA and VMAPC_CPU_THREADS unset.
inline vmapc::Device openCpu(const char *spec = "cpu") {
  ScopedEnv isa("VMAPC_CPU_ISA", nullptr);
  ScopedEnv threads("VMAPC_CPU_THREADS", nullptr);
  vmapc::Device d;
  vmapc::Status s = vmapc::Device::open(spec, &d);
  EXPECT_TRUE(s.ok()) << spec << ": " << s.message();
  return d;
}

/// Runs entry `affine` on one example x = [1, 0, 0, 0], c = 0: y[0] is K.
inline float runAffineOnce(vmapc::Executable &exe) {
  using vmapc::DType;
  float x[4] = {1, 0, 0, 0}, c[4] = {0, 0, 0, 0}, y[4] = {};
  vmapc::Status s = exe.run("affine",
                            {vmapc::HostArray{x, DType::F32, {1, 4}},
                             vmapc::HostArray{c, DType::F32, {4}}},
                            {vmapc::MutableHostArray{y, DType::F32, {1, 4}}});
  EXPECT_TRUE(s.ok()) << s.message();
  return y[0];
}

/// Runs entry `whoami`: the ISA level of the code that ran (0, 1, 2).
inline int32_t runWhoami(vmapc::Executable &exe) {
  int32_t level = -1;
  vmapc::Status s = exe.run(
      "whoami", {}, {vmapc::MutableHostArray{&level, vmapc::DType::I32, {}}});
  EXPECT_TRUE(s.ok()) << s.message();
  return level;
}

class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override {
    cpu = openCpu();
    bytes = serialize(makeTestArtifact());
    vmapc::Status s =
        vmapc::Executable::loadBytes(cpu, bytes.data(), bytes.size(), &exe);
    ASSERT_TRUE(s.ok()) << s.message();
  }

  const vmapc::Entry &entry(const char *name) {
    const vmapc::Entry *e = nullptr;
    vmapc::Status s = exe->findEntry(name, &e);
    EXPECT_TRUE(s.ok()) << s.message();
    return *e;
  }

  /// Loads `a` on `device` (the fixture's by default); null on error.
  std::unique_ptr<vmapc::Executable>
  load(const vmapc::Artifact &a, const vmapc::Device *device = nullptr) {
    std::string b = serialize(a);
    std::unique_ptr<vmapc::Executable> out;
    vmapc::Status s = vmapc::Executable::loadBytes(device ? *device : cpu,
                                                   b.data(), b.size(), &out);
    EXPECT_TRUE(s.ok()) << s.message();
    return out;
  }
  std::unique_ptr<vmapc::Executable> load(const vmapc::Artifact &a,
                                          const vmapc::Device &device) {
    return load(a, &device);
  }

  /// The error of loading `a` on `device` (the fixture's by default).
  vmapc::Status loadError(const vmapc::Artifact &a,
                          const vmapc::Device *device = nullptr) {
    std::string b = serialize(a);
    std::unique_ptr<vmapc::Executable> other;
    vmapc::Status s = vmapc::Executable::loadBytes(device ? *device : cpu,
                                                   b.data(), b.size(), &other);
    EXPECT_EQ(other, nullptr);
    return s;
  }

  vmapc::Device cpu;
  std::string bytes;
  std::unique_ptr<vmapc::Executable> exe;
};

} // namespace vmapc_test

#endif
