//===- CudaDeviceTest.cpp - the CUDA backend on a fake driver -------------===//
//
// The CUDA device on FakeCuda.h's driver (CudaDeviceTestUtil.h): the calls
// the backend makes (allocations, copies, launches, contexts, streams) and
// the bytes that reach the outputs through the fake's simulated device
// memory, with host arrays and with device arrays.
//
//===----------------------------------------------------------------------===//

#include "CudaDeviceTestUtil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <thread>
#include <unistd.h>

using namespace vmapc;
using namespace vmapc_test;

namespace {

//===----------------------------------------------------------------------===//
// Opening and loading
//===----------------------------------------------------------------------===//

TEST_F(CudaDeviceTest, OpensTheGpuAndRetainsItsPrimaryContext) {
  EXPECT_EQ(gpu.describe(), "cuda:0: Fake GPU (sm_90), CUDA driver 13.0");
  EXPECT_EQ(fake().live("primary"), 1u);
  EXPECT_EQ(fake().calls("cuInit"), 1u);
  // Copies of the device share it; the executable keeps it alive.
  Device copy = gpu;
  gpu = Device();
  EXPECT_EQ(fake().live("primary"), 1u);
  copy = Device();
  EXPECT_EQ(fake().live("primary"), 1u);
  exe.reset();
  EXPECT_EQ(fake().live("primary"), 0u);
  EXPECT_EQ(fake().calls("cuDevicePrimaryCtxRelease_v2"), 1u);
}

TEST_F(CudaDeviceTest, OneArenaAndOneStagingPerLoadAndNothingPerCall) {
  EXPECT_EQ(fake().calls("cuMemAlloc_v2"), 1u);
  EXPECT_EQ(fake().calls("cuMemHostAlloc"), 1u);
  EXPECT_EQ(fake().calls("cuStreamCreate"), 1u);
  EXPECT_EQ(fake().calls("cuModuleLoadData"), 1u);
  EXPECT_EQ(fake().calls("cuModuleLoadDataEx"), 0u);
  EXPECT_EQ(exe->codeLevel(), "sm_90 (cubin)");
  Stats st = exe->stats();
  EXPECT_EQ(st.allocations, 1u);
  EXPECT_EQ(st.deviceAllocations, 2u);
  EXPECT_EQ(st.arenaBytes, 512u);
  // Warm up, then count: later calls allocate nothing on the host or GPU.
  AffineArrays a(6), b(9), z(0);
  ASSERT_TRUE(runAffine(*exe, a).ok());
  startCountingAllocations();
  Status s1 = runAffine(*exe, b);
  Status s2 = runAffine(*exe, z);
  Status s3 = runAffine(*exe, a);
  EXPECT_EQ(stopCountingAllocations(), 0u);
  ASSERT_TRUE(s1.ok()) << s1.message();
  ASSERT_TRUE(s2.ok() && s3.ok());
  expectAffine(a);
  expectAffine(b);
  EXPECT_EQ(fake().calls("cuMemAlloc_v2"), 1u);
  EXPECT_EQ(fake().calls("cuMemHostAlloc"), 1u);
  EXPECT_EQ(fake().calls("cuStreamCreate"), 1u);
  EXPECT_EQ(exe->stats().deviceAllocations, 2u);
  EXPECT_EQ(fake().live("device"), 1u);
  EXPECT_EQ(fake().live("pinned"), 1u);
  // The dynamic shared memory of `total` (64 KiB) was opted in to.
  EXPECT_EQ(fake().calls("cuFuncSetAttribute"), 1u);
}

//===----------------------------------------------------------------------===//
// Running: copies, launches, results
//===----------------------------------------------------------------------===//

TEST_F(CudaDeviceTest, HostArraysGoThroughPinnedStagingAndSlots) {
  AffineArrays a(6); // a full chunk of 4, then 2
  Status s = runAffine(*exe, a);
  ASSERT_TRUE(s.ok()) << s.message();
  expectAffine(a);
  std::vector<vmapc_fake_cuda_launch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 2u);
  const uint64_t arena = arenaOf(launches[0]);
  ASSERT_NE(fake().host_pointer(arena, 512), nullptr);
  EXPECT_EQ(arena % 256, 0u);
  // Grid ceil(n / 2) for n = 4, then 2; the launch record's block; the
  // slots of x, c and y; then n.
  const unsigned grids[2] = {2, 1};
  const uint64_t ns[2] = {4, 2};
  for (int c = 0; c < 2; ++c) {
    const vmapc_fake_cuda_launch &l = launches[size_t(c)];
    EXPECT_STREQ(l.kernel, "vmapc_kernel_affine");
    EXPECT_EQ(l.grid[0], grids[c]);
    EXPECT_EQ(l.grid[1], 1u);
    EXPECT_EQ(l.grid[2], 1u);
    EXPECT_EQ(l.block[0], 64u);
    EXPECT_EQ(l.block[1], 1u);
    EXPECT_EQ(l.block[2], 1u);
    EXPECT_EQ(l.shared_bytes, 0u);
    ASSERT_EQ(l.num_params, 4);
    EXPECT_EQ(l.params[0], arena + 0);
    EXPECT_EQ(l.params[1], arena + 64);
    EXPECT_EQ(l.params[2], arena + 256);
    EXPECT_EQ(l.params[3], ns[c]);
  }
  // c once; per chunk x in and y out: every host side in pinned memory,
  // every copy on the executable's stream.
  std::vector<vmapc_fake_cuda_copy> copies = fake().copies();
  struct Want {
    int kind;
    uint64_t device, bytes;
  };
  const Want want[] = {{VMAPC_FAKE_HTOD, arena + 64, 16},
                       {VMAPC_FAKE_HTOD, arena + 0, 64},
                       {VMAPC_FAKE_DTOH, arena + 256, 64},
                       {VMAPC_FAKE_HTOD, arena + 0, 32},
                       {VMAPC_FAKE_DTOH, arena + 256, 32}};
  ASSERT_EQ(copies.size(), std::size(want));
  void *stream = copies[0].stream;
  EXPECT_NE(stream, nullptr);
  for (size_t i = 0; i < copies.size(); ++i) {
    const vmapc_fake_cuda_copy &c = copies[i];
    EXPECT_EQ(c.kind, want[i].kind) << i;
    EXPECT_EQ(c.kind == VMAPC_FAKE_HTOD ? c.dst : c.src, want[i].device) << i;
    EXPECT_EQ(c.width * c.height, want[i].bytes) << i;
    EXPECT_TRUE(c.async) << i;
    EXPECT_TRUE(c.host_pinned) << i;
    EXPECT_EQ(c.stream, stream) << i;
  }
  for (const vmapc_fake_cuda_launch &l : launches)
    EXPECT_EQ(l.stream, stream);
  Stats st = exe->stats();
  EXPECT_EQ(st.bytesToDevice, 16u + 64 + 32);
  EXPECT_EQ(st.bytesFromDevice, 64u + 32);
  EXPECT_EQ(st.launches, 2u);
  EXPECT_EQ(st.calls, 1u);
  EXPECT_EQ(st.examples, 6u);
}

