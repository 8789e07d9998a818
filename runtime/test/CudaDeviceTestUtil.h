//===- CudaDeviceTestUtil.h - the CUDA backend's tests' fixture -*- C++ -*-===//
//
// The CUDA device runs on FakeCuda.h's driver (VMAPC_CUDA_DRIVER) in
// CudaDeviceTest.cpp and CudaCodeTest.cpp: the kernels the fake GPU runs
// for each launch (written in C below, with the CPU stand-ins' semantics),
// their artifact (CUDA code only, every argument staged) and the fixture,
// which loads it and checks at the end that no context was misused and
// nothing the backend made is left.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_CUDADEVICETESTUTIL_H
#define VMAPC_TEST_CUDADEVICETESTUTIL_H

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

namespace vmapc_test {

using namespace vmapc;

inline constexpr uint64_t B = kTestB;

//===----------------------------------------------------------------------===//
// Kernels: what the fake GPU runs for each launch (the CPU stand-ins'
// semantics, TestKernels.h, over the launch's parameters)
//===----------------------------------------------------------------------===//

/// y[b, i] = 2 x[b, i] + c[i] for the examples b < n of each block of 2.
inline void affineKernel(const vmapc_fake_cuda_launch *l, void *) {
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
inline void axis1Kernel(const vmapc_fake_cuda_launch *l, void *) {
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
inline void squareKernel(const vmapc_fake_cuda_launch *l, void *) {
  for (uint64_t b = 0; b < l->grid[0] && b < l->params[2]; ++b) {
    const float *x = fake().at<float>(l->params[0] + 16 * b, 4);
    float *t = fake().at<float>(l->params[1] + 16 * b, 4);
    for (int i = 0; i < 4; ++i)
      t[i] = x[i] * x[i];
  }
}

/// y[b] = (i0 = i1 = 0 ? 0 : y[b]) + t[b] + 10 i0 + i1.
inline void accumulateKernel(const vmapc_fake_cuda_launch *l, void *) {
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
inline void totalKernel(const vmapc_fake_cuda_launch *l, void *) {
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
inline std::vector<GpuLaunch> launchRecords() {
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
inline GpuLaunch launchOf(const Artifact &a, size_t k) {
  for (const CodeObject &o : a.codeObjects)
    if (isCudaCode(o.kind) && k < o.launches.size())
      return o.launches[k];
  std::vector<GpuLaunch> l = launchRecords();
  return k < l.size() ? l[k] : GpuLaunch{};
}

/// The launch records of `a`'s kernels (launchOf).
inline std::vector<GpuLaunch> launchesOf(const Artifact &a) {
  std::vector<GpuLaunch> l;
  for (size_t k = 0; k < a.kernels.size(); ++k)
    l.push_back(launchOf(a, k));
  return l;
}

/// FakeCudaTestUtil.h's module text and PTX for `a`, with launchesOf(a).
inline std::string moduleText(const Artifact &a) {
  return fakeModuleText(a, launchesOf(a));
}
inline std::string ptxText(const Artifact &a, unsigned maxThreads = 1024) {
  return fakePtxText(a, launchesOf(a), maxThreads);
}

/// An sm_90 cubin and PTX of the kernels of `a` (replacing its code).
inline void setCudaCode(Artifact &a, const std::string &text) {
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
///   donate   x @0, c none @64 -> y @0 donated from x: affine (x, c -> x)
inline Artifact cudaTestArtifact() {
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

  EntryInfo donate = entry("donate", 512);
  donate.inputs = {arg("x", DType::F32, {4}, 0, 0),
                   arg("c", DType::F32, {4}, kNoAxis, 64)};
  donate.outputs = {arg("y", DType::F32, {4}, 0, 0)};
  donate.outputs[0].donatedFrom = 0;
  donate.schedule = {
      dispatch(kAffineK, {inputBinding(0), inputBinding(1), inputBinding(0)},
               {numExamples()})};
  a.entries.push_back(donate);

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

} // namespace vmapc_test

#endif // VMAPC_TEST_CUDADEVICETESTUTIL_H
