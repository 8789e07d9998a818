//===- CudaDeviceTest.cpp - The CUDA backend against a fake driver --------===//
//
// The CUDA device runs here on FakeCuda.h's driver (VMAPC_CUDA_DRIVER): the
// tests check the calls the backend makes (allocations, copies, launches,
// contexts, streams), the bytes that reach the outputs through the fake's
// simulated device memory and kernels written in C below, and the status of
// every error the driver can give.
//
//===----------------------------------------------------------------------===//

#include "AllocHook.h"
#include "FakeCuda.h"
#include "FakeCudaTestUtil.h"
#include "RuntimeTestUtil.h"
#include "TestUtil.h"
#include "vmapc/ArtifactWriter.h"
#include "vmapc/Runtime.h"
#include "vmapc/vmapc_runtime.h"

#include <cuda.h>
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

constexpr uint64_t B = kTestB;

//===----------------------------------------------------------------------===//
// Kernels: what the fake GPU runs for each launch (the CPU stand-ins'
// semantics, TestKernels.h, over the launch's parameters)
//===----------------------------------------------------------------------===//

/// y[b, i] = 2 x[b, i] + c[i] for the examples b < n of each block of 2.
void affineKernel(const vmapc_fake_cuda_launch *l, void *) {
  uint64_t n = l->params[3];
  const float *c = fake().at<float>(l->params[1], 4);
  for (uint64_t t = 0; t < l->grid[0]; ++t)
    for (uint64_t b = 2 * t; b < 2 * t + 2 && b < n; ++b) {
      const float *x = fake().at<float>(l->params[0] + 16 * b, 4);
      float *y = fake().at<float>(l->params[2] + 16 * b, 4);
      for (int i = 0; i < 4; ++i)
        y[i] = 2 * x[i] + c[i];
    }
}

/// x i32[2, B, 3] -> y i32[2, 3, B]: y[i, j, b] = 3 x[i, b, j] + 1.
void axis1Kernel(const vmapc_fake_cuda_launch *l, void *) {
  uint64_t n = l->params[2];
  const int32_t *x = fake().at<int32_t>(l->params[0], 2 * B * 3);
  int32_t *y = fake().at<int32_t>(l->params[1], 2 * 3 * B);
  for (uint64_t t = 0; t < l->grid[0]; ++t)
    for (uint64_t i = 0; i < l->grid[1]; ++i)
      for (uint64_t b = 2 * t; b < 2 * t + 2 && b < n; ++b)
        for (uint64_t j = 0; j < 3; ++j)
          y[(i * 3 + j) * B + b] = 3 * x[(i * B + b) * 3 + j] + 1;
}

/// t[b] = x[b]^2, one block per example.
void squareKernel(const vmapc_fake_cuda_launch *l, void *) {
  for (uint64_t b = 0; b < l->grid[0] && b < l->params[2]; ++b) {
    const float *x = fake().at<float>(l->params[0] + 16 * b, 4);
    float *t = fake().at<float>(l->params[1] + 16 * b, 4);
    for (int i = 0; i < 4; ++i)
      t[i] = x[i] * x[i];
  }
}

/// y[b] = (i0 = i1 = 0 ? 0 : y[b]) + t[b] + 10 i0 + i1.
void accumulateKernel(const vmapc_fake_cuda_launch *l, void *) {
  uint64_t n = l->params[2], i0 = l->params[3], i1 = l->params[4];
  for (uint64_t t = 0; t < l->grid[0]; ++t)
    for (uint64_t b = 2 * t; b < 2 * t + 2 && b < n; ++b) {
      const float *in = fake().at<float>(l->params[0] + 16 * b, 4);
      float *y = fake().at<float>(l->params[1] + 16 * b, 4);
      for (int i = 0; i < 4; ++i)
        y[i] = (i0 == 0 && i1 == 0 ? 0 : y[i]) + in[i] + float(10 * i0 + i1);
    }
}

/// total = 2 s + 1.
void totalKernel(const vmapc_fake_cuda_launch *l, void *) {
  *fake().at<float>(l->params[1], 1) =
      2 * *fake().at<float>(l->params[0], 1) + 1;
}

//===----------------------------------------------------------------------===//
// The artifact
//===----------------------------------------------------------------------===//

enum CudaKernel : uint32_t {
  kAffineK,
  kAxis1K,
  kSquareK,
  kAccumulateK,
  kTotalK
};

