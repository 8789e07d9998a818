//===- FakeCudaEmulatorTest.cpp - the fake driver executing kernels -------===//
//
// The fake CUDA driver (FakeCuda.h) running the hand-written kernels of
// FakeCudaTestKernels.h through its kernel emulation (FakeCudaEmulation.h),
// called as the driver API directly: block and grid ids, barriers, shared
// memory, every shuffle mode, both thread orders, and each fault it must
// report (with the launch failing and the error sticking until a reset)
// rather than hang or pass.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "FakeCudaTestKernels.h"

#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

struct Driver {
#define VMAPC_CU(name) decltype(&::name) name = nullptr;
  VMAPC_CU(cuInit)
  VMAPC_CU(cuDeviceGet)
  VMAPC_CU(cuDevicePrimaryCtxRetain)
  VMAPC_CU(cuCtxPushCurrent_v2)
  VMAPC_CU(cuModuleLoadData)
  VMAPC_CU(cuModuleLoadDataEx)
  VMAPC_CU(cuModuleGetFunction)
  VMAPC_CU(cuFuncSetAttribute)
  VMAPC_CU(cuLaunchKernel)
  VMAPC_CU(cuStreamCreate)
  VMAPC_CU(cuStreamSynchronize)
#undef VMAPC_CU
  decltype(&::vmapc_fake_cuda_reset) reset = nullptr;
  decltype(&::vmapc_fake_cuda_device_alloc) deviceAlloc = nullptr;
  decltype(&::vmapc_fake_cuda_host_pointer) hostPointer = nullptr;
  CUmodule module = nullptr;
  CUstream stream = nullptr;

  /// The fake with the test kernels' library, a context current and the
  /// test kernels' module loaded.
  static Driver &get() {
    static Driver *driver = [] {
      // Read when the fake first loads PTX.
      setenv("VMAPC_FAKE_CUDA_KERNELS", VMAPC_FAKE_CUDA_TEST_KERNELS, 1);
      auto *d = new Driver();
      void *library = dlopen(VMAPC_FAKE_CUDA, RTLD_NOW);
      if (!library) {
        std::fprintf(stderr, "cannot load %s: %s\n", VMAPC_FAKE_CUDA,
                     dlerror());
        std::abort();
      }
      auto resolve = [&](auto &fn, const char *name) {
        fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
            dlsym(library, name));
        if (!fn) {
          std::fprintf(stderr, "the fake driver lacks %s\n", name);
          std::abort();
        }
      };
#define VMAPC_CU(name) resolve(d->name, #name);
      VMAPC_CU(cuInit)
      VMAPC_CU(cuDeviceGet)
      VMAPC_CU(cuDevicePrimaryCtxRetain)
      VMAPC_CU(cuCtxPushCurrent_v2)
      VMAPC_CU(cuModuleLoadData)
      VMAPC_CU(cuModuleLoadDataEx)
      VMAPC_CU(cuModuleGetFunction)
      VMAPC_CU(cuFuncSetAttribute)
      VMAPC_CU(cuLaunchKernel)
      VMAPC_CU(cuStreamCreate)
      VMAPC_CU(cuStreamSynchronize)
#undef VMAPC_CU
      resolve(d->reset, "vmapc_fake_cuda_reset");
      resolve(d->deviceAlloc, "vmapc_fake_cuda_device_alloc");
      resolve(d->hostPointer, "vmapc_fake_cuda_host_pointer");
      CUdevice device;
      CUcontext context;
      if (d->cuInit(0) || d->cuDeviceGet(&device, 0) ||
          d->cuDevicePrimaryCtxRetain(&context, device) ||
          d->cuCtxPushCurrent_v2(context) ||
          d->cuModuleLoadData(&d->module, kTestKernelsPtx) ||
          d->cuStreamCreate(&d->stream, 0)) {
        std::fprintf(stderr, "cannot set up the fake driver\n");
        std::abort();
      }
      return d;
    }();
    return *driver;
  }

  /// Launches `kernel` with `params` (device pointers and integers, 8
  /// bytes each) and synchronizes: the synchronization's result.
  CUresult launch(const char *kernel, unsigned gridX, unsigned gridY,
                  unsigned threads, unsigned sharedBytes,
                  std::vector<uint64_t> params) {
    CUfunction f;
    if (CUresult r = cuModuleGetFunction(&f, module, kernel))
      return r;
    if (CUresult r = cuFuncSetAttribute(
            f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 232448))
      return r;
    std::vector<void *> pointers;
    for (uint64_t &p : params)
      pointers.push_back(&p);
    if (CUresult r =
            cuLaunchKernel(f, gridX, gridY, 1, threads, 1, 1, sharedBytes,
                           stream, pointers.data(), nullptr))
      return r;
    return cuStreamSynchronize(stream);
  }

  /// `count` device int32s, filled with `fill`; and their host view.
  uint64_t alloc(size_t count, int32_t **host) {
    uint64_t address = deviceAlloc(count * 4);
    *host = static_cast<int32_t *>(hostPointer(address, count * 4));
    for (size_t i = 0; i < count; ++i)
      (*host)[i] = -7;
    return address;
  }
};

