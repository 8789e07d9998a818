//===- CudaCodeTest.cpp - CUDA code loading and driver errors -------------===//
//
// The CUDA device on FakeCuda.h's driver (CudaDeviceTestUtil.h): loading
// its code (cubin, the PTX JIT, descriptors, the GPU's limits), and the
// status of every error the driver can give; the C API on a GPU.
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
