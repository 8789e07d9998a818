//===- TestDevice.h - the executable's tests on every device ----*- C++ -*-===//
//
// The executable's checks, chunking, staging and schedule walk are written
// once above the backends (Backend.h); the tests of them run on every
// device the build has, as GoogleTest value parameters: the CPU, and (with
// CUDA support) the CUDA backend on the fake driver (FakeCuda.h), where
// the stand-in kernels of TestKernels.cpp run on the host for each launch
// (FakeCudaTestUtil.h), so that both compute the same.
//
// The fixture opens the device, loads the stand-in artifact made for it
// (makeTestArtifact; on the fake, every argument given a staging slot and
// the code one cubin of the fake's module text), and at the end checks, on
// the fake, that no context was misused and nothing the backend made is
// left.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_TESTDEVICE_H
#define VMAPC_TEST_TESTDEVICE_H

#include "RuntimeTestUtil.h"
#include "TestUtil.h"
#include "vmapc/Runtime.h"

#include <gtest/gtest.h>

#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

namespace vmapc_test {

/// Where a device-parameterized test runs.
enum class DeviceKind { Cpu, FakeCuda };

/// The devices of this build: the CPU, and the fake CUDA driver when the
/// CUDA backend is built.
std::vector<DeviceKind> testDeviceKinds();
/// "Cpu" or "FakeCuda", for test names.
std::string deviceKindName(DeviceKind kind);
/// How GoogleTest prints a DeviceKind parameter.
inline void PrintTo(DeviceKind kind, std::ostream *os) {
  *os << deviceKindName(kind);
}

/// A device of `kind`, the stand-in artifact made for it, and that
/// artifact loaded.
class DeviceFixture : public ::testing::Test {
protected:
  /// Opens the device and loads the test artifact on it (a fatal failure
  /// if either fails).
  void open(DeviceKind kind);
  void TearDown() override;

  /// makeTestArtifact() made for the device: as it is on the CPU; on the
  /// fake, with a slot for every argument and the fake's CUDA code, whose
  /// kernels run the stand-ins.
  vmapc::Artifact testArtifact() const;

  const vmapc::Entry &entry(const char *name);

  /// On the fake CUDA driver, the x dimension of the grid of every launch
  /// of `kernel` since the device was opened (none on the CPU).
  std::vector<unsigned> launchGrids(const char *kernel) const;

  DeviceKind kind = DeviceKind::Cpu;
  vmapc::Device device;
  std::string bytes;
  std::unique_ptr<vmapc::Executable> exe;

private:
  std::unique_ptr<ScopedEnv> driverPath;
};

/// A test of the executable on each device.
class ExecutableTest : public DeviceFixture,
                       public ::testing::WithParamInterface<DeviceKind> {
protected:
  void SetUp() override { open(GetParam()); }
};

/// A test of the executable on each device and number of examples.
class ChunkTest
    : public DeviceFixture,
      public ::testing::WithParamInterface<std::tuple<DeviceKind, int64_t>> {
protected:
  void SetUp() override { open(std::get<0>(GetParam())); }
  int64_t examples() const { return std::get<1>(GetParam()); }
};

} // namespace vmapc_test

#endif // VMAPC_TEST_TESTDEVICE_H