/// The launch records of the CUDA code objects.
std::vector<GpuLaunch> launchRecords() {
  std::vector<GpuLaunch> l(5);
  l[kAffineK].block[0] = 64;
  l[kAxis1K].block[0] = 32, l[kAxis1K].block[1] = 2;
  l[kAxis1K].sharedBytes = 1024;
  l[kSquareK].block[0] = 128;
  l[kAccumulateK].block[0] = 64;
  l[kTotalK].sharedBytes = 64 << 10; // past 48 KiB: the kernel opts in
  return l;
}

/// The launch record of kernel `k` of `a`: its CUDA objects' (as
/// setCudaCode made them, or a test edited them), else launchRecords()'.
GpuLaunch launchOf(const Artifact &a, size_t k) {
  for (const CodeObject &o : a.codeObjects)
    if (isCudaCode(o.kind) && k < o.launches.size())
      return o.launches[k];
  std::vector<GpuLaunch> l = launchRecords();
  return k < l.size() ? l[k] : GpuLaunch{};
}

/// The launch records of `a`'s kernels (launchOf).
std::vector<GpuLaunch> launchesOf(const Artifact &a) {
  std::vector<GpuLaunch> l;
  for (size_t k = 0; k < a.kernels.size(); ++k)
    l.push_back(launchOf(a, k));
  return l;
}

/// FakeCudaTestUtil.h's module text and PTX for `a`, with launchesOf(a).
std::string moduleText(const Artifact &a) {
  return fakeModuleText(a, launchesOf(a));
}
std::string ptxText(const Artifact &a, unsigned maxThreads = 1024) {
  return fakePtxText(a, launchesOf(a), maxThreads);
}

/// An sm_90 cubin and PTX of the kernels of `a` (replacing its code).
void setCudaCode(Artifact &a, const std::string &text) {
  CodeObject cubin, ptx;
  cubin.kind = CodeKind::CudaCubin;
  ptx.kind = CodeKind::CudaPtx;
  cubin.level = ptx.level = "sm_90";
  cubin.launches = ptx.launches = launchRecords();
  cubin.launches.resize(a.kernels.size());
  ptx.launches.resize(a.kernels.size());
  cubin.bytes = cubinElfHeader() + text;
  ptx.bytes = text;
  a.codeObjects = {cubin, ptx};
}

