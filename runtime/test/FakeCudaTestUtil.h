//===- FakeCudaTestUtil.h - tests on the fake CUDA driver -------*- C++ -*-===//
//
// What the tests that run on the fake CUDA driver (FakeCuda.h) share: its
// control functions, its module text and compiler-style PTX for an
// artifact (with descriptors as the compiler writes them), and the
// stand-in kernels of TestKernels.cpp run on it: each launch calls the
// host-compiled kernel once per workgroup of the grid, its bindings
// translated from the fake's device addresses, so that an artifact
// computes the same on the fake GPU as on the CPU (TestDevice.h).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_FAKECUDATESTUTIL_H
#define VMAPC_TEST_FAKECUDATESTUTIL_H

#include "FakeCuda.h"
#include "vmapc/ArtifactFormat.h"

#include <cuda.h>
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

namespace vmapc_test {

/// The fake driver's control functions (FakeCuda.h), resolved with dlsym.
struct Fake {
#define VMAPC_FAKE_FN(name) decltype(&::vmapc_fake_cuda_##name) name = nullptr;
  VMAPC_FAKE_FN(reset)
  VMAPC_FAKE_FN(clear_records)
  VMAPC_FAKE_FN(fail)
  VMAPC_FAKE_FN(calls)
  VMAPC_FAKE_FN(set_device_count)
  VMAPC_FAKE_FN(set_attribute)
  VMAPC_FAKE_FN(refuse_cubins)
  VMAPC_FAKE_FN(fail_jit)
  VMAPC_FAKE_FN(set_kernel)
  VMAPC_FAKE_FN(launch_count)
  VMAPC_FAKE_FN(launch_at)
  VMAPC_FAKE_FN(copy_count)
  VMAPC_FAKE_FN(copy_at)
  VMAPC_FAKE_FN(host_pointer)
  VMAPC_FAKE_FN(device_alloc)
  VMAPC_FAKE_FN(device_free)
  VMAPC_FAKE_FN(make_stream)
  VMAPC_FAKE_FN(synchronize)
  VMAPC_FAKE_FN(context_violations)
  VMAPC_FAKE_FN(other_context)
  VMAPC_FAKE_FN(current_context)
  VMAPC_FAKE_FN(live)
#undef VMAPC_FAKE_FN
  decltype(&::cuCtxPushCurrent_v2) ctxPushCurrent = nullptr;
  decltype(&::cuCtxPopCurrent_v2) ctxPopCurrent = nullptr;

  /// The fake, opened once (the runtime's dlopen of the same path shares
  /// it).
  static Fake &get();

  std::vector<vmapc_fake_cuda_launch> launches(size_t from = 0) {
    std::vector<vmapc_fake_cuda_launch> out;
    for (size_t i = from; i < launch_count(); ++i) {
      vmapc_fake_cuda_launch l;
      EXPECT_TRUE(launch_at(i, &l));
      out.push_back(l);
    }
    return out;
  }
  std::vector<vmapc_fake_cuda_copy> copies(size_t from = 0) {
    std::vector<vmapc_fake_cuda_copy> out;
    for (size_t i = from; i < copy_count(); ++i) {
      vmapc_fake_cuda_copy c;
      EXPECT_TRUE(copy_at(i, &c));
      out.push_back(c);
    }
    return out;
  }
  template <typename T> T *at(uint64_t address, size_t count) {
    return static_cast<T *>(host_pointer(address, count * sizeof(T)));
  }
};

/// The fake, opened once.
inline Fake &fake() { return Fake::get(); }

/// `size` bytes as lowercase hex.
std::string hexBytes(const void *data, size_t size);

/// FakeCuda.h's module text for the kernels and entries of `a`, with their
/// descriptors as the compiler would write them; kernel k's launch record
/// is `launches[k]`.
std::string fakeModuleText(const vmapc::Artifact &a,
                           const std::vector<vmapc::GpuLaunch> &launches);

/// The module of `fakeModuleText` in PTX, as the compiler writes it
/// (ArtifactFormat.h, "Calling convention of the CUDA code"): a .entry per
/// kernel with its parameters and a thread limit of `maxThreads`, and the
/// descriptors as initialized .global byte arrays. (The bodies are empty:
/// the fake driver runs the tests' kernels instead.)
std::string fakePtxText(const vmapc::Artifact &a,
                        const std::vector<vmapc::GpuLaunch> &launches,
                        unsigned maxThreads = 1024);

/// Makes `a` (the CPU stand-ins' manifest, makeTestArtifact) an artifact
/// for the fake CUDA driver: every argument gets a staging slot, and the
/// code is one sm_90 cubin of fakeModuleText (launch records of 1 x 1 x 1
/// threads).
void giveFakeCudaCode(vmapc::Artifact &a);

/// Makes every kernel of `a` that TestKernels.cpp defines run on the fake
/// (vmapc_fake_cuda_set_kernel): each launch calls the stand-in's host
/// function for every workgroup of its grid. Call after every
/// vmapc_fake_cuda_reset.
void runStandInKernelsOnTheFake(const vmapc::Artifact &a);

} // namespace vmapc_test

#endif // VMAPC_TEST_FAKECUDATESTUTIL_H
