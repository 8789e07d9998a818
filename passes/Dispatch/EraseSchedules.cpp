//===- EraseSchedules.cpp - leave only the kernels for code generation ----===//
//
// `--arr-erase-schedules`: after the driver has read each planned entry's
// schedule (codegen/Schedule.h), the entries are data, not code: erase
// them, so that what is left for LLVM is the kernels.
//
//===----------------------------------------------------------------------===//

#include "dialect/SchedDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRERASESCHEDULES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ArrEraseSchedulesPass
    : vmapc::impl::ArrEraseSchedulesBase<ArrEraseSchedulesPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Planned, vmapc::Stage::Kernels)))
      return signalPassFailure();
    for (auto fn :
         llvm::make_early_inc_range(getOperation().getOps<func::FuncOp>()))
      if (!vmapc::sched::isKernel(fn))
        fn.erase();
  }
};
} // namespace
