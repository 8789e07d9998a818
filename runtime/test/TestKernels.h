//===- TestKernels.h - stand-in generated code for tests --------*- C++ -*-===//
//
// Every kernel follows the generated-code ABI (ArtifactFormat.h) for batch
// size kTestB. The shapes below are per example; tests write the manifest.
//
//   rt_affine  x: f32[4] axis 0, c: f32[4] none -> y: f32[4] axis 0
//              y[b, i] = K * x[b, i] + c[i]      (K = 2, or 3 in variant 2)
//   rt_axis1   x: i32[2, 3] axis 1 -> y: i32[2, 3] axis 2
//              y[i, j, b] = 3 * x[i, b, j] + 1
//   rt_reduce  x: f32[3] axis 0, s: f32[] none
//              -> y: f32[] axis 0, pos: bool[] axis 0, total: f32[] none
//              y[b] = s * sum_j x[b, j]; pos[b] = y[b] > 0; total = 2 s + 1
//   rt_probe   x: f32[2] axis 0, c: f32[3] none
//              -> y: f32[2] axis 0, addrs: i32[6] none
//              y = x; addrs = the addresses of c, the arena and x, each as
//              (low 32 bits, high 32 bits)
//   rt_empty   x: f32[0] axis 0, big: f32[2^40, 0] axis 1, c: f32[2] none
//              -> y: f32[3, 0] axis 0, total: f32[] none
//              total = c[0] + c[1] (the other arrays are empty)
//
// Each exports its entry descriptor (ArtifactFormat.h) for the manifest of
// TestUtil.h's makeTestArtifact. rt_affine is also exported as
// rt_affine_4mib and rt_affine_huge, whose descriptors say an arena of
// 4 MiB and 2^61 bytes, and as rt_affine_undescribed, with no descriptor.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_TESTKERNELS_H
#define VMAPC_TEST_TESTKERNELS_H

namespace vmapc_test {
constexpr int kTestB = 4;
} // namespace vmapc_test

#endif
