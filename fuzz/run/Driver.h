//===- Driver.h - artifact_run_fuzzer: one call of an entry -----*- C++ -*-===//
//
// Runs one entry of a loaded artifact on N examples (N and the data from
// the input, arrays of at most kMaxUserBytes), one call in four broken in
// one way the runtime must reject (argument count, dtype, rank, a
// dimension, a disagreeing N, a null pointer, more than kMaxRank dims),
// with the model's plan of the run (Model.h) for the kernels to check, then
// the checks after the run (Checker.h).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FUZZ_RUN_DRIVER_H
#define VMAPC_FUZZ_RUN_DRIVER_H

#include "Call.h"

#include <fuzzer/FuzzedDataProvider.h>

namespace vmapc_run_fuzzer {

/// Runs `entry` of `exe` (loaded from `artifact`) once, as `fdp` says.
void runEntry(const Artifact &artifact, Executable &exe, const Entry &entry,
              FuzzedDataProvider &fdp);

} // namespace vmapc_run_fuzzer

#endif // VMAPC_FUZZ_RUN_DRIVER_H
