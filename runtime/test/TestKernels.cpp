//===- TestKernels.cpp - Stand-in generated code for runtime tests --------===//

#include "TestKernels.h"

#include "vmapc/ArtifactFormat.h"

#include <cstdint>

using vmapc_test::kTestB;

#ifndef VMAPC_TEST_VARIANT
#define VMAPC_TEST_VARIANT 1
#endif

static void splitAddress(const void *p, int32_t *out) {
  uint64_t v = reinterpret_cast<uintptr_t>(p);
  out[0] = int32_t(uint32_t(v));
  out[1] = int32_t(uint32_t(v >> 32));
}

extern "C" {

__attribute__((visibility("default"))) void rt_affine(void **args) {
  const float *x = static_cast<const float *>(args[0]);
  const float *c = static_cast<const float *>(args[1]);
  float *y = static_cast<float *>(args[2]);
  const float k = VMAPC_TEST_VARIANT == 1 ? 2.0f : 3.0f;
  for (int b = 0; b < kTestB; ++b)
    for (int i = 0; i < 4; ++i)
      y[b * 4 + i] = k * x[b * 4 + i] + c[i];
}

__attribute__((visibility("default"))) void rt_axis1(void **args) {
  const int32_t *x = static_cast<const int32_t *>(args[0]); // [2, B, 3]
  int32_t *y = static_cast<int32_t *>(args[1]);             // [2, 3, B]
  for (int i = 0; i < 2; ++i)
    for (int b = 0; b < kTestB; ++b)
      for (int j = 0; j < 3; ++j)
        y[(i * 3 + j) * kTestB + b] = 3 * x[(i * kTestB + b) * 3 + j] + 1;
}

__attribute__((visibility("default"))) void rt_reduce(void **args) {
  const float *x = static_cast<const float *>(args[0]);       // [B, 3]
  const float *s = static_cast<const float *>(args[1]);       // []
  float *y = static_cast<float *>(args[2]);                   // [B]
  unsigned char *pos = static_cast<unsigned char *>(args[3]); // [B]
  float *total = static_cast<float *>(args[4]);               // []
  for (int b = 0; b < kTestB; ++b) {
    float sum = x[b * 3] + x[b * 3 + 1] + x[b * 3 + 2];
    y[b] = *s * sum;
    pos[b] = y[b] > 0;
  }
  *total = 2 * *s + 1;
}

__attribute__((visibility("default"))) void rt_probe(void **args) {
  const float *x = static_cast<const float *>(args[0]); // [B, 2]
  float *y = static_cast<float *>(args[2]);             // [B, 2]
  int32_t *addrs = static_cast<int32_t *>(args[3]);     // [6]
  for (int i = 0; i < kTestB * 2; ++i)
    y[i] = x[i];
  splitAddress(args[1], addrs);
  splitAddress(args[4], addrs + 2);
  splitAddress(args[0], addrs + 4);
}

__attribute__((visibility("default"))) void rt_empty(void **args) {
  const float *c = static_cast<const float *>(args[2]); // [2]
  float *total = static_cast<float *>(args[4]);         // []
  *total = c[0] + c[1];
}

// The descriptors of the kernels above, for the manifest of TestUtil.h's
// makeTestArtifact: B, arena bytes, I, O, then per argument its bytes per
// example and mapped axis (-1 for none).
#define VMAPC_DESCRIPTOR(NAME, ...)                                            \
  __attribute__((                                                              \
      visibility("default"))) extern const uint64_t NAME##_descriptor[] = {    \
      vmapc::kEntryDescriptorMagic, vmapc::kEntryDescriptorVersion,            \
      __VA_ARGS__}
constexpr uint64_t kNone = uint64_t(-1);

VMAPC_DESCRIPTOR(rt_affine, kTestB, 512, 2, 1, 16, 0, 16, kNone, 16, 0);
VMAPC_DESCRIPTOR(rt_axis1, kTestB, 256, 1, 1, 24, 1, 24, 2);
VMAPC_DESCRIPTOR(rt_reduce, kTestB, 256, 2, 3, 12, 0, 4, kNone, 4, 0, 1, 0, 4,
                 kNone);
VMAPC_DESCRIPTOR(rt_probe, kTestB, 256, 2, 2, 8, 0, 12, kNone, 8, 0, 24, kNone);
VMAPC_DESCRIPTOR(rt_empty, kTestB, 256, 3, 2, 0, 0, 0, 1, 8, kNone, 0, 0, 4,
                 kNone);

// rt_affine under other names, compiled for larger arenas (4 MiB, 2^61
// bytes), and once with no descriptor at all.
__attribute__((visibility("default"))) void rt_affine_4mib(void **args) {
  rt_affine(args);
}
__attribute__((visibility("default"))) void rt_affine_huge(void **args) {
  rt_affine(args);
}
__attribute__((visibility("default"))) void rt_affine_undescribed(void **args) {
  rt_affine(args);
}
VMAPC_DESCRIPTOR(rt_affine_4mib, kTestB, 4 << 20, 2, 1, 16, 0, 16, kNone, 16,
                 0);
VMAPC_DESCRIPTOR(rt_affine_huge, kTestB, uint64_t(1) << 61, 2, 1, 16, 0, 16,
                 kNone, 16, 0);
#undef VMAPC_DESCRIPTOR

} // extern "C"