TEST_F(CudaDeviceTest, ManyChunksReuseThePinnedStaging) {
  // 25 chunks move more bytes than the staging holds (256 bytes here): the
  // backend waits for the stream before it reuses the staging.
  AffineArrays a(99);
  Status s = runAffine(*exe, a);
  ASSERT_TRUE(s.ok()) << s.message();
  expectAffine(a);
  EXPECT_EQ(fake().launch_count(), 25u);
  EXPECT_GT(fake().calls("cuStreamSynchronize"), 2u);
  EXPECT_EQ(fake().calls("cuMemHostAlloc"), 1u);
}

TEST_F(CudaDeviceTest, NoExamplesLaunchNothingButTheUnmappedOutputs) {
  AffineArrays a(0);
  ASSERT_TRUE(runAffine(*exe, a).ok());
  EXPECT_EQ(fake().launch_count(), 0u);
  EXPECT_EQ(fake().copy_count(), 0u);
  // `both` with N = 0: one walk of its schedule; affine's grid ceil(0 / 2)
  // has no block (no launch), total's runs.
  float x[1], y[1], c[4] = {}, sv = 5, total = 0;
  Status s =
      exe->run("both",
               {HostArray{x, DType::F32, {0, 4}}, HostArray{c, DType::F32, {4}},
                HostArray{&sv, DType::F32, {}}},
               {MutableHostArray{y, DType::F32, {0, 4}},
                MutableHostArray{&total, DType::F32, {}}});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(total, 11);
  std::vector<vmapc_fake_cuda_launch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_STREQ(launches[0].kernel, "vmapc_kernel_total");
  EXPECT_EQ(launches[0].grid[0], 1u);
  EXPECT_EQ(launches[0].block[0], 1u);
  EXPECT_EQ(launches[0].shared_bytes, 64u << 10);
  // Both dispatches walked.
  EXPECT_EQ(exe->stats().launches, 2u);
}

