//===- CApiTest.cpp - The C API over the same test kernels ----------------===//

#include "AllocHook.h"
#include "TestUtil.h"
#include "vmapc/vmapc_runtime.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace vmapc_test;

namespace {

/// Returns the message of `s` ("" for success) and frees it.
std::string take(vmapc_status s) {
  std::string m = s ? vmapc_status_message(s) : "";
  vmapc_status_free(s);
  return m;
}

TEST(CApi, LoadRunAndErrors) {
  vmapc_device *dev = nullptr;
  EXPECT_EQ(take(vmapc_device_open("tpu", &dev)),
            "unknown device 'tpu' (available: cpu)");
  ASSERT_EQ(take(vmapc_device_open("cpu", &dev)), "");

  std::string bytes;
  ASSERT_TRUE(
      vmapc::serializeArtifact(makeTestArtifact(testKernelBytes()), &bytes)
          .ok());
  vmapc_executable *exe = nullptr;
  EXPECT_EQ(take(vmapc_executable_load_bytes(dev, bytes.data(), 20, &exe)),
            "truncated artifact: 20 bytes, smaller than the 72-byte minimum");
  EXPECT_EQ(exe, nullptr);
  ASSERT_EQ(
      take(vmapc_executable_load_bytes(dev, bytes.data(), bytes.size(), &exe)),
      "");
  ASSERT_EQ(vmapc_entry_count(exe), 4u);

  size_t affine = 99;
  EXPECT_EQ(take(vmapc_find_entry(exe, "affin", &affine)),
            "unknown entry 'affin'; entries are: affine, axis1, reduce, probe");
  ASSERT_EQ(take(vmapc_find_entry(exe, "axis1", &affine)), "");
  EXPECT_EQ(affine, 1u);
  ASSERT_EQ(take(vmapc_find_entry(exe, "affine", &affine)), "");
  EXPECT_EQ(affine, 0u);
  EXPECT_STREQ(vmapc_entry_name(exe, 0), "affine");
  EXPECT_EQ(vmapc_entry_name(exe, 4), nullptr);
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
  EXPECT_EQ(take(vmapc_run(exe, affine, in, 2, out, 1)),
            "input 'c': expected dtype f32, got i32");
  EXPECT_EQ(take(vmapc_run(exe, affine, in, 1, out, 1)),
            "entry 'affine' takes 2 inputs and 1 outputs, got 1 and 1");

  vmapc_stats st;
  vmapc_executable_stats(exe, &st);
  EXPECT_EQ(st.calls, 2u);
  EXPECT_EQ(st.launches, 4u);
  EXPECT_EQ(st.examples, 12u);
  EXPECT_EQ(st.allocations, 1u);
  EXPECT_EQ(st.arena_bytes, 512u);

  vmapc_executable_release(exe);
  vmapc_device_release(dev);
}

} // namespace
