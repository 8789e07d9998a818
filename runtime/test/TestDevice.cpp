//===- TestDevice.cpp - the executable's tests on every device ------------===//

#include "TestDevice.h"

#if VMAPC_TEST_CUDA
#include "FakeCudaTestUtil.h"
#endif

namespace vmapc_test {

using namespace vmapc;

std::vector<DeviceKind> testDeviceKinds() {
#if VMAPC_TEST_CUDA
  return {DeviceKind::Cpu, DeviceKind::FakeCuda};
#else
  return {DeviceKind::Cpu};
#endif
}

std::string deviceKindName(DeviceKind kind) {
  return kind == DeviceKind::Cpu ? "Cpu" : "FakeCuda";
}

void DeviceFixture::open(DeviceKind k) {
  kind = k;
  if (kind == DeviceKind::Cpu) {
    device = openCpu();
  } else {
#if VMAPC_TEST_CUDA
    driverPath =
        std::make_unique<ScopedEnv>("VMAPC_CUDA_DRIVER", VMAPC_FAKE_CUDA);
    fake().reset();
    Status s = Device::open("cuda", &device);
    ASSERT_TRUE(s.ok()) << s.message();
#else
    FAIL() << "no fake CUDA driver in this build";
#endif
  }
  bytes = serialize(testArtifact());
  Status s = Executable::loadBytes(device, bytes.data(), bytes.size(), &exe);
  ASSERT_TRUE(s.ok()) << deviceKindName(kind) << ": " << s.message();
}

void DeviceFixture::TearDown() {
  exe.reset();
  device = Device();
#if VMAPC_TEST_CUDA
  if (kind == DeviceKind::FakeCuda) {
    EXPECT_EQ(fake().context_violations(), 0u);
    for (const char *what :
         {"device", "pinned", "module", "stream", "event", "primary"})
      EXPECT_EQ(fake().live(what), 0u) << what;
    fake().reset();
  }
#endif
}

Artifact DeviceFixture::testArtifact() const {
  Artifact a = makeTestArtifact();
#if VMAPC_TEST_CUDA
  if (kind == DeviceKind::FakeCuda) {
    giveFakeCudaCode(a);
    runStandInKernelsOnTheFake(a);
  }
#endif
  return a;
}

std::vector<unsigned> DeviceFixture::launchGrids(const char *kernel) const {
  std::vector<unsigned> grids;
#if VMAPC_TEST_CUDA
  if (kind == DeviceKind::FakeCuda)
    for (const vmapc_fake_cuda_launch &l : fake().launches())
      if (std::string(l.kernel) == kernel)
        grids.push_back(l.grid[0]);
#else
  (void)kernel;
#endif
  return grids;
}

const Entry &DeviceFixture::entry(const char *name) {
  const Entry *e = nullptr;
  Status s = exe->findEntry(name, &e);
  EXPECT_TRUE(s.ok()) << s.message();
  return *e;
}

} // namespace vmapc_test
