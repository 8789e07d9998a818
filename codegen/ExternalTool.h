//===- ExternalTool.h - a code object made by a tool on bytes ---*- C++ -*-===//
//
// Both code objects end with an external tool on bytes vmapc made: the CPU's
// object files linked by the system `ld` into a shared object, CUDA's PTX
// assembled by `ptxas` into a cubin. One shape for both: each input goes to
// a temporary file, the tool writes another, its output and errors go to a
// log, and every temporary file is removed on the way out.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CODEGEN_EXTERNALTOOL_H
#define VMAPC_CODEGEN_EXTERNALTOOL_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace vmapc {

/// One run of a tool that turns input files into an output file.
struct ExternalToolRun {
  /// The tool's path, argv[0].
  llvm::StringRef program;
  /// Suffixes of the temporary input and output files ("o", "so").
  llvm::StringRef inputSuffix, outputSuffix;
  /// The whole command line, argv[0] first, given the input files' paths
  /// (in the order of the inputs) and the output file's.
  llvm::function_ref<llvm::SmallVector<llvm::StringRef>(
      llvm::ArrayRef<llvm::StringRef> inputs, llvm::StringRef output)>
      commandLine;
  /// How an error starts when the tool fails ("linking the shared object
  /// failed: "), followed by why and the tool's log.
  llvm::StringRef failure;
  /// The error when the output is missing or empty.
  llvm::StringRef noOutput;
};

/// Runs `run` on `inputs` (the bytes of each input file) and returns the
/// bytes of its output file; errors (emitted on `op`): a temporary file
/// that cannot be made, the tool's failure with its log, no output.
mlir::FailureOr<std::string>
runExternalTool(mlir::Operation *op, const ExternalToolRun &run,
                llvm::ArrayRef<llvm::StringRef> inputs);

} // namespace vmapc

#endif // VMAPC_CODEGEN_EXTERNALTOOL_H
