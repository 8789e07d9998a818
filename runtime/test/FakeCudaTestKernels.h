//===- FakeCudaTestKernels.h - hand-written emulated kernels ----*- C++ -*-===//
//
// libvmapc_fake_cuda_test_kernels.so (FakeCudaTestKernels.cpp + the shim) is
// an emulated kernel library (FakeCudaEmulation.h) of small kernels written
// in C++ against the shim's calls, for FakeCudaEmulatorTest.cpp: right
// block, warp and shared-memory semantics, and the faults the emulator must
// report. kTestKernelsPtx is "their PTX": what the test loads, and what the
// library's hash names (only the kernel signatures matter to the fake).
//
// Parameters: every kernel takes `out` (a device pointer); shared_overflow
// also the byte it writes (i64).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_FAKECUDATESTKERNELS_H
#define VMAPC_TEST_FAKECUDATESTKERNELS_H

constexpr char kTestKernelsPtx[] =
    "// emulated test kernels\n"
    ".version 8.0\n"
    ".target sm_90\n"
    ".address_size 64\n"
    // int32 out[grid + grid * warps]: per block the sum over its threads of
    // (tid + 1000 * block), from shared memory after a barrier; then per
    // warp the same sum by a butterfly of shuffles.
    ".visible .entry block_sum(.param .u64 out) { ret; }\n"
    // uint32 out[32 * 10]: per lane, (value, predicate) of shfl.sync up 1,
    // down 1, idx 5, bfly 3, and down 1 in segments of 8 lanes, of the
    // lane's value 10 * lane.
    ".visible .entry shuffle_modes(.param .u64 out) { ret; }\n"
    // Even threads wait at one barrier, odd threads at another.
    ".visible .entry divergent_barrier(.param .u64 out) { ret; }\n"
    // Threads 32 and up end; the others wait at a barrier.
    ".visible .entry early_exit(.param .u64 out) { ret; }\n"
    // Lane 5 ends; the warp's other lanes shuffle with a full mask.
    ".visible .entry missing_lane(.param .u64 out) { ret; }\n"
    // Lane 0 shuffles with a member mask without lane 0.
    ".visible .entry mask_excludes_caller(.param .u64 out) { ret; }\n"
    // Thread 0 writes shared byte `byte`.
    ".visible .entry shared_overflow(.param .u64 out, .param .u64 byte) { "
    "ret; }\n"
    // int32 out[n]: shared[tid] = tid + 1, then, with no barrier between,
    // out[tid] = shared[(tid + 1) % n] (a race: what it reads depends on
    // the order the threads run in).
    ".visible .entry racy(.param .u64 out) { ret; }\n"
    // int32 out[n]: shared[tid] = tid + 1, a warp's butterfly sum of
    // shuffles, then out[tid] = shared[(tid + 32) % n], another warp's
    // write, with no barrier between.
    ".visible .entry racy_across_warps(.param .u64 out) { ret; }\n";

#endif // VMAPC_TEST_FAKECUDATESTKERNELS_H
