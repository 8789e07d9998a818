//===- Model.h - artifact_run_fuzzer: the run a call makes ------*- C++ -*-===//
//
// What Runtime.h and Schedule.h promise a call makes, worked out apart from
// the runtime: its chunks (planChunks, the runtime's one chunk plan), each
// chunk's n, the dispatches of the schedule in order with loops unrolled
// and their grids, which full chunks run as one dispatch (Runtime.h,
// Stats::batchedChunks; docs/runtime.md, "Chunks without barriers"), and
// where each binding of a dispatch must point.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FUZZ_RUN_MODEL_H
#define VMAPC_FUZZ_RUN_MODEL_H

#include "Call.h"

namespace vmapc_run_fuzzer {

/// Fills in the chunks and the dispatches a run of `call.n` examples makes
/// on the CPU device (Runtime.h), and the full chunks it runs as one; false
/// if it would be past the harness's bounds.
bool planRun(Call &call);

/// Where a binding must point: at `address` in the caller's memory, or at
/// `offset` into the arena (whose base is unknown before the first staged
/// or arena binding).
struct Expected {
  bool inArena;
  uintptr_t address;
  uint64_t offset;
};

/// Where binding `b` of a dispatch in chunk `c` must point.
Expected expectedAddress(const Call &call, const Binding &b, uint64_t c);

} // namespace vmapc_run_fuzzer

#endif // VMAPC_FUZZ_RUN_MODEL_H
