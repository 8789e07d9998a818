//===- Compiler.h - the compiler as the Python package calls it -*- C++ -*-===//
//
// The compiler's side of the `vmapc` Python package (python/), apart from the
// binding so that Binding.cpp needs no MLIR header: compile `.arr` source into
// artifact bytes, and compute each entry's buffer plan, as `vmapc compile`
// and `vmapc plan` do (tools/vmapc.cpp). Errors come back as the text the
// CLI prints: `file:line:col: error: ...`, the source line and a caret.
//
// Thread safety: every function may be called from any thread; compilations
// run one at a time (a process-wide lock), each in its own MLIRContext.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PYTHON_COMPILER_H
#define VMAPC_PYTHON_COMPILER_H

#include <cstdint>
#include <string>
#include <vector>

namespace vmapc {
namespace python {

/// What to compile, with `vmapc compile`'s options.
struct CompileRequest {
  /// The `.arr` source text and the name diagnostics give it (the path as
  /// the caller wrote it, or "<source>").
  std::string text;
  std::string filename;
  /// --target=cpu / cuda / cpu,cuda.
  bool cpu = true;
  bool cuda = false;
  /// --cpu-isa=LEVEL, repeated (empty: x86-64, x86-64-v3 and x86-64-v4).
  std::vector<std::string> isaLevels;
  /// --cuda-arch.
  std::string cudaArch = "sm_90";
  /// --arena-alignment (0: the targets' default) and --no-buffer-reuse.
  int64_t arenaAlignment = 0;
  bool bufferReuse = true;
  /// -j: threads that compile the CPU code objects, one ISA level each (0:
  /// one per hardware thread). The artifact's bytes do not depend on it.
  unsigned threads = 0;
};

/// Compiles `request` into the bytes of a `.vmapc` artifact. Returns false
/// with the diagnostics (as the CLI prints them) in `*diagnostics`.
bool compileArtifactBytes(const CompileRequest &request, std::string *bytes,
                          std::string *diagnostics);

/// One entry's plan as `vmapc plan` reports it (report/PlanReport.h).
struct EntryPlan {
  std::string entry;
  /// The JSON object `vmapc plan --json` writes for the entry.
  std::string json;
  /// The picture `vmapc plan --svg` draws of the entry alone.
  std::string svg;
};

/// The buffer plan of every entry of `text`, in module order, as `vmapc
/// plan` computes it with --arena-alignment (0: the CPU's default) and
/// --no-buffer-reuse (`bufferReuse` false). Returns false with the
/// diagnostics in `*diagnostics`.
bool computePlans(const std::string &text, const std::string &filename,
                  int64_t arenaAlignment, bool bufferReuse,
                  std::vector<EntryPlan> *plans, std::string *diagnostics);

} // namespace python
} // namespace vmapc

#endif // VMAPC_PYTHON_COMPILER_H