/// Kernels (bindings; scalars; grid):
///   affine      (x f32[B,4], c f32[4], y f32[B,4]; n; (ceil(n/2), 1, 1))
///   axis1       (x i32[2,B,3], y i32[2,3,B]; n; (ceil(n/2), 2, 1))
///   square      (x f32[B,4], t f32[B,4]; n; (n, 1, 1))
///   accumulate  (t f32[B,4], y f32[B,4]; n, i0, i1; (ceil(n/2), 1, 1))
///   total       (s f32[], total f32[];; (1, 1, 1))
/// Entries, every argument with a staging slot:
///   affine   x axis 0 @0, c none @64 -> y axis 0 @256 (arena 512)
///   axis1    x i32[2,3] axis 1 @0 -> y i32[2,3] axis 2 @128 (arena 256)
///   twostep  x @0 -> y @64; square (x -> arena 128); loop 2 { loop 3 {
///            accumulate (arena 128 -> y; n, i0, i1) } } (arena 256)
///   both     x @0, c @64, s @128 -> y @256, total @384; affine; total
///   reuse    x @0, c none @128 -> y @256 (arena 512): affine (x, c ->
///            arena 320), square (arena 320 -> arena 128, over c's slot,
///            once c is dead), square (arena 128 -> y): y = (2 x + c)^4, and c
///            is copied in before every chunk
Artifact cudaTestArtifact() {
  Artifact a;
  a.kernels = {kernel("affine", {B * 16, 16, B * 16}, "rrw", 1, -2),
               kernel("axis1", {2 * B * 12, 2 * 3 * B * 4}, "rw", 1, -2, 2),
               kernel("square", {B * 16, B * 16}, "rw", 1, -1),
               kernel("accumulate", {B * 16, B * 16}, "rb", 3, -2),
               kernel("total", {4, 4}, "rw", 0, 1)};
  auto entry = [](const char *name, uint64_t arenaBytes) {
    EntryInfo e;
    e.name = name;
    e.batchSize = B;
    e.arenaBytes = arenaBytes;
    return e;
  };
  EntryInfo affine = entry("affine", 512);
  affine.inputs = {arg("x", DType::F32, {4}, 0, 0),
                   arg("c", DType::F32, {4}, kNoAxis, 64)};
  affine.outputs = {arg("y", DType::F32, {4}, 0, 256)};
  affine.schedule = {
      dispatch(kAffineK, {inputBinding(0), inputBinding(1), outputBinding(0)},
               {numExamples()})};
  a.entries.push_back(affine);

  EntryInfo axis1 = entry("axis1", 256);
  axis1.inputs = {arg("x", DType::I32, {2, 3}, 1, 0)};
  axis1.outputs = {arg("y", DType::I32, {2, 3}, 2, 128)};
  axis1.schedule = {
      dispatch(kAxis1K, {inputBinding(0), outputBinding(0)}, {numExamples()})};
  a.entries.push_back(axis1);

  EntryInfo twostep = entry("twostep", 256);
  twostep.inputs = {arg("x", DType::F32, {4}, 0, 0)};
  twostep.outputs = {arg("y", DType::F32, {4}, 0, 64)};
  twostep.schedule = {
      dispatch(kSquareK, {inputBinding(0), arenaBinding(128)}, {numExamples()}),
      loop(2, 2), loop(3, 1),
      dispatch(kAccumulateK, {arenaBinding(128), outputBinding(0)},
               {numExamples(), loopIndex(0), loopIndex(1)})};
  a.entries.push_back(twostep);

  EntryInfo both = entry("both", 512);
  both.inputs = {arg("x", DType::F32, {4}, 0, 0),
                 arg("c", DType::F32, {4}, kNoAxis, 64),
                 arg("s", DType::F32, {}, kNoAxis, 128)};
  both.outputs = {arg("y", DType::F32, {4}, 0, 256),
                  arg("total", DType::F32, {}, kNoAxis, 384)};
  both.schedule = {
      dispatch(kAffineK, {inputBinding(0), inputBinding(1), outputBinding(0)},
               {numExamples()}),
      dispatch(kTotalK, {inputBinding(2), outputBinding(1)})};
  a.entries.push_back(both);

  EntryInfo reuse = entry("reuse", 512);
  reuse.inputs = {arg("x", DType::F32, {4}, 0, 0),
                  arg("c", DType::F32, {4}, kNoAxis, 128)};
  reuse.outputs = {arg("y", DType::F32, {4}, 0, 256)};
  reuse.schedule = {
      dispatch(kAffineK, {inputBinding(0), inputBinding(1), arenaBinding(320)},
               {numExamples()}),
      dispatch(kSquareK, {arenaBinding(320), arenaBinding(128)},
               {numExamples()}),
      dispatch(kSquareK, {arenaBinding(128), outputBinding(0)},
               {numExamples()})};
  a.entries.push_back(reuse);

  setCudaCode(a, moduleText(a));
  return a;
}

/// Host arrays for entry `affine` (and `reuse`) on n examples: x[b, i] =
/// b + i / 4, c = (1, 2, 3, 4); y filled with -1.
struct AffineArrays {
  explicit AffineArrays(int64_t n)
      : n(n), x(size_t(4 * n)), y(size_t(4 * n), -1) {
    for (int64_t b = 0; b < n; ++b)
      for (int i = 0; i < 4; ++i)
        x[size_t(4 * b + i)] = float(b) + float(i) / 4;
  }
  float expected(int64_t b, int i) const {
    return 2 * x[size_t(4 * b + i)] + c[i];
  }
  int64_t n;
  std::vector<float> x, y;
  float c[4] = {1, 2, 3, 4};
};

class CudaDeviceTest : public ::testing::Test {
protected:
  void SetUp() override {
    driverPath =
        std::make_unique<ScopedEnv>("VMAPC_CUDA_DRIVER", VMAPC_FAKE_CUDA);
    fake().reset();
    fake().set_kernel("vmapc_kernel_affine", affineKernel, nullptr);
    fake().set_kernel("vmapc_kernel_axis1", axis1Kernel, nullptr);
    fake().set_kernel("vmapc_kernel_square", squareKernel, nullptr);
    fake().set_kernel("vmapc_kernel_accumulate", accumulateKernel, nullptr);
    fake().set_kernel("vmapc_kernel_total", totalKernel, nullptr);
    artifact = cudaTestArtifact();
    Status s = Device::open("cuda", &gpu);
    ASSERT_TRUE(s.ok()) << s.message();
    exe = load(artifact);
    ASSERT_NE(exe, nullptr);
    // The records start with the test (the loader's reads of the
    // descriptors are copies too).
    fake().clear_records();
  }
  void TearDown() override {
    exe.reset();
    gpu = Device();
    EXPECT_EQ(fake().context_violations(), 0u);
    // Everything the backend made is gone.
    for (const char *what :
         {"device", "pinned", "module", "stream", "event", "primary"})
      EXPECT_EQ(fake().live(what), 0u) << what;
    fake().reset();
  }

