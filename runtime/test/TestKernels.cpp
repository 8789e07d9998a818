//===- TestKernels.cpp - Stand-in generated code for runtime tests --------===//
//
// See TestKernels.h for what each kernel computes and each entry dispatches.
//
//===----------------------------------------------------------------------===//

#include "TestKernels.h"

#include "vmapc/ArtifactFormat.h"

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <pthread.h>
#include <unistd.h>

using vmapc_test::kTestB;

#ifndef VMAPC_TEST_VARIANT
#define VMAPC_TEST_VARIANT 1
#endif
/// The ISA level this object is built for: 0 = x86-64, 1 = x86-64-v3,
/// 2 = x86-64-v4 (CMake adds the matching -march).
#ifndef VMAPC_TEST_LEVEL
#define VMAPC_TEST_LEVEL 0
#endif

namespace {

/// A KernelDescriptor with N bindings, laid out as ArtifactFormat.h says.
template <size_t N> struct Descriptor {
  uint32_t magic;
  uint32_t numBindings;
  uint32_t numScalars;
  uint32_t reserved;
  int64_t workgroupCount[3];
  uint64_t scratchBytes;
  uint32_t block[3];
  uint32_t sharedBytes;
  uint64_t bindingBytes[N];
  uint64_t bindingAccess[N];
};
static_assert(offsetof(Descriptor<3>, bindingBytes) ==
                  offsetof(vmapc::KernelDescriptor, bindings),
              "the stand-in descriptor has the runtime's layout");

/// The descriptor of a kernel with `numScalars` scalars, grid (x, y, z),
/// bindings of `bytes` and accesses `access`: one letter per binding, 'r'
/// read, 'w' write, 'b' both.
template <size_t N>
constexpr Descriptor<N>
describe(uint32_t numScalars, int64_t x, int64_t y, int64_t z,
         const char (&access)[N + 1], const uint64_t (&bytes)[N],
         uint32_t magic = vmapc::kKernelDescriptorMagic) {
  Descriptor<N> d{magic, uint32_t(N), numScalars, 0,  {x, y, z},
                  0,     {1, 1, 1},   0,          {}, {}};
  for (size_t i = 0; i < N; ++i) {
    d.bindingBytes[i] = bytes[i];
    d.bindingAccess[i] = access[i] == 'r' ? 1 : access[i] == 'w' ? 2 : 3;
  }
  return d;
}

void splitAddress(const void *p, int32_t *out) {
  uint64_t v = reinterpret_cast<uintptr_t>(p);
  out[0] = int32_t(uint32_t(v));
  out[1] = int32_t(uint32_t(v >> 32));
}

template <typename T> T *at(void *const *bindings, int i) {
  return static_cast<T *>(bindings[i]);
}

} // namespace

// One workgroup of kernel NAME (the kernel ABI).
#define VMAPC_KERNEL(NAME)                                                     \
  extern "C" __attribute__((visibility("default"))) void vmapc_kernel_##NAME(  \
      void *const *bindings, const int64_t *scalars, int64_t wx, int64_t wy,   \
      int64_t wz)
