//===- StandInKernels.cpp - Stand-in code object for artifact_run_fuzzer --===//
//
// A code object that follows the generated-code ABI (ArtifactFormat.h) for
// ANY manifest. The kernels do not know the shapes: each hands its argument
// array to `vmapc_fuzz_on_launch`, defined in artifact_run_fuzzer.cpp (the
// executable exports it; the dynamic loader binds it when the runtime loads
// this object from an artifact), which knows the entry being run and checks
// and writes exactly the bytes the manifest gives each argument.
//
// Entry descriptors. Next to each kernel SYMBOL the compiler's code exports
// SYMBOL_descriptor, which the runtime may compare with the manifest (see
// ArtifactFormat.h): an array of u64 words whose size depends on the entry's
// argument count. So there is one kernel per entry slot S (0-2) and argument
// count N (0-7), vmapc_fuzz_kernel_S_N, whose descriptor has room for N
// arguments and starts with a marker (word 2: kMarker | S << 8 | N, word 3:
// kMarker2) by which the harness finds it in the object's bytes and writes
// the words for the manifest it made.
//
//===----------------------------------------------------------------------===//

#include <cstdint>

extern "C" void vmapc_fuzz_on_launch(void **args);

#define VMAPC_FUZZ_KERNEL(S, N)                                                \
  extern "C" __attribute__((                                                   \
      visibility("default"))) void vmapc_fuzz_kernel_##S##_##N(void **args) {  \
    vmapc_fuzz_on_launch(args);                                                \
  }                                                                            \
  extern "C" __attribute__((visibility("default")))                            \
  const uint64_t vmapc_fuzz_kernel_##S##_##N##_descriptor[6 + 2 * N] = {       \
      0, 0, 0x5afe5afe00000000ull | (S << 8) | N, 0xfa11fa11fa11fa11ull};

#define VMAPC_FUZZ_KERNELS(S)                                                  \
  VMAPC_FUZZ_KERNEL(S, 0)                                                      \
  VMAPC_FUZZ_KERNEL(S, 1)                                                      \
  VMAPC_FUZZ_KERNEL(S, 2)                                                      \
  VMAPC_FUZZ_KERNEL(S, 3)                                                      \
  VMAPC_FUZZ_KERNEL(S, 4)                                                      \
  VMAPC_FUZZ_KERNEL(S, 5)                                                      \
  VMAPC_FUZZ_KERNEL(S, 6)                                                      \
  VMAPC_FUZZ_KERNEL(S, 7)

VMAPC_FUZZ_KERNELS(0)
VMAPC_FUZZ_KERNELS(1)
VMAPC_FUZZ_KERNELS(2)