class FakeCudaEmulatorTest : public ::testing::Test {
protected:
  void SetUp() override { Driver::get().reset(); }
  void TearDown() override {
    unsetenv("VMAPC_FAKE_CUDA_THREAD_ORDER");
    Driver::get().reset();
  }

  /// Launches, expecting CUDA_ERROR_LAUNCH_FAILED; what the fake printed.
  std::string launchFails(const char *kernel, unsigned threads,
                          unsigned sharedBytes, std::vector<uint64_t> params) {
    Driver &d = Driver::get();
    ::testing::internal::CaptureStderr();
    CUresult r = d.launch(kernel, 1, 1, threads, sharedBytes, params);
    std::string printed = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r, CUDA_ERROR_LAUNCH_FAILED) << printed;
    return printed;
  }
};

TEST_F(FakeCudaEmulatorTest, BlocksThreadsBarriersAndWarpSums) {
  Driver &d = Driver::get();
  const unsigned gridX = 3, gridY = 2, threads = 96, warps = 3;
  const unsigned blocks = gridX * gridY;
  int32_t *out;
  uint64_t address = d.alloc(blocks + blocks * warps, &out);
  ASSERT_EQ(
      d.launch("block_sum", gridX, gridY, threads, threads * 4, {address}),
      CUDA_SUCCESS);
  for (unsigned b = 0; b < blocks; ++b) {
    // sum over t < 96 of (t + 1000 b)
    EXPECT_EQ(out[b], int32_t(96 * 95 / 2 + 96 * 1000 * b)) << "block " << b;
    for (unsigned w = 0; w < warps; ++w) {
      int32_t lanes = 0;
      for (unsigned l = 0; l < 32; ++l)
        lanes += int32_t(32 * w + l + 1000 * b);
      EXPECT_EQ(out[blocks + b * warps + w], lanes)
          << "block " << b << " warp " << w;
    }
  }
}

TEST_F(FakeCudaEmulatorTest, ShuffleModesFollowPtx) {
  Driver &d = Driver::get();
  int32_t *out;
  uint64_t address = d.alloc(32 * 10, &out);
  ASSERT_EQ(d.launch("shuffle_modes", 1, 1, 32, 0, {address}), CUDA_SUCCESS);
  for (int lane = 0; lane < 32; ++lane) {
    const int32_t *row = out + lane * 10;
    // up 1, clamp 0: lane 0 keeps its own value (predicate false).
    EXPECT_EQ(row[0], 10 * (lane == 0 ? 0 : lane - 1)) << lane;
    EXPECT_EQ(row[1], lane != 0) << lane;
    // down 1, clamp 31: lane 31 keeps its own.
    EXPECT_EQ(row[2], 10 * (lane == 31 ? 31 : lane + 1)) << lane;
    EXPECT_EQ(row[3], lane != 31) << lane;
    // idx 5: everyone reads lane 5.
    EXPECT_EQ(row[4], 50) << lane;
    EXPECT_EQ(row[5], 1) << lane;
    // bfly 3: lane ^ 3.
    EXPECT_EQ(row[6], 10 * (lane ^ 3)) << lane;
    EXPECT_EQ(row[7], 1) << lane;
    // down 1 in segments of 8: the last lane of each segment keeps its own.
    bool last = lane % 8 == 7;
    EXPECT_EQ(row[8], 10 * (last ? lane : lane + 1)) << lane;
    EXPECT_EQ(row[9], !last) << lane;
  }
}

