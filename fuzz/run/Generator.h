//===- Generator.h - artifact_run_fuzzer: manifests -------------*- C++ -*-===//
//
// Decodes the fuzzer's input into an artifact around the stand-in code
// object (StandInKernels.cpp): 1-3 entries (batch sizes, arenas, 0-4 inputs
// and 0-3 outputs with dtypes, shapes, mapped axes and staging slots laid
// out without overlap or raw), kernels (bindings, scalars, grids of
// constants and tiles of n, scratch) and per entry a schedule of dispatches
// and loops; 1-3 code objects of ISA levels the host may or may not run.
// The stand-in's descriptors are written to match the manifest, but for
// one word in 16; its code level, but for one object in 32. Pieces are
// built with runtime/test/ArtifactBuilder.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FUZZ_RUN_GENERATOR_H
#define VMAPC_FUZZ_RUN_GENERATOR_H

#include "Call.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <string>

namespace vmapc_run_fuzzer {

/// The artifact `fdp` describes, its code objects `standInCode` with the
/// descriptors written in.
Artifact generateArtifact(FuzzedDataProvider &fdp,
                          const std::string &standInCode);

} // namespace vmapc_run_fuzzer

#endif // VMAPC_FUZZ_RUN_GENERATOR_H