TEST_F(CudaDeviceTest, UnmappedArgumentsAreStagedOncePerCall) {
  AffineArrays a(10); // 3 chunks
  float sv = 2, total = 0;
  Status s = exe->run("both",
                      {HostArray{a.x.data(), DType::F32, {a.n, 4}},
                       HostArray{a.c, DType::F32, {4}},
                       HostArray{&sv, DType::F32, {}}},
                      {MutableHostArray{a.y.data(), DType::F32, {a.n, 4}},
                       MutableHostArray{&total, DType::F32, {}}});
  ASSERT_TRUE(s.ok()) << s.message();
  expectAffine(a);
  EXPECT_EQ(total, 5);
  uint64_t arena = arenaOf(fake().launches()[0]);
  int cIn = 0, sIn = 0, totalOut = 0;
  for (const vmapc_fake_cuda_copy &c : fake().copies()) {
    cIn += c.kind == VMAPC_FAKE_HTOD && c.dst == arena + 64;
    sIn += c.kind == VMAPC_FAKE_HTOD && c.dst == arena + 128;
    totalOut += c.kind == VMAPC_FAKE_DTOH && c.src == arena + 384;
  }
  EXPECT_EQ(cIn, 1);
  EXPECT_EQ(sIn, 1);
  EXPECT_EQ(totalOut, 1);
  // In `reuse`, a buffer of the schedule takes c's slot once c is dead: c
  // is copied in before every chunk.
  fake().clear_records();
  AffineArrays r(10);
  ASSERT_TRUE(runAffine(*exe, r, RunOptions(), "reuse").ok());
  for (int64_t b = 0; b < r.n; ++b)
    for (int i = 0; i < 4; ++i) {
      float t = r.expected(b, i);
      ASSERT_EQ(r.y[size_t(4 * b + i)], t * t * t * t) << b << ", " << i;
    }
  cIn = 0;
  for (const vmapc_fake_cuda_copy &c : fake().copies())
    cIn += c.kind == VMAPC_FAKE_HTOD && c.dst == arena + 128;
  EXPECT_EQ(cIn, 3);
}

