//===- PrintSchedules.cpp - each planned entry's schedule, readable -------===//
//
// `--arr-print-schedules`: prints, for every planned entry, the schedule
// the artifact will carry (passes/Dispatch/ReadSchedule.h, in the format of
// runtime/include/vmapc/Schedule.h's describeSchedule), to stdout or to a file.
// Changes nothing.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "passes/Dispatch/ReadSchedule.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRPRINTSCHEDULES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {
struct ArrPrintSchedulesPass
    : vmapc::impl::ArrPrintSchedulesBase<ArrPrintSchedulesPass> {
  using ArrPrintSchedulesBase::ArrPrintSchedulesBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Planned, vmapc::Stage::Planned)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    std::vector<vmapc::KernelInfo> kernels = vmapc::readKernels(module);
    std::string text;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (!vmapc::arr::isEntry(fn))
        continue;
      std::vector<vmapc::Command> commands;
      if (failed(vmapc::readSchedule(fn, kernels, commands)))
        return signalPassFailure();
      auto batch = fn->getAttrOfType<IntegerAttr>(
          vmapc::arr::ArrDialect::kBatchAttrName);
      text += "entry " + fn.getSymName().str() + " (batch " +
              std::to_string(batch.getInt()) + "):\n";
      std::string listing = vmapc::describeSchedule(commands, kernels);
      for (llvm::StringRef line : llvm::split(llvm::StringRef(listing), '\n'))
        if (!line.empty())
          text += "  " + line.str() + "\n";
    }
    if (output == "-") {
      llvm::outs() << text;
      return;
    }
    std::error_code ec;
    llvm::raw_fd_ostream os(output, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      module.emitError() << "cannot write '" << output << "': " << ec.message();
      return signalPassFailure();
    }
    os << text;
  }
};
} // namespace