// Its descriptor: the scalar count, the grid (x, y, z: TestUtil.h's), each
// binding's access ("rw": read, write), then the bytes of each binding.
#define VMAPC_KERNEL_DESCRIPTOR(NAME, SCALARS, X, Y, Z, ACCESS, ...)           \
  constexpr uint64_t NAME##_binding_bytes[] = {__VA_ARGS__};                   \
  extern "C" __attribute__((visibility("default")))                            \
  const Descriptor<std::size(NAME##_binding_bytes)>                            \
      vmapc_kernel_##NAME##_descriptor =                                       \
          describe(SCALARS, X, Y, Z, ACCESS, NAME##_binding_bytes)

constexpr uint64_t B = kTestB;

VMAPC_KERNEL(affine) {
  (void)wy, (void)wz;
  const float *x = at<const float>(bindings, 0); // [B, 4]
  const float *c = at<const float>(bindings, 1); // [4]
  float *y = at<float>(bindings, 2);             // [B, 4]
  const float k = VMAPC_TEST_VARIANT == 1 ? 2.0f : 3.0f;
  if (wx >= scalars[0])
    return;
  for (int i = 0; i < 4; ++i)
    y[wx * 4 + i] = k * x[wx * 4 + i] + c[i];
}
VMAPC_KERNEL_DESCRIPTOR(affine, 1, -1, 1, 1, "rrw", B * 16, 16, B * 16);

VMAPC_KERNEL(axis1) {
  (void)wz;
  const int32_t *x = at<const int32_t>(bindings, 0); // [2, B, 3]
  int32_t *y = at<int32_t>(bindings, 1);             // [2, 3, B]
  const int64_t i = wy;
  for (int64_t b = 2 * wx; b < 2 * wx + 2 && b < scalars[0]; ++b)
    for (int64_t j = 0; j < 3; ++j)
      y[(i * 3 + j) * kTestB + b] = 3 * x[(i * kTestB + b) * 3 + j] + 1;
}
VMAPC_KERNEL_DESCRIPTOR(axis1, 1, -2, 2, 1, "rw", 2 * B * 3 * 4, 2 * 3 * B * 4);

VMAPC_KERNEL(reduce_rows) {
  (void)wy, (void)wz;
  const float *x = at<const float>(bindings, 0);       // [B, 3]
  const float *s = at<const float>(bindings, 1);       // []
  float *y = at<float>(bindings, 2);                   // [B]
  unsigned char *pos = at<unsigned char>(bindings, 3); // [B]
  if (wx >= scalars[0])
    return;
  float sum = x[wx * 3] + x[wx * 3 + 1] + x[wx * 3 + 2];
  y[wx] = *s * sum;
  pos[wx] = y[wx] > 0;
}
VMAPC_KERNEL_DESCRIPTOR(reduce_rows, 1, -1, 1, 1, "rrbw", B * 12, 4, B * 4, B);

VMAPC_KERNEL(reduce_total) {
  (void)scalars, (void)wx, (void)wy, (void)wz;
  const float *s = at<const float>(bindings, 0); // []
  float *total = at<float>(bindings, 1);         // []
  *total = 2 * *s + 1;
}
VMAPC_KERNEL_DESCRIPTOR(reduce_total, 0, 1, 1, 1, "rw", 4, 4);

VMAPC_KERNEL(probe) {
  (void)wx, (void)wy, (void)wz;
  const float *x = at<const float>(bindings, 0); // [B, 2]
  float *y = at<float>(bindings, 3);             // [B, 2]
  int32_t *addrs = at<int32_t>(bindings, 4);     // [6]
  for (int64_t i = 0; i < scalars[0] * 2; ++i)
    y[i] = x[i];
  splitAddress(bindings[1], addrs);
  splitAddress(bindings[2], addrs + 2);
  splitAddress(bindings[0], addrs + 4);
}
VMAPC_KERNEL_DESCRIPTOR(probe, 1, 1, 1, 1, "rrrww", B * 8, 12, 32, B * 8, 24);

VMAPC_KERNEL(square) {
  (void)wy, (void)wz;
  const float *x = at<const float>(bindings, 0); // [B, 4]
  float *t = at<float>(bindings, 1);             // [B, 4]
  if (wx >= scalars[0])
    return;
  for (int i = 0; i < 4; ++i)
    t[wx * 4 + i] = x[wx * 4 + i] * x[wx * 4 + i];
}
VMAPC_KERNEL_DESCRIPTOR(square, 1, -1, 1, 1, "rw", B * 16, B * 16);

VMAPC_KERNEL(accumulate) {
  (void)wy, (void)wz;
  const float *t = at<const float>(bindings, 0); // [B, 4]
  float *y = at<float>(bindings, 1);             // [B, 4]
  const int64_t n = scalars[0], i0 = scalars[1], i1 = scalars[2];
  for (int64_t b = 2 * wx; b < 2 * wx + 2 && b < n; ++b)
    for (int i = 0; i < 4; ++i)
      y[b * 4 + i] = (i0 == 0 && i1 == 0 ? 0.0f : y[b * 4 + i]) + t[b * 4 + i] +
                     float(10 * i0 + i1);
}
VMAPC_KERNEL_DESCRIPTOR(accumulate, 3, -2, 1, 1, "rb", B * 16, B * 16);

VMAPC_KERNEL(count) {
  (void)wy, (void)wz;
  int32_t *seen = at<int32_t>(bindings, 0);    // [B]
  int32_t *overrun = at<int32_t>(bindings, 1); // []
  if (wx < scalars[0])
    seen[wx] = int32_t(scalars[0]);
  else
    __atomic_fetch_add(overrun, 1, __ATOMIC_RELAXED);
}
VMAPC_KERNEL_DESCRIPTOR(count, 1, -1, 1, 1, "wb", B * 4, 4);

VMAPC_KERNEL(whoami) {
  (void)scalars, (void)wx, (void)wy, (void)wz;
  *at<int32_t>(bindings, 0) = VMAPC_TEST_LEVEL;
}
VMAPC_KERNEL_DESCRIPTOR(whoami, 0, 1, 1, 1, "w", 4);

VMAPC_KERNEL(thread_id) {
  (void)scalars, (void)wx, (void)wy, (void)wz;
  pthread_t self = pthread_self();
  static_assert(sizeof(self) == 8, "pthread_t is an 8-byte handle");
  splitAddress(reinterpret_cast<const void *>(self), at<int32_t>(bindings, 0));
}
VMAPC_KERNEL_DESCRIPTOR(thread_id, 0, 1, 1, 1, "w", 8);

VMAPC_KERNEL(empty_total) {
  (void)scalars, (void)wx, (void)wy, (void)wz;
  const float *c = at<const float>(bindings, 2); // [2]
  float *total = at<float>(bindings, 4);         // []
  *total = c[0] + c[1];
}
VMAPC_KERNEL_DESCRIPTOR(empty_total, 0, 1, 1, 1, "rrrrw", 0, 0, 8, 0, 4);

VMAPC_KERNEL(rendezvous) {
  (void)scalars, (void)wx, (void)wy, (void)wz;
  const int32_t *fds = at<const int32_t>(bindings, 0); // [2]
  char byte = 1;
  if (write(fds[1], &byte, 1) != 1 || read(fds[0], &byte, 1) != 1)
    byte = -1;
  *at<int32_t>(bindings, 1) = byte;
}
VMAPC_KERNEL_DESCRIPTOR(rendezvous, 0, 1, 1, 1, "rw", 8, 4);

VMAPC_KERNEL(stack_bytes) {
  (void)scalars, (void)wx, (void)wy, (void)wz;
  pthread_attr_t attr;
  size_t bytes = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstacksize(&attr, &bytes);
    pthread_attr_destroy(&attr);
  }
  splitAddress(reinterpret_cast<const void *>(bytes), at<int32_t>(bindings, 0));
}
VMAPC_KERNEL_DESCRIPTOR(stack_bytes, 0, 1, 1, 1, "w", 8);

// `affine` under other names, with descriptors that do not fit it.
VMAPC_KERNEL(undescribed) {
  vmapc_kernel_affine(bindings, scalars, wx, wy, wz);
}
VMAPC_KERNEL(truncated) { vmapc_kernel_affine(bindings, scalars, wx, wy, wz); }
VMAPC_KERNEL(badmagic) { vmapc_kernel_affine(bindings, scalars, wx, wy, wz); }
extern "C" __attribute__((visibility("default"))) const Descriptor<3>
    vmapc_kernel_badmagic_descriptor =
        describe(1, -1, 1, 1, "rrw", affine_binding_bytes, /*magic=*/0);
// Only the first 16 bytes of a descriptor of 3 bindings, also under
// AddressSanitizer (which would add a redzone to the symbol's size).
#if defined(__clang__)
#define VMAPC_NO_REDZONE __attribute__((no_sanitize("address")))
#else
#define VMAPC_NO_REDZONE
#endif
extern "C" __attribute__((visibility("default")))
VMAPC_NO_REDZONE const uint32_t vmapc_kernel_truncated_descriptor[4] = {
    vmapc::kKernelDescriptorMagic, 3, 1, 0};

#undef VMAPC_NO_REDZONE
#undef VMAPC_KERNEL
#undef VMAPC_KERNEL_DESCRIPTOR

// The ISA level the object is built for, as the compiler records it.
#if VMAPC_TEST_LEVEL == 0
#define VMAPC_TEST_LEVEL_NAME "x86-64"
#elif VMAPC_TEST_LEVEL == 1
#define VMAPC_TEST_LEVEL_NAME "x86-64-v3"
#else
#define VMAPC_TEST_LEVEL_NAME "x86-64-v4"
#endif
extern "C" __attribute__((visibility("default")))
const char vmapc_code_level[] = VMAPC_TEST_LEVEL_NAME;
#undef VMAPC_TEST_LEVEL_NAME

// The entry descriptors of TestUtil.h's manifests: B, arena bytes, I, O,
// the schedule digest (0 here: TestUtil.h's sealEntryDescriptors writes
// the manifest's into the object's bytes, as the compiler would have), then
// per argument its bytes per example and mapped axis (-1 for none).
#define VMAPC_ENTRY_DESCRIPTOR(NAME, B, ARENA, I, O, ...)                      \
  extern "C" __attribute__((visibility("default")))                            \
  const uint64_t vmapc_entry_##NAME##_descriptor[] = {                         \
      vmapc::kEntryDescriptorMagic,                                            \
      vmapc::kEntryDescriptorVersion,                                          \
      B,                                                                       \
      ARENA,                                                                   \
      I,                                                                       \
      O,                                                                       \
      0,                                                                       \
      __VA_ARGS__}