TEST_F(CudaDeviceTest, ArgumentsMappedInsideGoThrough2DCopies) {
  const int64_t n = 3; // a partial chunk
  int32_t x[2 * n * 3], y[2 * 3 * n];
  for (int i = 0; i < 2 * n * 3; ++i)
    x[i] = i;
  Status s = exe->run("axis1", {HostArray{x, DType::I32, {2, n, 3}}},
                      {MutableHostArray{y, DType::I32, {2, 3, n}}});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int b = 0; b < n; ++b)
        EXPECT_EQ(y[(i * 3 + j) * n + b], 3 * x[(i * n + b) * 3 + j] + 1);
  std::vector<vmapc_fake_cuda_launch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].grid[0], 2u); // ceil(3 / 2)
  EXPECT_EQ(launches[0].grid[1], 2u);
  EXPECT_EQ(launches[0].block[0], 32u);
  EXPECT_EQ(launches[0].block[1], 2u);
  EXPECT_EQ(launches[0].shared_bytes, 1024u);
  uint64_t arena = launches[0].params[0];
  EXPECT_EQ(launches[0].params[1], arena + 128);
  // x: 2 rows of 3 examples x 12 bytes, B x 12 apart in the slot; y: 6
  // rows of 3 x 4 bytes, B x 4 apart in the slot.
  std::vector<vmapc_fake_cuda_copy> copies = fake().copies();
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].kind, VMAPC_FAKE_HTOD);
  EXPECT_TRUE(copies[0].two_d);
  EXPECT_EQ(copies[0].dst, arena);
  EXPECT_EQ(copies[0].width, 36u);
  EXPECT_EQ(copies[0].height, 2u);
  EXPECT_EQ(copies[0].dst_pitch, B * 12);
  EXPECT_EQ(copies[0].src_pitch, 36u);
  EXPECT_TRUE(copies[0].host_pinned);
  EXPECT_EQ(copies[1].kind, VMAPC_FAKE_DTOH);
  EXPECT_TRUE(copies[1].two_d);
  EXPECT_EQ(copies[1].src, arena + 128);
  EXPECT_EQ(copies[1].width, 12u);
  EXPECT_EQ(copies[1].height, 6u);
  EXPECT_EQ(copies[1].src_pitch, B * 4);
  EXPECT_TRUE(copies[1].host_pinned);
}

TEST_F(CudaDeviceTest, LoopsRepeatLaunchesWithTheirIndices) {
  const int64_t n = 4;
  float x[n * 4], y[n * 4];
  for (int i = 0; i < n * 4; ++i)
    x[i] = float(i) / 8;
  Status s = exe->run("twostep", {HostArray{x, DType::F32, {n, 4}}},
                      {MutableHostArray{y, DType::F32, {n, 4}}});
  ASSERT_TRUE(s.ok()) << s.message();
  for (int i = 0; i < n * 4; ++i)
    EXPECT_EQ(y[i], 6 * x[i] * x[i] + 36) << i;
  std::vector<vmapc_fake_cuda_launch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 7u);
  EXPECT_STREQ(launches[0].kernel, "vmapc_kernel_square");
  EXPECT_EQ(launches[0].grid[0], 4u);
  EXPECT_EQ(launches[0].block[0], 128u);
  uint64_t arena = launches[0].params[0];
  EXPECT_EQ(launches[0].params[1], arena + 128);
  for (int i0 = 0; i0 < 2; ++i0)
    for (int i1 = 0; i1 < 3; ++i1) {
      const vmapc_fake_cuda_launch &l = launches[size_t(1 + 3 * i0 + i1)];
      EXPECT_STREQ(l.kernel, "vmapc_kernel_accumulate");
      EXPECT_EQ(l.grid[0], 2u);
      ASSERT_EQ(l.num_params, 5);
      EXPECT_EQ(l.params[0], arena + 128);
      EXPECT_EQ(l.params[1], arena + 64);
      EXPECT_EQ(l.params[2], uint64_t(n));
      EXPECT_EQ(l.params[3], uint64_t(i0));
      EXPECT_EQ(l.params[4], uint64_t(i1));
    }
  EXPECT_EQ(exe->stats().launches, 7u);
}

//===----------------------------------------------------------------------===//
// Contexts, threads and streams
//===----------------------------------------------------------------------===//

