//===- TestKernels.cpp - Stand-in generated code for runtime tests --------===//

#include "TestKernels.h"

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

} // extern "C"
