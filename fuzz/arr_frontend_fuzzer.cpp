//===- arr_frontend_fuzzer.cpp - libFuzzer: .arr through the planner ------===//
//
// Input: `.arr` source text (at most kMaxInputBytes; larger inputs are
// skipped). Imports it with the front end (frontend/Import.h), verifies the
// module, then runs what `vmapc compile` runs before LLVM code generation:
// arr-to-linalg-pipeline and arr-bufferize-pipeline with the buffer planner
// and its verifier (passes/Pipelines.h). Diagnostics are counted, not
// printed.
//
// A finding is a crash or sanitizer report anywhere (MLIR's own patterns
// included: they crash on our IR only if our IR is invalid), or one of:
//   * the importer fails without an error diagnostic, or returns a module
//     that does not verify;
//   * a pass leaves IR that does not verify (checked after every pass);
//   * a pass fails without an error diagnostic;
//   * arr-verify-buffer-plan rejects the planner's plan.
// Set VMAPC_FUZZ_STATS=1 to print at exit how far the inputs got and which
// passes failed how often.
//
//===----------------------------------------------------------------------===//

#include "frontend/Import.h"
#include "passes/InitAll.h"
#include "passes/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace mlir;

namespace {

constexpr size_t kMaxInputBytes = 4096;
/// A context keeps every type and attribute it ever made; start a fresh one
/// after this many inputs so that memory stays flat over long runs.
constexpr unsigned kInputsPerContext = 500;

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "arr_frontend_fuzzer: %s\n", what.c_str());
  std::abort();
}

/// How far inputs got, and which passes failed (VMAPC_FUZZ_STATS=1).
struct Stats {
  uint64_t inputs = 0, imported = 0, exported = 0, planned = 0;
  llvm::StringMap<uint64_t> passFailures;
  ~Stats() {
    if (!std::getenv("VMAPC_FUZZ_STATS"))
      return;
    std::fprintf(stderr,
                 "arr_frontend_fuzzer: %llu inputs, %llu imported, %llu "
                 "with an export, %llu planned and verified\n",
                 (unsigned long long)inputs, (unsigned long long)imported,
                 (unsigned long long)exported, (unsigned long long)planned);
    for (const auto &f : passFailures)
      std::fprintf(stderr, "  %-32s failed %llu times\n",
                   f.getKey().str().c_str(), (unsigned long long)f.getValue());
  }
} stats;

/// Verifies the IR after every pass (the pass manager's own verifier is off:
/// its failures would look like ordinary errors) and records failed passes.
class VerifyAfterEachPass : public PassInstrumentation {
public:
  void runAfterPass(Pass *pass, Operation *op) override {
    if (failed(verify(op)))
      fail("the IR does not verify after pass '" + pass->getArgument().str() +
           "'");
  }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    failedPass = pass->getArgument().str();
  }
  std::string failedPass;
};

struct Compiler {
  Compiler() {
    vmapc::registerCompilerDialects(registry);
    reset();
  }
  void reset() {
    context = std::make_unique<MLIRContext>(registry);
    context->disableMultithreading();
    context->printOpOnDiagnostic(false);
    context->getDiagEngine().registerHandler([this](Diagnostic &d) {
      if (d.getSeverity() == DiagnosticSeverity::Error)
        ++errors;
      return success();
    });
    uses = 0;
  }
  DialectRegistry registry;
  std::unique_ptr<MLIRContext> context;
  unsigned uses = 0;
  uint64_t errors = 0;
};

Compiler *compiler;

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  compiler = new Compiler();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInputBytes)
    return 0;
  Compiler &c = *compiler;
  if (++c.uses > kInputsPerContext)
    c.reset();
  ++stats.inputs;
  MLIRContext *context = c.context.get();

  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.arr"),
      llvm::SMLoc());
  c.errors = 0;
  OwningOpRef<ModuleOp> module = vmapc::importArr(sourceMgr, context);
  if (!module) {
    if (c.errors == 0)
      fail("the importer failed without an error");
    return 0;
  }
  if (failed(verify(*module)))
    fail("the importer returned a module that does not verify");
  ++stats.imported;
  for (auto fn : module->getOps<func::FuncOp>())
    if (fn->hasAttr("arr.batch")) {
      ++stats.exported;
      break;
    }

  PassManager pm(context);
  pm.enableVerifier(false);
  auto instrumentation = std::make_unique<VerifyAfterEachPass>();
  VerifyAfterEachPass *verifier = instrumentation.get();
  pm.addInstrumentation(std::move(instrumentation));
  vmapc::buildArrToLinalgPipeline(pm);
  vmapc::buildArrBufferizePipeline(pm, /*plan=*/true);
  c.errors = 0;
  if (succeeded(pm.run(*module))) {
    ++stats.planned;
    return 0;
  }
  const std::string &pass = verifier->failedPass;
  ++stats.passFailures[pass.empty() ? "(unknown)" : pass];
  if (c.errors == 0)
    fail("pass '" + pass + "' failed without an error");
  if (pass == "arr-verify-buffer-plan")
    fail("the buffer plan verifier rejected the planner's plan");
  return 0;
}
