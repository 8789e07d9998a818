//===- Compiler.cpp - the compiler as the Python package calls it ---------===//

#include "Compiler.h"

#include "codegen/Compile.h"
#include "dialect/ArrDialect.h"
#include "frontend/Import.h"
#include "passes/BufferPlan.h"
#include "passes/InitAll.h"
#include "passes/Pipelines.h"
#include "vmapc/ArtifactWriter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace vmapc {
namespace python {
namespace {

/// Compilations run one at a time: the compiler's global registries are
/// filled once and LLVM's target machinery is shared.
std::mutex &compileMutex() {
  static std::mutex mutex;
  return mutex;
}

/// The passes registered once per process, as the CLI's main does.
void registerPassesOnce() {
  static std::once_flag once;
  std::call_once(once, [] { vmapc::registerAllPasses(); });
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
    vmapc::registerAllDialects(registry);
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

  MLIRContext context;
  llvm::SourceMgr sourceMgr;
  llvm::raw_string_ostream os;
  SourceMgrDiagnosticHandler handler;
};

} // namespace

bool compileArtifactBytes(const CompileRequest &request, std::string *bytes,
                          std::string *diagnostics) {
  registerPassesOnce();
  std::lock_guard<std::mutex> lock(compileMutex());
  Session session(request.text, request.filename, diagnostics);
  OwningOpRef<ModuleOp> module = session.import(request.text, request.filename);
  if (!module)
    return false;
  vmapc::CompileOptions options;
  options.cpu = request.cpu;
  options.cuda = request.cuda;
  options.isaLevels = request.isaLevels;
  options.cudaChip = request.cudaArch;
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
                  std::vector<EntryPlan> *plans, std::string *diagnostics) {
  registerPassesOnce();
  std::lock_guard<std::mutex> lock(compileMutex());
  Session session(text, filename, diagnostics);
  OwningOpRef<ModuleOp> module = session.import(text, filename);
  if (!module)
    return false;
  PassManager pm(&session.context);
  vmapc::buildArrToLinalgPipeline(pm);
  vmapc::buildArrBufferizePipeline(pm, /*plan=*/false);
  if (failed(pm.run(*module)))
    return false;
  for (auto fn : module->getOps<func::FuncOp>()) {
    if (!vmapc::arr::isEntry(fn))
      continue;
    FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(fn);
    if (failed(plan))
      return false;
    EntryPlan entry;
    entry.entry = fn.getSymName().str();
    entry.arenaBytes = plan->arenaBytes;
    entry.lowerBound = plan->lowerBound;
    entry.naiveSum = plan->naiveSum;
    entry.inPlace = plan->inPlace;
    entry.alignment = plan->alignment;
    entry.donatedBytes = plan->donatedBytes;
    entry.scheduleLength = plan->scheduleLength;
    for (const vmapc::PlannedBuffer &b : plan->buffers) {
      PlanRow row;
      row.name = b.name;
      row.staging = b.kind == vmapc::PlannedBuffer::Kind::Staging;
      row.description = b.description;
      row.bytes = b.bytes;
      row.start = b.live.start;
      row.end = b.live.end;
      row.offset = b.offset;
      if (b.inPlaceSource >= 0)
        row.inPlaceOf = plan->buffers[b.inPlaceSource].name;
      if (b.reusedFrom >= 0)
        row.reusedFrom = plan->buffers[b.reusedFrom].name;
      row.updatesInPlace = b.updatesInPlace;
      entry.buffers.push_back(std::move(row));
    }
    plans->push_back(std::move(entry));
  }
  return true;
}

} // namespace python
} // namespace vmapc