TEST_F(FakeCudaEmulatorTest, ThreadOrderShowsAMissingBarrier) {
  Driver &d = Driver::get();
  const unsigned n = 64;
  int32_t *out;
  uint64_t address = d.alloc(n, &out);
  // In increasing order thread t reads t + 1's slot before t + 1 writes it:
  // the poison (0xFF bytes, -1); the last thread reads thread 0's write.
  ASSERT_EQ(d.launch("racy", 1, 1, n, n * 4, {address}), CUDA_SUCCESS);
  for (unsigned t = 0; t + 1 < n; ++t)
    EXPECT_EQ(out[t], -1) << t;
  EXPECT_EQ(out[n - 1], 1);
  // In decreasing order t + 1 has written when t reads.
  setenv("VMAPC_FAKE_CUDA_THREAD_ORDER", "reverse", 1);
  ASSERT_EQ(d.launch("racy", 1, 1, n, n * 4, {address}), CUDA_SUCCESS);
  for (unsigned t = 0; t + 1 < n; ++t)
    EXPECT_EQ(out[t], int32_t(t + 2)) << t;
  EXPECT_EQ(out[n - 1], -1);
}

TEST_F(FakeCudaEmulatorTest, WarpsRunOneAtATime) {
  Driver &d = Driver::get();
  const unsigned n = 64;
  int32_t *out;
  uint64_t address = d.alloc(n, &out);
  // Warp 0 runs through its shuffles to the end before warp 1 starts: it
  // reads warp 1's slots unwritten, warp 1 reads warp 0's writes.
  ASSERT_EQ(d.launch("racy_across_warps", 1, 1, n, n * 4, {address}),
            CUDA_SUCCESS);
  for (unsigned t = 0; t < n; ++t)
    EXPECT_EQ(out[t], t < 32 ? -1 : int32_t(t - 32 + 1)) << t;
  setenv("VMAPC_FAKE_CUDA_THREAD_ORDER", "reverse", 1);
  ASSERT_EQ(d.launch("racy_across_warps", 1, 1, n, n * 4, {address}),
            CUDA_SUCCESS);
  for (unsigned t = 0; t < n; ++t)
    EXPECT_EQ(out[t], t < 32 ? int32_t(t + 32 + 1) : -1) << t;
}

TEST_F(FakeCudaEmulatorTest, DifferentBarriersFailTheLaunch) {
  std::string printed = launchFails("divergent_barrier", 64, 0, {0});
  EXPECT_NE(printed.find("vmapc fake CUDA: kernel divergent_barrier "),
            std::string::npos)
      << printed;
  // The pointer parameter 0 is checked first.
  EXPECT_NE(printed.find("pointer parameter 0 (0x0) is in no live allocation"),
            std::string::npos)
      << printed;
  Driver &d = Driver::get();
  d.reset();
  int32_t *out;
  uint64_t address = d.alloc(1, &out);
  printed = launchFails("divergent_barrier", 64, 0, {address});
  EXPECT_NE(printed.find("block (0, 0, 0): threads wait at different "
                         "barriers: thread 0 at barrier #2, thread 1 at "
                         "barrier #1"),
            std::string::npos)
      << printed;
}