  std::unique_ptr<Executable> load(const Artifact &a) {
    std::string bytes = serialize(a);
    std::unique_ptr<Executable> out;
    Status s = Executable::loadBytes(gpu, bytes.data(), bytes.size(), &out);
    EXPECT_TRUE(s.ok()) << s.message();
    return out;
  }
  Status loadError(const Artifact &a, const Device *device = nullptr) {
    std::string bytes = serialize(a);
    std::unique_ptr<Executable> out;
    Status s = Executable::loadBytes(device ? *device : gpu, bytes.data(),
                                     bytes.size(), &out);
    EXPECT_EQ(out, nullptr);
    return s;
  }

  Status runAffine(Executable &e, AffineArrays &a,
                   const RunOptions &options = RunOptions(),
                   const char *entry = "affine") {
    return e.run(entry,
                 {HostArray{a.x.data(), DType::F32, {a.n, 4}},
                  HostArray{a.c, DType::F32, {4}}},
                 {MutableHostArray{a.y.data(), DType::F32, {a.n, 4}}}, options);
  }
  void expectAffine(const AffineArrays &a) {
    for (int64_t b = 0; b < a.n; ++b)
      for (int i = 0; i < 4; ++i)
        ASSERT_EQ(a.y[size_t(4 * b + i)], a.expected(b, i)) << b << ", " << i;
  }
  /// The arena's device address: the first binding of a launch of
  /// `affine` is x's slot, at offset 0.
  uint64_t arenaOf(const vmapc_fake_cuda_launch &affineLaunch) {
    return affineLaunch.params[0];
  }

  std::unique_ptr<ScopedEnv> driverPath;
  Artifact artifact;
  Device gpu;
  std::unique_ptr<Executable> exe;
};

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

/// Entry `affine`'s arrays in fake device memory.
struct DeviceAffine {
  explicit DeviceAffine(const AffineArrays &a) : n(a.n) {
    x = fake().device_alloc(size_t(16 * n));
    c = fake().device_alloc(16);
    y = fake().device_alloc(size_t(16 * n));
    if (n)
      std::memcpy(fake().host_pointer(x, size_t(16 * n)), a.x.data(),
                  size_t(16 * n));
    std::memcpy(fake().host_pointer(c, 16), a.c, 16);
  }
  ~DeviceAffine() {
    fake().device_free(x);
    fake().device_free(c);
    fake().device_free(y);
  }
  const float *result() { return fake().at<float>(y, size_t(4 * n)); }
  Status run(Executable &e, void *stream = nullptr) {
    RunOptions options;
    options.deviceArrays = true;
    options.stream = stream;
    return e.run(
        "affine",
        {HostArray{reinterpret_cast<void *>(x), DType::F32, {n, 4}},
         HostArray{reinterpret_cast<void *>(c), DType::F32, {4}}},
        {MutableHostArray{reinterpret_cast<void *>(y), DType::F32, {n, 4}}},
        options);
  }
  int64_t n;
  uint64_t x, c, y;
};

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

//===----------------------------------------------------------------------===//
// Code objects: cubin, PTX JIT, descriptors, limits
//===----------------------------------------------------------------------===//

TEST_F(CudaDeviceTest, RefusedCubinFallsBackToThePtxJit) {
  fake().refuse_cubins(1);
  std::unique_ptr<Executable> jit = load(artifact);
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(jit->codeLevel(), "sm_90 (PTX JIT)");
  EXPECT_EQ(fake().calls("cuModuleLoadDataEx"), 1u);
  AffineArrays a(5);
  ASSERT_TRUE(runAffine(*jit, a).ok());
  expectAffine(a);
  // A PTX-only artifact goes straight to the JIT.
  fake().refuse_cubins(0);
  Artifact ptx = artifact;
  ptx.codeObjects.erase(ptx.codeObjects.begin());
  jit = load(ptx);
  ASSERT_NE(jit, nullptr);
  EXPECT_EQ(jit->codeLevel(), "sm_90 (PTX JIT)");
}

