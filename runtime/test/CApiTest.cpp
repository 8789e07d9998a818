//===- CApiTest.cpp - The C API over the same test kernels ----------------===//

#include "AllocHook.h"
#include "TestDevice.h"
#include "TestUtil.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/Status.h"
#include "vmapc/vmapc_runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

using namespace vmapc_test;

namespace {

/// Returns the message of `s` ("" for success) and frees it.
std::string take(vmapc_status s) {
  std::string m = s ? vmapc_status_message(s) : "";
  vmapc_status_free(s);
  return m;
}

/// Returns the code of `s` and frees it.
vmapc_code takeCode(vmapc_status s) {
  vmapc_code c = vmapc_status_code(s);
  vmapc_status_free(s);
  return c;
}

/// The C API on each device (TestDevice.h): the fixture's device and
/// artifact, opened and loaded again through the C API.
class CApiTest : public DeviceFixture,
                 public ::testing::WithParamInterface<DeviceKind> {
protected:
  void SetUp() override { open(GetParam()); }
};

TEST_P(CApiTest, LoadRunAndErrors) {
  vmapc_device *dev = nullptr;
  EXPECT_EQ(take(vmapc_device_open("tpu", &dev)),
            "unknown device 'tpu' (available: cpu, cuda)");
  EXPECT_EQ(takeCode(vmapc_device_open("tpu", &dev)), VMAPC_STATUS_NOT_FOUND);
  EXPECT_EQ(takeCode(vmapc_device_open(nullptr, &dev)),
            VMAPC_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(
      take(vmapc_device_open(kind == DeviceKind::Cpu ? "cpu" : "cuda", &dev)),
      "");

  vmapc::Artifact artifact = testArtifact();
  std::string bytes;
  ASSERT_TRUE(vmapc::serializeArtifact(artifact, &bytes).ok());
  vmapc_executable *exe = nullptr;
  EXPECT_EQ(take(vmapc_executable_load_bytes(dev, bytes.data(), 20, &exe)),
            "truncated artifact: 20 bytes, smaller than the 72-byte minimum");
  EXPECT_EQ(takeCode(vmapc_executable_load_bytes(dev, bytes.data(), 20, &exe)),
            VMAPC_STATUS_DATA_LOSS);
  EXPECT_EQ(takeCode(vmapc_executable_load_file(dev, "/nonexistent", &exe)),
            VMAPC_STATUS_NOT_FOUND);
  EXPECT_EQ(exe, nullptr);
  ASSERT_EQ(
      take(vmapc_executable_load_bytes(dev, bytes.data(), bytes.size(), &exe)),
      "");
  ASSERT_EQ(vmapc_entry_count(exe), 12u);

  size_t affine = 99;
  EXPECT_EQ(take(vmapc_find_entry(exe, "affin", &affine)),
            "unknown entry 'affin'; entries are: affine, axis1, reduce, probe, "
            "twostep, count, whoami, where, empty, rendezvous, stack, donate");
  ASSERT_EQ(take(vmapc_find_entry(exe, "axis1", &affine)), "");
  EXPECT_EQ(affine, 1u);
  ASSERT_EQ(take(vmapc_find_entry(exe, "affine", &affine)), "");
  EXPECT_EQ(affine, 0u);
  EXPECT_STREQ(vmapc_entry_name(exe, 0), "affine");
  EXPECT_EQ(vmapc_entry_name(exe, 12), nullptr);
  EXPECT_EQ(vmapc_entry_batch_size(exe, 0), uint32_t(kTestB));
  EXPECT_EQ(vmapc_entry_num_inputs(exe, 0), 2u);
  EXPECT_EQ(vmapc_entry_num_outputs(exe, 0), 1u);

  vmapc_arg_info info;
  ASSERT_EQ(take(vmapc_entry_arg(exe, 0, 0, 1, &info)), "");
  EXPECT_STREQ(info.name, "c");
  EXPECT_EQ(info.dtype, VMAPC_F32);
  EXPECT_EQ(info.mapped_axis, VMAPC_NO_AXIS);
  ASSERT_EQ(info.rank, 1u);
  EXPECT_EQ(info.dims[0], 4);
  EXPECT_EQ(take(vmapc_entry_arg(exe, 0, 1, 1, &info)),
            "entry 'affine' has no output #1");
  EXPECT_EQ(takeCode(vmapc_entry_arg(exe, 0, 1, 1, &info)),
            VMAPC_STATUS_OUT_OF_RANGE);

  const int64_t n = 6;
  float x[n * 4], c[4] = {1, 2, 3, 4}, y[n * 4];
  for (int i = 0; i < n * 4; ++i)
    x[i] = float(i);
  int64_t xShape[2] = {n, 4}, cShape[1] = {4};
  vmapc_host_array in[2] = {{x, VMAPC_F32, 2, xShape},
                            {c, VMAPC_F32, 1, cShape}};
  vmapc_mutable_host_array out[1] = {{y, VMAPC_F32, 2, xShape}};
  startCountingAllocations();
  vmapc_status s1 = vmapc_run(exe, affine, in, 2, out, 1);
  vmapc_status s2 = vmapc_run(exe, affine, in, 2, out, 1);
  EXPECT_EQ(stopCountingAllocations(), 0u);
  EXPECT_EQ(take(s1), "");
  EXPECT_EQ(take(s2), "");
  for (int i = 0; i < n * 4; ++i)
    ASSERT_EQ(y[i], 2 * x[i] + c[i % 4]);

  in[1].dtype = VMAPC_I32;
  vmapc_status wrongDType = vmapc_run(exe, affine, in, 2, out, 1);
  EXPECT_EQ(vmapc_status_code(wrongDType), VMAPC_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(take(wrongDType), "input 'c': expected dtype f32, got i32");
  EXPECT_EQ(take(vmapc_run(exe, affine, in, 1, out, 1)),
            "entry 'affine' takes 2 inputs and 1 outputs, got 1 and 1");

  vmapc_stats st;
  vmapc_executable_stats(exe, &st);
  EXPECT_EQ(st.calls, 2u);
  EXPECT_EQ(st.launches, 4u);
  EXPECT_EQ(st.examples, 12u);
  EXPECT_EQ(st.allocations, 1u);
  if (kind == DeviceKind::Cpu) {
    EXPECT_EQ(st.arena_bytes, 512u);
  } else {
    // The largest arena, rounded up to 256 bytes: on a GPU every argument
    // has a staging slot, which makes the arenas larger.
    uint64_t arena = 0;
    for (const vmapc::EntryInfo &e : artifact.entries)
      arena = std::max(arena, (e.arenaBytes + 255) / 256 * 256);
    EXPECT_EQ(st.arena_bytes, arena);
  }

  vmapc_executable_release(exe);
  vmapc_device_release(dev);
}

INSTANTIATE_TEST_SUITE_P(Devices, CApiTest,
                         ::testing::ValuesIn(testDeviceKinds()),
                         [](const ::testing::TestParamInfo<DeviceKind> &info) {
                           return deviceKindName(info.param);
                         });

TEST(CApi, CodeLevelAndDeviceDescription) {
  vmapc_device *dev = nullptr;
  ASSERT_EQ(take(vmapc_device_open("cpu:isa=x86-64,threads=2", &dev)), "");
  EXPECT_STREQ(vmapc_device_description(dev),
               "cpu: 2 threads, x86-64 (SSE2), forced");
  std::string bytes;
  ASSERT_TRUE(vmapc::serializeArtifact(makeTestArtifact(), &bytes).ok());
  vmapc_executable *exe = nullptr;
  ASSERT_EQ(
      take(vmapc_executable_load_bytes(dev, bytes.data(), bytes.size(), &exe)),
      "");
  EXPECT_STREQ(vmapc_executable_code_level(exe), "x86-64");
  int32_t level = -1;
  size_t whoami = 0;
  ASSERT_EQ(take(vmapc_find_entry(exe, "whoami", &whoami)), "");
  vmapc_mutable_host_array out[1] = {{&level, VMAPC_I32, 0, nullptr}};
  EXPECT_EQ(take(vmapc_run(exe, whoami, nullptr, 0, out, 1)), "");
  EXPECT_EQ(level, 0) << "the x86-64 code object ran";
  EXPECT_STREQ(vmapc_executable_code_level(nullptr), "");
  EXPECT_STREQ(vmapc_device_description(nullptr), "");
  vmapc_executable_release(exe);
  vmapc_device_release(dev);

  EXPECT_EQ(take(vmapc_device_open("cpu:isa=x86-64-v5", &dev)),
            "cpu device: isa must be x86-64, x86-64-v3 or x86-64-v4, got "
            "'x86-64-v5'");
}

TEST(CApi, VersionIsTheBuildsVersion) {
  EXPECT_STREQ(vmapc_version(), VMAPC_TEST_VERSION);
}

TEST(CApi, SuccessIsNullWithCodeOk) {
  EXPECT_EQ(vmapc_status_code(nullptr), VMAPC_STATUS_OK);
  EXPECT_STREQ(vmapc_status_message(nullptr), "ok");
  vmapc_status_free(nullptr);
}

TEST(CApi, CodesHaveNamesAndTheValuesOfTheCppCodes) {
  struct Case {
    vmapc_code c;
    vmapc::StatusCode cpp;
    const char *name;
  };
  const Case cases[] = {
      {VMAPC_STATUS_OK, vmapc::StatusCode::kOk, "ok"},
      {VMAPC_STATUS_INVALID_ARGUMENT, vmapc::StatusCode::kInvalidArgument,
       "invalid argument"},
      {VMAPC_STATUS_NOT_FOUND, vmapc::StatusCode::kNotFound, "not found"},
      {VMAPC_STATUS_PERMISSION_DENIED, vmapc::StatusCode::kPermissionDenied,
       "permission denied"},
      {VMAPC_STATUS_RESOURCE_EXHAUSTED, vmapc::StatusCode::kResourceExhausted,
       "resource exhausted"},
      {VMAPC_STATUS_FAILED_PRECONDITION, vmapc::StatusCode::kFailedPrecondition,
       "failed precondition"},
      {VMAPC_STATUS_OUT_OF_RANGE, vmapc::StatusCode::kOutOfRange,
       "out of range"},
      {VMAPC_STATUS_UNIMPLEMENTED, vmapc::StatusCode::kUnimplemented,
       "unimplemented"},
      {VMAPC_STATUS_INTERNAL, vmapc::StatusCode::kInternal, "internal"},
      {VMAPC_STATUS_UNAVAILABLE, vmapc::StatusCode::kUnavailable,
       "unavailable"},
      {VMAPC_STATUS_DATA_LOSS, vmapc::StatusCode::kDataLoss, "data loss"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(int(c.c), int(c.cpp));
    EXPECT_STREQ(vmapc_code_name(c.c), c.name);
  }
}

// When the status itself cannot be allocated, the call still fails, with its
// code and a fixed message, and freeing that status is harmless.
TEST(CApi, AStatusThatCannotBeAllocatedStillReportsItsCode) {
  if (!canFailAllocations())
    GTEST_SKIP() << "allocation failures cannot be injected in this build "
                    "(ASan without the --wrap link flags)";
  vmapc_device *dev = nullptr;
  failMallocFamily(0);
  vmapc_status notFound = vmapc_device_open("tpu", &dev);
  vmapc_status badArg = vmapc_device_open(nullptr, &dev);
  vmapc_status again = vmapc_device_open("tpu", &dev);
  stopFailingAllocations();
  ASSERT_NE(notFound, nullptr);
  EXPECT_EQ(vmapc_status_code(notFound), VMAPC_STATUS_NOT_FOUND);
  EXPECT_STREQ(vmapc_status_message(notFound),
               "out of memory while reporting an error");
  ASSERT_NE(badArg, nullptr);
  EXPECT_EQ(vmapc_status_code(badArg), VMAPC_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(again, notFound); // one preallocated status per code
  vmapc_status_free(notFound);
  vmapc_status_free(badArg);
  vmapc_status_free(again);
  // Allocation works again: a status with the real message.
  vmapc_status s = vmapc_device_open("tpu", &dev);
  EXPECT_EQ(vmapc_status_code(s), VMAPC_STATUS_NOT_FOUND);
  EXPECT_STREQ(vmapc_status_message(s),
               "unknown device 'tpu' (available: cpu, cuda)");
  vmapc_status_free(s);
}

} // namespace