TEST_F(FakeCudaEmulatorTest, ErrorSticksUntilReset) {
  Driver &d = Driver::get();
  int32_t *out;
  uint64_t address = d.alloc(1, &out);
  launchFails("early_exit", 64, 0, {address});
  // As a real context after a fault: later launches and synchronizations
  // fail too.
  EXPECT_EQ(d.launch("block_sum", 1, 1, 32, 128, {address}),
            CUDA_ERROR_LAUNCH_FAILED);
  d.reset();
  int32_t *sums;
  uint64_t sumsAddress = d.alloc(2, &sums);
  EXPECT_EQ(d.launch("block_sum", 1, 1, 32, 128, {sumsAddress}), CUDA_SUCCESS);
  EXPECT_EQ(sums[0], 32 * 31 / 2);
}

TEST_F(FakeCudaEmulatorTest, BarrierAfterThreadsEndedIsADeadlock) {
  Driver &d = Driver::get();
  int32_t *out;
  uint64_t address = d.alloc(1, &out);
  std::string printed = launchFails("early_exit", 64, 0, {address});
  EXPECT_NE(printed.find("block (0, 0, 0): deadlock: 32 thread(s) at a "
                         "barrier, 0 at a shuffle, 32 ended of 64"),
            std::string::npos)
      << printed;
}

TEST_F(FakeCudaEmulatorTest, ShuffleMissingALaneIsADeadlock) {
  Driver &d = Driver::get();
  int32_t *out;
  uint64_t address = d.alloc(1, &out);
  std::string printed = launchFails("missing_lane", 32, 0, {address});
  EXPECT_NE(printed.find("deadlock: 0 thread(s) at a barrier, 31 at a "
                         "shuffle, 1 ended of 32; thread 0 at a shuffle "
                         "(warp 0: lanes 0xffffffdf of 0xffffffff arrived)"),
            std::string::npos)
      << printed;
}

TEST_F(FakeCudaEmulatorTest, ShuffleMaskMustHoldTheCaller) {
  Driver &d = Driver::get();
  int32_t *out;
  uint64_t address = d.alloc(1, &out);
  std::string printed = launchFails("mask_excludes_caller", 32, 0, {address});
  EXPECT_NE(printed.find("thread (0, 0, 0): lane 0 calls a shuffle whose "
                         "member mask 0xfffffffe leaves it out"),
            std::string::npos)
      << printed;
  d.reset();
  // A full mask in a block of 48 threads names lanes 16-31 of warp 1,
  // which do not exist.
  printed = launchFails("missing_lane", 48, 0, {address});
  EXPECT_NE(printed.find("shuffle member mask 0xffffffff names lanes warp 1 "
                         "does not have (its lanes: 0x0000ffff)"),
            std::string::npos)
      << printed;
}

TEST_F(FakeCudaEmulatorTest, WritePastSharedMemoryFails) {
  Driver &d = Driver::get();
  int32_t *out;
  uint64_t address = d.alloc(1, &out);
  ASSERT_EQ(d.launch("shared_overflow", 1, 1, 32, 256, {address, 255}),
            CUDA_SUCCESS);
  std::string printed = launchFails("shared_overflow", 32, 256, {address, 256});
  EXPECT_NE(printed.find("block (0, 0, 0): wrote byte 256 of shared memory, "
                         "past the launch's 256 bytes"),
            std::string::npos)
      << printed;
}

TEST_F(FakeCudaEmulatorTest, PtxWithoutALibraryDoesNotLoad) {
  Driver &d = Driver::get();
  std::string other = std::string(kTestKernelsPtx) + "// another module\n";
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  char log[512] = {};
  void *values[] = {log, reinterpret_cast<void *>(uintptr_t(sizeof(log)))};
  CUmodule module;
  ::testing::internal::CaptureStderr();
  CUresult r = d.cuModuleLoadDataEx(&module, other.c_str(), 2, options, values);
  ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r, CUDA_ERROR_INVALID_PTX);
  EXPECT_NE(std::string(log).find("no library of VMAPC_FAKE_CUDA_KERNELS"),
            std::string::npos)
      << log;
}

} // namespace
