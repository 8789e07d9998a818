//===- TestUtil.h - helpers shared by the oracle's tests --------*- C++ -*-===//

#ifndef VMAPC_TEST_ORACLE_TESTUTIL_H
#define VMAPC_TEST_ORACLE_TESTUTIL_H

#include "dialect/ArrDialect.h"
#include "test/oracle/Interpreter.h"

#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <memory>
#include <string>

namespace vmapc::oracle::test {

/// A context with the arr and func dialects, the func.call batching model
/// and func's inliner interface.
inline std::unique_ptr<mlir::MLIRContext> makeContext() {
  mlir::DialectRegistry registry;
  registry.insert<vmapc::arr::ArrDialect, mlir::func::FuncDialect>();
  vmapc::arr::registerExternalBatchingModels(registry);
  mlir::func::registerInlinerExtension(registry);
  auto context = std::make_unique<mlir::MLIRContext>(registry);
  context->loadAllAvailableDialects();
  return context;
}

/// Parses (and verifies) a module; null on error (reported on stderr).
inline mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context,
                                               llvm::StringRef source) {
  return mlir::parseSourceString<mlir::ModuleOp>(source, &context);
}

/// `text` with every "{KEY}" replaced by `value`.
inline std::string substitute(std::string text, const std::string &key,
                              const std::string &value) {
  std::string pattern = "{" + key + "}";
  for (size_t at = text.find(pattern); at != std::string::npos;
       at = text.find(pattern, at + value.size()))
    text.replace(at, pattern.size(), value);
  return text;
}

} // namespace vmapc::oracle::test

#endif // VMAPC_TEST_ORACLE_TESTUTIL_H
