//===- vmapc-opt.cpp - mlir-opt for .arr and .mlir files ------------------===//
//
// Reads a `.arr` program (through the front end) or `.mlir` IR, runs the
// passes or pipeline named on the command line, and prints the result, with
// mlir-opt's `-split-input-file` and `-verify-diagnostics`.
//
//===----------------------------------------------------------------------===//

#include "frontend/Import.h"
#include "passes/InitAll.h"
#include "test/lib/TestDialect.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Support/ToolUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFilename(cl::Positional,
                                          cl::desc("<input .arr or .mlir>"),
                                          cl::init("-"));
static cl::opt<std::string> outputFilename("o", cl::desc("Output filename"),
                                           cl::value_desc("filename"),
                                           cl::init("-"));
static cl::opt<bool> splitInputFile(
    "split-input-file",
    cl::desc("Split the input at '// -----' ('# -----' in .arr) and process "
             "each chunk on its own"));
static cl::opt<bool> verifyDiagnostics(
    "verify-diagnostics",
    cl::desc("Check that emitted diagnostics match expected-* lines"));
static cl::opt<bool> forceArr("x-arr",
                              cl::desc("Read the input as .arr source"));

/// Parses one chunk, runs the pipeline and prints the module.
static LogicalResult processChunk(std::unique_ptr<llvm::MemoryBuffer> chunk,
                                  raw_ostream &os, DialectRegistry &registry,
                                  PassPipelineCLParser &pipeline, bool isArr) {
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // As mlir-opt: expected-* lines name diagnostics, not the op dumps.
  context.printOpOnDiagnostic(!verifyDiagnostics);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(chunk), llvm::SMLoc());

  auto run = [&]() -> LogicalResult {
    OwningOpRef<ModuleOp> module =
        isArr ? vmapc::importArr(sourceMgr, &context)
              : parseSourceFile<ModuleOp>(sourceMgr, &context);
    if (!module)
      return failure();
    PassManager pm(module.get()->getName());
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    // --mlir-timing: each pass's time, reported when `timing` goes.
    DefaultTimingManager timing;
    applyDefaultTimingManagerCLOptions(timing);
    TimingScope root = timing.getRootScope();
    pm.enableTiming(root);
    auto errorHandler = [&](const Twine &msg) {
      emitError(UnknownLoc::get(&context)) << msg;
      return failure();
    };
    if (failed(pipeline.addToPipeline(pm, errorHandler)))
      return failure();
    if (failed(pm.run(*module)))
      return failure();
    module->print(os);
    os << "\n";
    return success();
  };

  if (!verifyDiagnostics) {
    SourceMgrDiagnosticHandler handler(sourceMgr, &context);
    return run();
  }
  SourceMgrDiagnosticVerifierHandler handler(sourceMgr, &context);
  (void)run();
  return handler.verify();
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  DialectRegistry registry;
  vmapc::registerAllDialects(registry);
  vmapc::arr_test::registerTestDialect(registry);
  vmapc::registerAllPasses();
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  PassPipelineCLParser pipeline("", "Compiler passes to run", "p");
  cl::ParseCommandLineOptions(argc, argv, "vmapc optimizer driver\n");

  std::string errorMessage;
  auto file = openInputFile(inputFilename, &errorMessage);
  if (!file) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  auto output = openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return 1;
  }
  bool isArr = forceArr || StringRef(inputFilename).ends_with(".arr");
  auto process = [&](std::unique_ptr<llvm::MemoryBuffer> chunk,
                     raw_ostream &os) {
    return processChunk(std::move(chunk), os, registry, pipeline, isArr);
  };
  StringRef marker = isArr ? "# -----" : kDefaultSplitMarker;
  LogicalResult result =
      splitInputFile
          ? splitAndProcessBuffer(std::move(file), process, output->os(),
                                  marker, isArr ? "# -----" : "// -----")
          : process(std::move(file), output->os());
  if (failed(result))
    return 1;
  output->keep();
  return 0;
}
