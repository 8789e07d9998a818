//===- TestKernels.h - stand-in generated code for tests --------*- C++ -*-===//
//
// TestKernels.cpp is a code object written by hand in place of the
// compiler's: every kernel follows the kernel ABI of ArtifactFormat.h (one
// workgroup per call) and exports its KernelDescriptor, and every entry of
// TestUtil.h's makeTestArtifact has its entry descriptor. Batch size kTestB;
// shapes are per example, B the batch axis.
//
// Kernels (bindings; scalars; grid as in the manifest: -T = ceil(n / T)):
//   affine       (x f32[B,4], c f32[4], y f32[B,4]; n; (-1, 1, 1))
//                workgroup b < n: y[b, i] = K * x[b, i] + c[i], K = 2 (3 in
//                variant 2)
//   axis1        (x i32[2,B,3], y i32[2,3,B]; n; (-2, 2, 1))
//                workgroup (t, i): for b in [2t, 2t + 2) below n,
//                y[i, j, b] = 3 * x[i, b, j] + 1
//   reduce_rows  (x f32[B,3], s f32[], y f32[B], pos bool[B]; n; (-1, 1, 1))
//                y[b] = s * sum_j x[b, j]; pos[b] = y[b] > 0
//   reduce_total (s f32[], total f32[]; ; (1, 1, 1))  total = 2 s + 1
//   probe        (x f32[B,2], c f32[3], scratch (arena, 32 bytes),
//                 y f32[B,2], addrs i32[6]; n; (1, 1, 1))
//                y[b] = x[b] for b < n; addrs = the addresses of c, the
//                arena binding and x, each as (low 32 bits, high 32 bits)
//   square       (x f32[B,4], t (arena) f32[B,4]; n; (-1, 1, 1))
//                t[b, i] = x[b, i]^2
//   accumulate   (t (arena) f32[B,4], y f32[B,4]; n, i0, i1; (-2, 1, 1))
//                y[b, i] = (i0 = i1 = 0 ? 0 : y[b, i]) + t[b, i]
//                          + 10 i0 + i1
//   count        (seen i32[B], overrun i32[]; n; (-1, 1, 1))
//                workgroup b: seen[b] = n if b < n, else overrun += 1
//   whoami       (level i32[]; ; (1, 1, 1))  level = 0, 1 or 2: the ISA
//                level the object was built for (x86-64, -v3, -v4)
//   thread_id    (tid i32[2]; ; (1, 1, 1))  tid = pthread_self() of the
//                thread that ran it (low, high 32 bits)
//   empty_total  (x f32[B,0], big f32[2^40,B,0], c f32[2], y f32[B,3,0],
//                 total f32[]; ; (1, 1, 1))  total = c[0] + c[1]
//   rendezvous   (fds i32[2], got i32[]; ; (1, 1, 1))  writes a byte to
//                file descriptor fds[1], then blocks reading one from fds[0]
//                into got: a call the test holds inside the runtime
//   stack_bytes  (bytes i32[2]; ; (1, 1, 1))  bytes = the stack size of the
//                thread that ran it (low, high 32 bits)
//
// Stand-ins for a code object that disagrees with its manifest: `affine`
// again as `undescribed` (no descriptor), `truncated` (a descriptor of 16
// bytes, its header alone) and `badmagic` (magic 0).
//
// Entries (TestUtil.h has their manifests; descriptors here):
//   affine   x f32[4] axis 0, c f32[4] none -> y f32[4] axis 0
//            dispatch affine
//   axis1    x i32[2,3] axis 1 -> y i32[2,3] axis 2; dispatch axis1
//   reduce   x f32[3] axis 0, s f32[] none
//            -> y f32[] axis 0, pos bool[] axis 0, total f32[] none
//            dispatch reduce_rows; dispatch reduce_total
//   probe    x f32[2] axis 0, c f32[3] none -> y f32[2] axis 0,
//            addrs i32[6] none; dispatch probe
//   twostep  x f32[4] axis 0 -> y f32[4] axis 0
//            dispatch square (x -> arena t); loop 2 { loop 3 { dispatch
//            accumulate (t -> y, scalars n, i0, i1) } }
//            so y = 6 x^2 + 36
//   count    -> seen i32[] axis 0, overrun i32[] none; dispatch count
//   whoami   -> level i32[] none; dispatch whoami
//   donate   as affine, with y donated from x (ArgInfo::donatedFrom): the
//            dispatch binds x for y too
//   where    -> tid i32[2] none; dispatch thread_id
//   empty    x f32[0] axis 0, big f32[2^40, 0] axis 1, c f32[2] none
//            -> y f32[3, 0] axis 0, total f32[] none; dispatch empty_total
//   rendezvous  fds i32[2] none -> got i32[] none; dispatch rendezvous
//   stack    -> bytes i32[2] none; dispatch stack_bytes
// and `affine` again as `affine_4mib` and `affine_huge`, whose descriptors
// say an arena of 4 MiB and 2^61 bytes.
//
// CMake builds the object four times: rt_test_kernels (x86-64),
// rt_test_kernels_v3 and rt_test_kernels_v4 (the same code compiled with
// -march=x86-64-v3 / -v4) and rt_test_kernels2 (variant 2, x86-64).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_TESTKERNELS_H
#define VMAPC_TEST_TESTKERNELS_H

#include <cstdint>

namespace vmapc_test {
constexpr int kTestB = 4;
/// Rows of the empty input `big` of entry `empty`.
constexpr int64_t kEmptyRows = int64_t(1) << 40;
} // namespace vmapc_test

#endif
