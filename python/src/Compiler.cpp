//===- Compiler.cpp - the compiler as the Python package calls it ---------===//

#include "Compiler.h"

#include "codegen/Compile.h"
#include "dialect/ArrDialect.h"
#include "frontend/Import.h"
#include "passes/BufferPlan.h"
#include "passes/InitAll.h"
#include "passes/Pipelines.h"
#include "report/PlanReport.h"
#include "vmapc/ArtifactWriter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace vmapc {
namespace python {
namespace {

/// Compilations run one at a time: LLVM's target machinery is shared.
std::mutex &compileMutex() {
  static std::mutex mutex;
  return mutex;
}

/// A context with the diagnostics of the `.arr` source in `sourceMgr`
/// printed into `diagnostics` as the CLI prints them on stderr.
struct Session {
  Session(const std::string &text, const std::string &filename,
          std::string *diagnostics)
      : context(makeRegistry()), os(*diagnostics),
        handler(sourceMgr, &context, os) {
    context.printOpOnDiagnostic(false);
    sourceMgr.AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(text, filename), llvm::SMLoc());
  }

  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    vmapc::registerCompilerDialects(registry);
    return registry;
  }

  /// Imports the source; null after a diagnostic. Binary text (an artifact,
  /// or any file with a NUL byte) is refused before the front end would
  /// quote its bytes, as `vmapc compile` refuses it.
  OwningOpRef<ModuleOp> import(const std::string &text,
                               const std::string &filename) {
    if (llvm::StringRef(text).starts_with(llvm::StringRef(
            vmapc::kArtifactMagic, sizeof(vmapc::kArtifactMagic)))) {
      os << "'" << filename
         << "' is a compiled artifact; vmapc.compile takes .arr source "
            "(vmapc.load takes artifacts)\n";
      return nullptr;
    }
    if (llvm::StringRef(text).contains('\0')) {
      os << "'" << filename << "' is not a text file (.arr source expected)\n";
      return nullptr;
    }
    return vmapc::importArr(sourceMgr, &context);
  }

  /// Checks --arena-alignment as the CLI does (0: the default).
  bool checkAlignment(int64_t alignment) {
    std::string why;
    if (alignment == 0 || vmapc::isValidArenaAlignment(alignment, &why))
      return true;
    os << "arena_alignment=" << alignment << ": " << why << "\n";
    return false;
  }

  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream os;
  SourceMgrDiagnosticHandler handler;
};

} // namespace

bool compileArtifactBytes(const CompileRequest &request, std::string *bytes,
                          std::string *diagnostics) {
  std::lock_guard<std::mutex> lock(compileMutex());
  Session session(request.text, request.filename, diagnostics);
  OwningOpRef<ModuleOp> module = session.import(request.text, request.filename);
  if (!module || !session.checkAlignment(request.arenaAlignment))
    return false;
  vmapc::CompileOptions options;
  options.arenaAlignment = request.arenaAlignment;
  options.bufferReuse = request.bufferReuse;
  options.cpu = request.cpu;
  options.cuda = request.cuda;
  options.isaLevels = request.isaLevels;
  options.cudaChip = request.cudaArch;
  options.threads = request.threads;
  vmapc::Artifact artifact;
  if (failed(vmapc::compileArtifact(*module, options, artifact)))
    return false;
  vmapc::Status status = vmapc::serializeArtifact(artifact, bytes);
  if (!status.ok()) {
    session.os << status.message() << "\n";
    return false;
  }
  return true;
}

bool computePlans(const std::string &text, const std::string &filename,
                  int64_t arenaAlignment, bool bufferReuse,
                  std::vector<EntryPlan> *plans, std::string *diagnostics) {
  std::lock_guard<std::mutex> lock(compileMutex());
  Session session(text, filename, diagnostics);
  OwningOpRef<ModuleOp> module = session.import(text, filename);
  if (!module || !session.checkAlignment(arenaAlignment))
    return false;
  PassManager pm(&session.context);
  vmapc::buildArrToLinalgPipeline(pm);
  vmapc::buildArrBufferizePipeline(pm, /*plan=*/false);
  if (failed(pm.run(*module)))
    return false;
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (!vmapc::arr::isEntry(fn))
      continue;
    vmapc::BufferPlanOptions options;
    if (arenaAlignment)
      options.alignment = arenaAlignment;
    options.reuse = bufferReuse;
    FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(fn, options);
    if (failed(plan))
      return false;
    vmapc::PlanReport report = vmapc::buildPlanReport(fn, std::move(*plan));
    EntryPlan entry;
    entry.entry = fn.getSymName().str();
    llvm::raw_string_ostream json(entry.json);
    json << llvm::json::Value(vmapc::planToJson(report));
    llvm::raw_string_ostream svg(entry.svg);
    vmapc::writePlanSvg(svg, report);
    plans->push_back(std::move(entry));
  }
  return true;
}

} // namespace python
} // namespace vmapc