TEST_F(CudaDeviceTest, ContextIsPushedAndPoppedOnEveryCall) {
  // Another library's context is current: each call makes the primary one
  // current and gives the other back.
  void *other = fake().other_context();
  ASSERT_EQ(fake().ctxPushCurrent(static_cast<CUcontext>(other)), CUDA_SUCCESS);
  AffineArrays a(5);
  ASSERT_TRUE(runAffine(*exe, a).ok());
  expectAffine(a);
  EXPECT_EQ(fake().current_context(), other);
  std::unique_ptr<Executable> second = load(artifact);
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(fake().current_context(), other);
  second.reset();
  EXPECT_EQ(fake().current_context(), other);
  CUcontext popped = nullptr;
  ASSERT_EQ(fake().ctxPopCurrent(&popped), CUDA_SUCCESS);
  EXPECT_EQ(popped, other);
  EXPECT_EQ(fake().current_context(), nullptr);
  EXPECT_EQ(fake().calls("cuCtxPushCurrent_v2"),
            fake().calls("cuCtxPopCurrent_v2"));
  EXPECT_EQ(fake().context_violations(), 0u);
}

TEST_F(CudaDeviceTest, AnyThreadMayLoadRunAndRelease) {
  std::unique_ptr<Executable> mine;
  AffineArrays a(7);
  Status loaded, ran;
  void *after = &a;
  std::thread worker([&] {
    std::string bytes = serialize(artifact);
    loaded = Executable::loadBytes(gpu, bytes.data(), bytes.size(), &mine);
    if (loaded.ok())
      ran = runAffine(*mine, a);
    after = fake().current_context();
  });
  worker.join();
  ASSERT_TRUE(loaded.ok()) << loaded.message();
  ASSERT_TRUE(ran.ok()) << ran.message();
  expectAffine(a);
  EXPECT_EQ(after, nullptr); // the thread had no context, and has none
  // Run and released on this thread.
  AffineArrays b(3);
  ASSERT_TRUE(runAffine(*mine, b).ok());
  expectAffine(b);
  mine.reset();
  EXPECT_EQ(fake().context_violations(), 0u);
  EXPECT_EQ(fake().current_context(), nullptr);
}

TEST_F(CudaDeviceTest, CallersStreamIsUsed) {
  void *stream = fake().make_stream();
  RunOptions options;
  options.stream = stream;
  AffineArrays a(6);
  Status s = runAffine(*exe, a, options);
  ASSERT_TRUE(s.ok()) << s.message();
  // Host arrays: the run waited for its work.
  expectAffine(a);
  for (const vmapc_fake_cuda_copy &c : fake().copies())
    EXPECT_EQ(c.stream, stream);
  for (const vmapc_fake_cuda_launch &l : fake().launches())
    EXPECT_EQ(l.stream, stream);
  // The next run, on the executable's own stream, waits for that one.
  EXPECT_EQ(fake().calls("cuStreamWaitEvent"), 0u);
  ASSERT_TRUE(runAffine(*exe, a).ok());
  EXPECT_EQ(fake().calls("cuStreamWaitEvent"), 1u);
  ASSERT_TRUE(runAffine(*exe, a).ok());
  EXPECT_EQ(fake().calls("cuStreamWaitEvent"), 1u);
}

//===----------------------------------------------------------------------===//
// Device arrays
//===----------------------------------------------------------------------===//

TEST_F(CudaDeviceTest, DeviceArraysAreBoundInPlaceOrCopiedOnTheDevice) {
  AffineArrays a(6);
  DeviceAffine d(a);
  Status s = d.run(*exe);
  ASSERT_TRUE(s.ok()) << s.message();
  const float *y = d.result();
  for (int64_t b = 0; b < a.n; ++b)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(y[4 * b + i], a.expected(b, i));
  // The full chunk in place (x and y at example 0; c, unmapped, as it is);
  // the partial one through the slots of x and y.
  std::vector<vmapc_fake_cuda_launch> launches = fake().launches();
  ASSERT_EQ(launches.size(), 2u);
  EXPECT_EQ(launches[0].params[0], d.x);
  EXPECT_EQ(launches[0].params[1], d.c);
  EXPECT_EQ(launches[0].params[2], d.y);
  uint64_t arena = launches[1].params[0];
  EXPECT_NE(fake().host_pointer(arena, 512), nullptr);
  EXPECT_EQ(launches[1].params[1], d.c);
  EXPECT_EQ(launches[1].params[2], arena + 256);
  std::vector<vmapc_fake_cuda_copy> copies = fake().copies();
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(copies[0].kind, VMAPC_FAKE_DTOD);
  EXPECT_EQ(copies[0].src, d.x + 64);
  EXPECT_EQ(copies[0].dst, arena);
  EXPECT_EQ(copies[0].width * copies[0].height, 32u);
  EXPECT_EQ(copies[1].kind, VMAPC_FAKE_DTOD);
  EXPECT_EQ(copies[1].src, arena + 256);
  EXPECT_EQ(copies[1].dst, d.y + 64);
  Stats st = exe->stats();
  EXPECT_EQ(st.bytesToDevice, 0u);
  EXPECT_EQ(st.bytesFromDevice, 0u);
  EXPECT_EQ(fake().calls("cuMemHostAlloc"), 1u);
}