// PTX as the compiler writes it loads on the fake driver, which refuses a
// real cubin (code for a GPU it does not have): the kernels and descriptors
// are found, and the launches keep the kernels' thread limits.
TEST_F(CudaDeviceTest, CompilerStylePtxLoadsAndRuns) {
  Artifact a = artifact;
  setCudaCode(a, ptxText(artifact));
  a.codeObjects[0].bytes = cubinElfHeader() + std::string(256, '\x5a');
  std::unique_ptr<Executable> e = load(a);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->codeLevel(), "sm_90 (PTX JIT)");
  AffineArrays x(6);
  ASSERT_TRUE(runAffine(*e, x).ok());
  expectAffine(x);
  // A descriptor edited in the PTX is caught.
  Artifact edited = artifact;
  edited.kernels[kAxis1K].bindingBytes[1] = 8;
  setCudaCode(a, ptxText(edited));
  Status s = loadError(a);
  EXPECT_EQ(s.message(), "kernel 'axis1': the manifest disagrees with the "
                         "code: bytes of binding 1: 96 in the manifest, 8 in "
                         "the code");
  // Blocks of 64 threads where the kernels take at most 32: the launch
  // fails as the driver fails it.
  setCudaCode(a, ptxText(artifact, 32));
  e = load(a);
  ASSERT_NE(e, nullptr);
  s = runAffine(*e, x);
  EXPECT_EQ(s.message(), "cuLaunchKernel of kernel 'affine': "
                         "CUDA_ERROR_INVALID_VALUE (invalid argument)");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
}

TEST_F(CudaDeviceTest, JitFailureShowsItsLogAndTheDriverVersion) {
  fake().refuse_cubins(1);
  fake().fail_jit("ptxas fatal   : Unresolved extern function '__nv_tanhf'\n");
  Status s = loadError(artifact);
  EXPECT_EQ(s.message(),
            "cuda:0 (sm_90, Fake GPU, CUDA driver 13.0) cannot load the "
            "artifact's CUDA code: cubin sm_90: cuModuleLoadData: "
            "CUDA_ERROR_NO_BINARY_FOR_GPU (no kernel image is available for "
            "execution on the device); PTX sm_90: cuModuleLoadDataEx (PTX "
            "JIT): CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed); JIT "
            "log: ptxas fatal   : Unresolved extern function '__nv_tanhf'");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  // The fixture's module, arena and staging alone.
  EXPECT_EQ(fake().live("module"), 1u);
  EXPECT_EQ(fake().calls("cuMemAlloc_v2"), 1u);
}

TEST_F(CudaDeviceTest, CodeForOtherTargetsIsRefused) {
  Artifact cpuOnly = makeTestArtifact();
  Status s = loadError(cpuOnly);
  EXPECT_EQ(s.message(), "the artifact has no CUDA code (it was compiled "
                         "with --target=cpu)");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  // Code for a newer GPU.
  Artifact newer = artifact;
  for (CodeObject &o : newer.codeObjects)
    o.level = "sm_100";
  s = loadError(newer);
  EXPECT_EQ(s.message(), "the artifact's CUDA code is for sm_100 (cubin), "
                         "sm_100 (PTX), none of which runs on cuda:0 (sm_90, "
                         "Fake GPU, CUDA driver 13.0)");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  // A cubin of an older minor version of the same major runs; PTX of an
  // older GPU is compiled for this one.
  Artifact older = artifact;
  older.codeObjects[0].level = "sm_90";
  older.codeObjects[1].level = "sm_80";
  fake().set_attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, 9);
  Device gpu99;
  ASSERT_TRUE(Device::open("cuda", &gpu99).ok());
  std::string bytes = serialize(older);
  std::unique_ptr<Executable> e;
  s = Executable::loadBytes(gpu99, bytes.data(), bytes.size(), &e);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(e->codeLevel(), "sm_90 (cubin)");
}

TEST_F(CudaDeviceTest, CodeThatDisagreesWithItsManifestIsDataLoss) {
  struct Case {
    const char *expected;
    void (*edit)(Artifact &code);
  };
  const Case cases[] = {
      {"kernel 'affine': the manifest disagrees with the code: bytes of "
       "binding 0: 64 in the manifest, 32 in the code",
       [](Artifact &a) { a.kernels[kAffineK].bindingBytes[0] = 32; }},
      {"kernel 'total': the manifest disagrees with the code: scalar count: "
       "0 in the manifest, 1 in the code",
       [](Artifact &a) { a.kernels[kTotalK].numScalars = 1; }},
      {"entry 'axis1': the manifest disagrees with the code: arena bytes: "
       "256 in the manifest, 512 in the code",
       [](Artifact &a) { a.entries[1].arenaBytes = 512; }},
      {"entry 'twostep': the manifest disagrees with the code: mapped axis "
       "of input 'x': 0 in the manifest, -1 in the code",
       [](Artifact &a) { a.entries[2].inputs[0].mappedAxis = kNoAxis; }},
      {"kernel 'square': the CUDA module has no kernel vmapc_kernel_square",
       [](Artifact &a) { a.kernels[kSquareK].name = "squared"; }},
      {"entry 'both': the CUDA module has no global "
       "vmapc_entry_both_descriptor",
       [](Artifact &a) { a.entries[3].name = "both2"; }},
  };
  for (const Case &c : cases) {
    // The code is compiled for an edited manifest; the artifact keeps the
    // original.
    Artifact edited = artifact;
    c.edit(edited);
    Artifact a = artifact;
    setCudaCode(a, moduleText(edited));
    Status s = loadError(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), StatusCode::kDataLoss) << c.expected;
  }
  // A descriptor shorter than its header.
  Artifact a = artifact;
  std::string text = moduleText(artifact);
  size_t at = text.find("global vmapc_kernel_affine_descriptor ");
  size_t end = text.find('\n', at);
  text.replace(at, end - at, "global vmapc_kernel_affine_descriptor 564d4b34");
  setCudaCode(a, text);
  Status s = loadError(a);
  EXPECT_EQ(s.message(), "kernel 'affine': the code's descriptor is 4 bytes, "
                         "fewer than the 64 its header needs");
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
}

