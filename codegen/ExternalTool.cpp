//===- ExternalTool.cpp - a code object made by a tool on bytes -----------===//

#include "codegen/ExternalTool.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <vector>

using namespace mlir;

namespace {
/// A temporary file removed when it goes out of scope.
struct TempFile {
  llvm::SmallString<128> path;
  ~TempFile() {
    if (!path.empty())
      llvm::sys::fs::remove(path);
  }
};
} // namespace

FailureOr<std::string> vmapc::runExternalTool(Operation *op,
                                              const ExternalToolRun &run,
                                              ArrayRef<StringRef> inputs) {
  std::vector<TempFile> inputFiles(inputs.size());
  TempFile outputFile, logFile;
  for (auto [file, input] : llvm::zip(inputFiles, inputs)) {
    int fd;
    if (llvm::sys::fs::createTemporaryFile("vmapc", run.inputSuffix, fd,
                                           file.path))
      return op->emitError("cannot create a temporary file");
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << input;
  }
  if (llvm::sys::fs::createTemporaryFile("vmapc", run.outputSuffix,
                                         outputFile.path) ||
      llvm::sys::fs::createTemporaryFile("vmapc", "log", logFile.path))
    return op->emitError("cannot create a temporary file");
  llvm::SmallVector<StringRef> inputPaths;
  for (const TempFile &file : inputFiles)
    inputPaths.push_back(file.path);
  llvm::SmallVector<StringRef> args =
      run.commandLine(inputPaths, outputFile.path);
  std::optional<StringRef> redirects[] = {std::nullopt, logFile.path,
                                          logFile.path};
  std::string error;
  int rc = llvm::sys::ExecuteAndWait(run.program, args, std::nullopt, redirects,
                                     0, 0, &error);
  if (rc != 0) {
    auto log = llvm::MemoryBuffer::getFile(logFile.path);
    return op->emitError(run.failure)
           << error << (log ? (*log)->getBuffer() : "");
  }
  auto bytes = llvm::MemoryBuffer::getFile(outputFile.path);
  if (!bytes || (*bytes)->getBufferSize() == 0)
    return op->emitError(run.noOutput);
  return (*bytes)->getBuffer().str();
}
