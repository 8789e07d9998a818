//===- FakeCudaEmulator.h - runs emulated kernels block by block -*- C++
//-*-===//
//
// The execution half of FakeCudaEmulation.h: emulated kernel libraries
// (loading, finding the one built from a PTX text) and the launch of one
// kernel over its grid with CUDA's block semantics (barriers, warp
// shuffles, dynamic shared memory). Used by FakeCuda.cpp only.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_FAKECUDAEMULATOR_H
#define VMAPC_TEST_FAKECUDAEMULATOR_H

#include "FakeCudaEmulation.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vmapc::fakecuda {

/// One loaded emulated kernel library.
struct EmulatedLibrary {
  std::string path;
  void *handle = nullptr;
  vmapc_emu_runtime *runtime = nullptr;
  unsigned char *shared = nullptr;
  uint64_t sharedBytes = 0;
  const vmapc_emu_kernel *kernels = nullptr;
  uint64_t ptxHash = 0;
  uint64_t ptxBytes = 0;

  /// The kernel named `name`; nullptr if the library has none.
  const vmapc_emu_kernel *find(const std::string &name) const;
};

/// The libraries of VMAPC_FAKE_CUDA_KERNELS, loaded on the first call (an
/// empty list when it is unset). A library that cannot be loaded or lacks
/// a symbol of FakeCudaEmulation.h sets `error` (and is left out).
const std::vector<EmulatedLibrary> &emulatedLibraries(std::string *error);

/// The library built from the PTX `text` of `bytes` bytes; nullptr if none.
const EmulatedLibrary *libraryForPtx(const char *text, size_t bytes);

/// One launch, its pointer parameters already host pointers.
struct EmulatedLaunch {
  const EmulatedLibrary *library;
  const vmapc_emu_kernel *kernel;
  unsigned grid[3];
  unsigned block[3];
  unsigned sharedBytes;
  const uint64_t *params;
};

/// Runs every block of `launch`. Returns an empty string when all blocks
/// completed, else what went wrong ("block (x, y, z): ...").
std::string runEmulatedLaunch(const EmulatedLaunch &launch);

} // namespace vmapc::fakecuda

#endif // VMAPC_TEST_FAKECUDAEMULATOR_H
