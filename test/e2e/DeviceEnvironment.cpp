//===- DeviceEnvironment.cpp - skip a device this CPU cannot run ----------===//
//
// The end-to-end and property tests run under several devices
// (test/e2e/CMakeLists.txt sets VMAPC_CPU_ISA and VMAPC_CPU_THREADS per
// CTest variant). On a CPU without the variant's ISA level every test of the
// variant is skipped with a message, rather than failing to load its code.
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

#include <gtest/gtest.h>

namespace {

class DeviceEnvironment : public ::testing::Environment {
public:
  void SetUp() override {
    vmapc::e2e::DeviceConfig config =
        vmapc::e2e::DeviceConfig::fromEnvironment();
    if (!config.isaLevel.empty() &&
        !vmapc::e2e::hostRunsIsaLevel(config.isaLevel))
      GTEST_SKIP() << "this CPU does not run ISA level " << config.isaLevel
                   << " (VMAPC_CPU_ISA)";
  }
};

[[maybe_unused]] ::testing::Environment *const kDeviceEnvironment =
    ::testing::AddGlobalTestEnvironment(new DeviceEnvironment);

} // namespace