TEST_F(CudaDeviceTest, DonatedDeviceArrayIsItsOutputsBuffer) {
  // 6 examples at B = 4: a full chunk computed in x in place, a partial
  // one through x's staging slot and back into x; with a separate output
  // buffer, x is copied over first (on the device) and left as it was.
  AffineArrays a(6);
  DeviceAffine d(a);
  RunOptions options;
  options.deviceArrays = true;
  auto run = [&](uint64_t out) {
    return exe->run(
        "donate",
        {HostArray{reinterpret_cast<void *>(d.x), DType::F32, {a.n, 4}},
         HostArray{reinterpret_cast<void *>(d.c), DType::F32, {4}}},
        {MutableHostArray{reinterpret_cast<void *>(out), DType::F32, {a.n, 4}}},
        options);
  };
  Status s = run(d.y);
  ASSERT_TRUE(s.ok()) << s.message();
  const float *x = fake().at<float>(d.x, size_t(4 * a.n));
  for (int64_t b = 0; b < a.n; ++b)
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(d.result()[4 * b + i], a.expected(b, i));
      EXPECT_EQ(x[4 * b + i], a.x[size_t(4 * b + i)]);
    }
  s = run(d.x);
  ASSERT_TRUE(s.ok()) << s.message();
  for (int64_t b = 0; b < a.n; ++b)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(x[4 * b + i], a.expected(b, i));
}

TEST_F(CudaDeviceTest, DeviceArraysOnTheCallersStreamAreLeftRunning) {
  AffineArrays a(8);
  DeviceAffine d(a);
  void *stream = fake().make_stream();
  uint64_t syncs = fake().calls("cuStreamSynchronize");
  Status s = d.run(*exe, stream);
  ASSERT_TRUE(s.ok()) << s.message();
  // Enqueued, not waited for: the kernels have not run yet.
  EXPECT_EQ(fake().calls("cuStreamSynchronize"), syncs);
  EXPECT_NE(d.result()[0], a.expected(0, 0));
  fake().synchronize();
  for (int64_t b = 0; b < a.n; ++b)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(d.result()[4 * b + i], a.expected(b, i));
  for (const vmapc_fake_cuda_launch &l : fake().launches())
    EXPECT_EQ(l.stream, stream);
}

TEST_F(CudaDeviceTest, TheCpuRefusesDeviceArraysAndStreams) {
  Device cpu = openCpu();
  Artifact a = makeTestArtifact();
  std::string bytes = serialize(a);
  std::unique_ptr<Executable> e;
  ASSERT_TRUE(Executable::loadBytes(cpu, bytes.data(), bytes.size(), &e).ok());
  float x[4] = {}, c[4] = {}, y[4] = {};
  for (RunOptions options :
       {RunOptions{true, nullptr}, RunOptions{false, fake().make_stream()}}) {
    Status s = e->run(
        "affine",
        {HostArray{x, DType::F32, {1, 4}}, HostArray{c, DType::F32, {4}}},
        {MutableHostArray{y, DType::F32, {1, 4}}}, options);
    EXPECT_EQ(s.message(), "the cpu device runs on host arrays: RunOptions "
                           "deviceArrays and stream are for a CUDA device");
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  }
  EXPECT_EQ(e->stats().calls, 0u);
}

} // namespace
