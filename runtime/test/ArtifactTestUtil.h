//===- ArtifactTestUtil.h - the artifact tests' fixture ---------*- C++ -*-===//
//
// What the tests of the artifact's layers share (ArtifactFormatTest.cpp,
// ArtifactReaderTest.cpp, ArtifactValidatorTest.cpp,
// ArtifactDescriptorsTest.cpp, CudaArtifactTest.cpp): parsing, editing
// bytes and resealing the checksum, the offsets of the manifest's fields in
// the test artifact, and the fixtures.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_ARTIFACTTESTUTIL_H
#define VMAPC_TEST_ARTIFACTTESTUTIL_H

#include "RuntimeTestUtil.h"
#include "TestUtil.h"
#include "vmapc/ArtifactDescriptors.h"
#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactReader.h"
#include "vmapc/ArtifactValidator.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/Schedule.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

namespace vmapc_test {

using namespace vmapc;

inline Status parse(const std::string &bytes) {
  Artifact out;
  return parseArtifact(bytes.data(), bytes.size(), &out);
}

/// Recomputes the trailing checksum after a deliberate edit.
inline void reseal(std::string &bytes) {
  uint64_t h = fnv1a64(bytes.data(), bytes.size() - 8);
  for (int i = 0; i < 8; ++i)
    bytes[bytes.size() - 8 + i] = char((h >> (8 * i)) & 0xff);
}

inline uint64_t u64At(const std::string &b, size_t off) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(uint8_t(b[off + i])) << (8 * i);
  return v;
}

inline uint32_t u32At(const std::string &b, size_t off) {
  return uint32_t(u64At(b.substr(off, 4) + std::string(4, '\0'), 0));
}

inline void putU32(std::string &b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i)
    b[off + i] = char((v >> (8 * i)) & 0xff);
}

inline void putU64(std::string &b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    b[off + i] = char((v >> (8 * i)) & 0xff);
}

/// Where each part of the manifest of `a` starts in its serialized bytes,
/// computed from the layout that ArtifactFormat.h documents.
struct Layout {
  size_t kernelCount = 0;
  std::vector<size_t> kernels;
  size_t entryCount = 0;
  std::vector<size_t> entries;
  /// Per entry: its arguments (inputs, then outputs), its command count,
  /// its commands.
  std::vector<std::vector<size_t>> args;
  std::vector<size_t> commandCount;
  std::vector<std::vector<size_t>> commands;
  size_t codeObjectCount = 0;
  std::vector<size_t> codeObjects;
  size_t manifestEnd = 0;
};

inline Layout layoutOf(const Artifact &a) {
  Layout l;
  size_t off = kHeaderBytes;
  l.kernelCount = off;
  off += 4;
  for (const KernelInfo &k : a.kernels) {
    l.kernels.push_back(off);
    off += 4 + k.name.size() + 4 + 4 + 3 * 8 + 8 + 9 * k.numBindings;
  }
  l.entryCount = off;
  off += 4;
  for (const EntryInfo &e : a.entries) {
    l.entries.push_back(off);
    off += 4 + e.name.size() + 4 + 4 + 4 * 8 + 4 + 4 + 4 + 4;
    l.args.emplace_back();
    for (const auto *list : {&e.inputs, &e.outputs})
      for (const ArgInfo &arg : *list) {
        l.args.back().push_back(off);
        off += 4 + arg.name.size() + 1 + 1 + 2 + 4 + 8 + 8 * arg.shape.size();
      }
    l.commandCount.push_back(off);
    off += 4;
    l.commands.emplace_back();
    for (const Command &c : e.schedule) {
      l.commands.back().push_back(off);
      off += 4 + (c.kind == Command::Kind::Loop
                      ? 8 + 4
                      : 4 + 16 * c.bindings.size() + 8 * c.scalars.size());
    }
  }
  l.codeObjectCount = off;
  off += 4;
  for (const CodeObject &o : a.codeObjects) {
    l.codeObjects.push_back(off);
    off += 4 + 4 + o.level.size() + 4;
    for (const std::string &f : o.cpuFeatures)
      off += 4 + f.size();
    if (isCudaCode(o.kind))
      off += 16 * o.launches.size();
    off += 8 + 8;
  }
  l.manifestEnd = off;
  return l;
}

/// Offsets inside one entry and one code object.
inline size_t flagsOffset(const Layout &l, const Artifact &a, size_t entry) {
  return l.entries[entry] + 4 + a.entries[entry].name.size() + 4;
}
inline size_t codeRangeOffset(const Layout &l, const Artifact &a,
                              size_t object) {
  size_t off =
      l.codeObjects[object] + 4 + 4 + a.codeObjects[object].level.size();
  off += 4;
  for (const std::string &f : a.codeObjects[object].cpuFeatures)
    off += 4 + f.size();
  if (isCudaCode(a.codeObjects[object].kind))
    off += 16 * a.codeObjects[object].launches.size();
  return off; // u64 offset, then u64 size
}

class ArtifactTest : public ::testing::Test {
protected:
  void SetUp() override {
    code = testKernelBytes();
    ASSERT_FALSE(code.empty()) << "cannot read " << VMAPC_TEST_KERNELS;
    artifact = makeTestArtifact();
    for (const CodeObject &o : artifact.codeObjects)
      ASSERT_FALSE(o.bytes.empty()) << "cannot read the " << o.level << " code";
  }
  Status serializeError(const Artifact &a) {
    std::string bytes;
    return serializeArtifact(a, &bytes);
  }
  /// The test artifact with its baseline code object alone: smaller, for
  /// the tests that go byte by byte.
  Artifact smallArtifact() {
    return makeTestArtifact({testCodeObject("x86-64", code)});
  }
  std::string code;
  Artifact artifact;
};

/// The test artifact with CPU code and, after it, an sm_90 cubin and PTX:
/// what `vmapc compile --target=cpu,cuda` writes.
class CudaArtifactTest : public ArtifactTest {
protected:
  void SetUp() override {
    ArtifactTest::SetUp();
    giveEveryArgumentASlot(artifact);
    size_t k = artifact.kernels.size();
    artifact.codeObjects.push_back(cudaCodeObject(
        CodeKind::CudaCubin, "sm_90", cubinElfHeader() + "cubin body", k));
    artifact.codeObjects.push_back(cudaCodeObject(
        CodeKind::CudaPtx, "sm_90", ".version 8.0\n.target sm_90\n", k));
  }
  static constexpr size_t kCubin = 3, kPtx = 4;
};

} // namespace vmapc_test

#endif // VMAPC_TEST_ARTIFACTTESTUTIL_H
