//===- Checker.h - artifact_run_fuzzer: what a run must do ------*- C++ -*-===//
//
// The checks of a call: from inside each workgroup (vmapc_fuzz_on_workgroup,
// which the stand-in kernels call), that the dispatches arrive in the
// model's order (Model.h), each workgroup once, with the right scalars,
// bindings where they must point and inputs holding the chunk's examples;
// and after the run, that the outputs hold what the kernels wrote,
// scattered back, and that a broken call failed having run nothing and
// written nothing.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_FUZZ_RUN_CHECKER_H
#define VMAPC_FUZZ_RUN_CHECKER_H

#include "Call.h"

#include <vector>

/// What every stand-in kernel calls for each workgroup it runs (exported by
/// the harness; StandInKernels.cpp).
extern "C" void vmapc_fuzz_on_workgroup(int kernel, void *const *bindings,
                                        const int64_t *scalars, int64_t x,
                                        int64_t y, int64_t z);

namespace vmapc_run_fuzzer {

/// Checks what `exe.run` of `call` did, which returned `s` (the stats
/// before it: `before`): a call broken in way `broken` (or whose arrays
/// pass the size limit) must have failed having run and written nothing;
/// a well-formed one, run every workgroup of the model and left in `outs`
/// what the kernels wrote.
void checkAfterRun(const Call &call, const Executable &exe, const Stats &before,
                   const Status &s, Breakage broken,
                   const std::vector<UserArg> &ins,
                   const std::vector<UserArg> &outs);

} // namespace vmapc_run_fuzzer

#endif // VMAPC_FUZZ_RUN_CHECKER_H
