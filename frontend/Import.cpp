// Placeholder: replaced by the real front end.
#include "frontend/Import.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/SourceMgr.h"

mlir::OwningOpRef<mlir::ModuleOp> vmapc::importArr(llvm::SourceMgr &sourceMgr,
                                                   mlir::MLIRContext *context) {
  mlir::emitError(mlir::UnknownLoc::get(context), "front end not implemented");
  return nullptr;
}