constexpr uint64_t kNone = uint64_t(-1);

VMAPC_ENTRY_DESCRIPTOR(affine, B, 512, 2, 1, 16, 0, 16, kNone, 16, 0);
VMAPC_ENTRY_DESCRIPTOR(axis1, B, 256, 1, 1, 24, 1, 24, 2);
VMAPC_ENTRY_DESCRIPTOR(reduce, B, 256, 2, 3, 12, 0, 4, kNone, 4, 0, 1, 0, 4,
                       kNone);
VMAPC_ENTRY_DESCRIPTOR(probe, B, 256, 2, 2, 8, 0, 12, kNone, 8, 0, 24, kNone);
VMAPC_ENTRY_DESCRIPTOR(twostep, B, 256, 1, 1, 16, 0, 16, 0);
VMAPC_ENTRY_DESCRIPTOR(count, B, 256, 0, 2, 4, 0, 4, kNone);
VMAPC_ENTRY_DESCRIPTOR(whoami, B, 0, 0, 1, 4, kNone);
VMAPC_ENTRY_DESCRIPTOR(where, B, 0, 0, 1, 8, kNone);
VMAPC_ENTRY_DESCRIPTOR(empty, B, 256, 3, 2, 0, 0, 0, 1, 8, kNone, 0, 0, 4,
                       kNone);
VMAPC_ENTRY_DESCRIPTOR(rendezvous, B, 0, 1, 1, 8, kNone, 4, kNone);
VMAPC_ENTRY_DESCRIPTOR(stack, B, 0, 0, 1, 8, kNone);
VMAPC_ENTRY_DESCRIPTOR(donate, B, 512, 2, 1, 16, 0, 16, kNone, 16, 0);
// `affine` compiled for larger arenas: 4 MiB and 2^61 bytes.
VMAPC_ENTRY_DESCRIPTOR(affine_4mib, B, 4 << 20, 2, 1, 16, 0, 16, kNone, 16, 0);
VMAPC_ENTRY_DESCRIPTOR(affine_huge, B, uint64_t(1) << 61, 2, 1, 16, 0, 16,
                       kNone, 16, 0);
#undef VMAPC_ENTRY_DESCRIPTOR