TEST_F(CudaDeviceTest, LimitsOfTheGpuAreCheckedAtLoad) {
  struct Case {
    std::string expected;
    void (*edit)(Artifact &);
  };
  const std::string gpuName = "cuda:0 (sm_90, Fake GPU, CUDA driver 13.0)";
  const Case cases[] = {
      // 70000 blocks along y: past 65535.
      {"entry 'axis1': kernel 'axis1' needs a grid of 2 x 70000 x 1 blocks "
       "for a chunk of 4 examples; " +
           gpuName + " launches at most 2147483647 x 65535 x 65535",
       [](Artifact &a) { a.kernels[kAxis1K].workgroupCount[1] = 70000; }},
      // 2^31 blocks along x: past 2^31 - 1.
      {"entry 'affine': kernel 'affine' needs a grid of 2147483648 x 1 x 1 "
       "blocks for a chunk of 4 examples; " +
           gpuName + " launches at most 2147483647 x 65535 x 65535",
       [](Artifact &a) {
         a.kernels[kAffineK].workgroupCount[0] = kMaxWorkgroups;
       }},
      // 1 x 1 x 128 threads: past 64 along z.
      {"kernel 'square': blocks of 1 x 1 x 128 threads; " + gpuName +
           " runs at most 1024 x 1024 x 64, 1024 in all",
       [](Artifact &a) {
         for (CodeObject &o : a.codeObjects)
           o.launches[kSquareK] = GpuLaunch{{1, 1, 128}, 0};
       }},
  };
  for (const Case &c : cases) {
    // The code compiled for the edited grid (its descriptors have grids,
    // not blocks).
    Artifact a = artifact;
    c.edit(a);
    setCudaCode(a, moduleText(a));
    c.edit(a); // again: the launch records are set anew
    Status s = loadError(a);
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << c.expected;
  }
  // A GPU that gives a block less shared memory than `total` wants.
  fake().set_attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                       49152);
  Device small;
  ASSERT_TRUE(Device::open("cuda:0", &small).ok());
  Status s = loadError(artifact, &small);
  EXPECT_EQ(s.message(), "kernel 'total': 65536 bytes of dynamic shared "
                         "memory per block; " +
                             gpuName + " gives a block at most 49152");
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST_F(CudaDeviceTest, DriverErrorsMapToStatusCodesAndNameTheError) {
  enum When { kOpen, kLoad, kRun };
  struct Case {
    const char *function;
    CUresult error;
    When when;
    StatusCode code;
    const char *expected;
    int skip = 0; // calls of `function` that succeed first
  };
  const Case cases[] = {
      {"cuInit", CUDA_ERROR_NO_DEVICE, kOpen, StatusCode::kUnavailable,
       "no CUDA device: cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable "
       "device is detected)"},
      {"cuInit", CUDA_ERROR_NOT_PERMITTED, kOpen, StatusCode::kUnavailable,
       "no CUDA device: cuInit failed: CUDA_ERROR_NOT_PERMITTED (operation "
       "not permitted)"},
      {"cuDeviceGetCount", CUDA_ERROR_NOT_INITIALIZED, kOpen,
       StatusCode::kUnavailable,
       "no CUDA device: cuDeviceGetCount failed: CUDA_ERROR_NOT_INITIALIZED "
       "(initialization error)"},
      {"cuDevicePrimaryCtxRetain", CUDA_ERROR_OUT_OF_MEMORY, kOpen,
       StatusCode::kResourceExhausted,
       "cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"},
      {"cuMemAlloc_v2", CUDA_ERROR_OUT_OF_MEMORY, kLoad,
       StatusCode::kResourceExhausted,
       "cuMemAlloc of the arena (512 bytes): CUDA_ERROR_OUT_OF_MEMORY (out "
       "of memory)"},
      {"cuMemHostAlloc", CUDA_ERROR_OUT_OF_MEMORY, kLoad,
       StatusCode::kResourceExhausted,
       "cuMemHostAlloc of the pinned staging (256 bytes): "
       "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"},
      {"cuModuleLoadData", CUDA_ERROR_OUT_OF_MEMORY, kLoad,
       StatusCode::kResourceExhausted,
       "cubin sm_90: cuModuleLoadData: CUDA_ERROR_OUT_OF_MEMORY (out of "
       "memory)"},
      {"cuStreamCreate", CUDA_ERROR_NOT_SUPPORTED, kLoad,
       StatusCode::kUnimplemented,
       "cuStreamCreate: CUDA_ERROR_NOT_SUPPORTED (operation not supported)"},
      {"cuModuleGetGlobal_v2", CUDA_ERROR_INVALID_CONTEXT, kLoad,
       StatusCode::kInternal,
       "kernel 'affine': cuModuleGetGlobal vmapc_kernel_affine_descriptor: "
       "CUDA_ERROR_INVALID_CONTEXT (invalid device context)"},
      // The load pushes the context once; the run's push fails.
      {"cuCtxPushCurrent_v2", CUDA_ERROR_INVALID_CONTEXT, kRun,
       StatusCode::kInternal,
       "cuCtxPushCurrent: CUDA_ERROR_INVALID_CONTEXT (invalid device "
       "context)",
       1},
      {"cuMemcpyHtoDAsync_v2", CUDA_ERROR_INVALID_VALUE, kRun,
       StatusCode::kInvalidArgument,
       "cuMemcpyHtoDAsync: CUDA_ERROR_INVALID_VALUE (invalid argument)"},
      {"cuLaunchKernel", CUDA_ERROR_LAUNCH_FAILED, kRun, StatusCode::kInternal,
       "cuLaunchKernel of kernel 'affine': CUDA_ERROR_LAUNCH_FAILED "
       "(unspecified launch failure)"},
      {"cuLaunchKernel", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, kRun,
       StatusCode::kResourceExhausted,
       "cuLaunchKernel of kernel 'affine': CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES "
       "(too many resources requested for launch)"},
      {"cuStreamSynchronize", CUDA_ERROR_ILLEGAL_ADDRESS, kRun,
       StatusCode::kInternal,
       "cuStreamSynchronize (an error of a copy or kernel of this run): "
       "CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was "
       "encountered)"},
      {"cuMemcpyDtoHAsync_v2", CUDA_ERROR_UNKNOWN, kRun, StatusCode::kInternal,
       "cuMemcpyDtoHAsync: CUDA_ERROR_UNKNOWN (unknown error)"},
      // A value the driver does not name.
      {"cuLaunchKernel", CUresult(998), kRun, StatusCode::kInternal,
       "cuLaunchKernel of kernel 'affine': CUDA error 998"},
  };
  for (const Case &c : cases) {
    exe.reset();
    gpu = Device();
    fake().fail(c.function, c.error, c.skip);
    Status s;
    if (c.when == kOpen) {
      s = Device::open("cuda", &gpu);
    } else {
      ASSERT_TRUE(Device::open("cuda", &gpu).ok());
      if (c.when == kLoad) {
        s = loadError(artifact);
      } else {
        exe = load(artifact);
        ASSERT_NE(exe, nullptr);
        AffineArrays a(2);
        s = runAffine(*exe, a);
        // The next run works: nothing was left half done.
        AffineArrays b(5);
        Status again = runAffine(*exe, b);
        EXPECT_TRUE(again.ok()) << again.message();
        expectAffine(b);
        EXPECT_EQ(exe->stats().calls, 1u);
      }
    }
    EXPECT_EQ(s.message(), c.expected);
    EXPECT_EQ(s.code(), c.code) << c.expected;
    EXPECT_EQ(fake().current_context(), nullptr) << c.expected;
    fake().reset();
    fake().set_kernel("vmapc_kernel_affine", affineKernel, nullptr);
    fake().set_kernel("vmapc_kernel_total", totalKernel, nullptr);
  }
}

