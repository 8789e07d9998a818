//===- StandInKernels.cpp - Stand-in code object for artifact_run_fuzzer --===//
//
// A code object that follows the kernel ABI (ArtifactFormat.h) for ANY
// manifest. The kernels know nothing: each hands its workgroup (its kernel
// number, bindings, scalars and workgroup id) to `vmapc_fuzz_on_workgroup`,
// defined in run/Checker.cpp (the harness exports it; the dynamic
// loader binds it when the runtime loads this object from an artifact),
// which knows the schedule being run and checks and writes exactly the
// bytes the manifest gives each binding.
//
// Descriptors. The runtime compares each kernel's and each entry's
// descriptor with the manifest, so the harness writes them for the manifest
// it made, in this object's bytes: kernels k0 .. k7 with room for
// kMaxBindings bindings, entries e0 .. e2 with room for 7 arguments. Each
// descriptor starts with a marker (word 0: kMarker | KIND << 8 | INDEX, KIND
// 1 for a kernel, 2 for an entry, 3 for the code level; word 1: kMarker2) by
// which the harness finds it.
//
//===----------------------------------------------------------------------===//

#include <cstdint>

extern "C" void vmapc_fuzz_on_workgroup(int kernel, void *const *bindings,
                                        const int64_t *scalars, int64_t x,
                                        int64_t y, int64_t z);

namespace {
constexpr uint64_t kMarker = 0x5afe5afe00000000ull;
constexpr uint64_t kMarker2 = 0xfa11fa11fa11fa11ull;
/// Bindings a stand-in kernel's descriptor has room for (8 words of header,
/// then 2 per binding).
constexpr int kMaxBindings = 8;
/// Arguments an entry's descriptor has room for (7 words, then 2 each).
constexpr int kMaxArgs = 7;
} // namespace

#define VMAPC_FUZZ_KERNEL(K)                                                   \
  extern "C" __attribute__((visibility("default"))) void vmapc_kernel_k##K(    \
      void *const *bindings, const int64_t *scalars, int64_t x, int64_t y,     \
      int64_t z) {                                                             \
    vmapc_fuzz_on_workgroup(K, bindings, scalars, x, y, z);                    \
  }                                                                            \
  extern "C" __attribute__((visibility("default")))                            \
  const uint64_t vmapc_kernel_k##K##_descriptor[8 + 2 * kMaxBindings] = {      \
      kMarker | (1 << 8) | K, kMarker2};

#define VMAPC_FUZZ_ENTRY(E)                                                    \
  extern "C" __attribute__((visibility("default")))                            \
  const uint64_t vmapc_entry_e##E##_descriptor[7 + 2 * kMaxArgs] = {           \
      kMarker | (2 << 8) | E, kMarker2};

VMAPC_FUZZ_KERNEL(0)
VMAPC_FUZZ_KERNEL(1)
VMAPC_FUZZ_KERNEL(2)
VMAPC_FUZZ_KERNEL(3)
VMAPC_FUZZ_KERNEL(4)
VMAPC_FUZZ_KERNEL(5)
VMAPC_FUZZ_KERNEL(6)
VMAPC_FUZZ_KERNEL(7)
// The ISA level the object was compiled for (kCodeLevelSymbol): 16 bytes,
// a NUL-terminated string the harness writes over the marker.
extern "C" __attribute__((visibility("default")))
const uint64_t vmapc_code_level[2] = {kMarker | (3 << 8), kMarker2};

VMAPC_FUZZ_ENTRY(0)
VMAPC_FUZZ_ENTRY(1)
VMAPC_FUZZ_ENTRY(2)