TEST_F(CudaDeviceTest, DevicesPastTheCountAreNotFound) {
  Device d;
  Status s = Device::open("cuda:1", &d);
  EXPECT_EQ(s.message(), "no CUDA device: cuda:1 does not exist (1 device)");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  fake().set_device_count(2);
  s = Device::open("cuda:1", &d);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(d.describe(), "cuda:1: Fake GPU (sm_90), CUDA driver 13.0");
  EXPECT_EQ(d.name(), "cuda:1");
  for (const char *bad : {"cuda:x", "cuda:-1", "cuda:1,2", "cuda:00000"}) {
    s = Device::open(bad, &d);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("the device is 'cuda' or 'cuda:N'"),
              std::string::npos)
        << s.message();
  }
}

TEST(CudaDriver, NoDriverLibraryIsUnavailable) {
  ScopedEnv path("VMAPC_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
  Device d;
  Status s = Device::open("cuda", &d);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_EQ(s.message().rfind("no CUDA device: /nonexistent/libcuda.so.1 "
                              "could not be loaded (",
                              0),
            0u)
      << s.message();
  // A library that is not a CUDA driver.
  ScopedEnv other("VMAPC_CUDA_DRIVER", VMAPC_TEST_KERNELS);
  s = Device::open("cuda:0", &d);
  EXPECT_EQ(s.message(), std::string("no CUDA device: ") + VMAPC_TEST_KERNELS +
                             " lacks cuInit (not a CUDA driver, or one older "
                             "than the CUDA headers the runtime was built "
                             "with)");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
}

// The CUDA toolkit's stub libcuda.so (what programs link against on a
// build machine) answers every call with CUDA_ERROR_STUB_LIBRARY.
TEST(CudaDriver, StubDriverIsUnavailable) {
  const char *stub = "/usr/local/cuda/lib64/stubs/libcuda.so";
  if (access(stub, R_OK) != 0)
    GTEST_SKIP() << stub << " is not here";
  ScopedEnv path("VMAPC_CUDA_DRIVER", stub);
  Device d;
  Status s = Device::open("cuda", &d);
  EXPECT_EQ(s.message(), "no CUDA device: cuInit failed: CUDA error 34");
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
}

TEST_F(CudaDeviceTest, CApiRunsWithOptionsAndReportsDeviceStats) {
  vmapc_device *device = nullptr;
  ASSERT_EQ(vmapc_device_open("cuda", &device), nullptr);
  EXPECT_STREQ(vmapc_device_description(device),
               "cuda:0: Fake GPU (sm_90), CUDA driver 13.0");
  std::string bytes = serialize(artifact);
  vmapc_executable *e = nullptr;
  ASSERT_EQ(vmapc_executable_load_bytes(device, bytes.data(), bytes.size(), &e),
            nullptr);
  EXPECT_STREQ(vmapc_executable_code_level(e), "sm_90 (cubin)");
  size_t entry = 0;
  ASSERT_EQ(vmapc_find_entry(e, "affine", &entry), nullptr);
  AffineArrays a(5);
  DeviceAffine d(a);
  int64_t xs[2] = {5, 4}, cs[1] = {4};
  vmapc_host_array in[2] = {{reinterpret_cast<void *>(d.x), VMAPC_F32, 2, xs},
                            {reinterpret_cast<void *>(d.c), VMAPC_F32, 1, cs}};
  vmapc_mutable_host_array out[1] = {
      {reinterpret_cast<void *>(d.y), VMAPC_F32, 2, xs}};
  vmapc_run_options options = {1, nullptr};
  vmapc_status s = vmapc_run_with_options(e, entry, in, 2, out, 1, &options);
  ASSERT_EQ(s, nullptr) << vmapc_status_message(s);
  for (int64_t b = 0; b < a.n; ++b)
    for (int i = 0; i < 4; ++i)
      EXPECT_EQ(d.result()[4 * b + i], a.expected(b, i));
  // Host arrays with no options, as vmapc_run.
  vmapc_host_array hin[2] = {{a.x.data(), VMAPC_F32, 2, xs},
                             {a.c, VMAPC_F32, 1, cs}};
  vmapc_mutable_host_array hout[1] = {{a.y.data(), VMAPC_F32, 2, xs}};
  ASSERT_EQ(vmapc_run_with_options(e, entry, hin, 2, hout, 1, nullptr),
            nullptr);
  expectAffine(a);
  vmapc_stats st;
  vmapc_executable_stats(e, &st);
  EXPECT_EQ(st.calls, 2u);
  EXPECT_EQ(st.device_allocations, 2u);
  EXPECT_EQ(st.bytes_to_device, 16u + 64 + 16);
  EXPECT_EQ(st.bytes_from_device, 64u + 16);
  vmapc_executable_release(e);
  vmapc_device_release(device);
}

} // namespace
