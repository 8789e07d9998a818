//===- Compile.h - from arr IR to a .vmapc artifact -------------*- C++ -*-===//
//
// The compiler's back half, shared by `vmapc compile`, `vmapc run` (which
// compiles a .arr in memory) and `vmapc plan`: run the pipelines of
// passes/Pipelines.h, read each entry's manifest off the planned program,
// emit native code and assemble the artifact of
// runtime/include/vmapc/ArtifactFormat.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CODEGEN_COMPILE_H
#define VMAPC_CODEGEN_COMPILE_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactValidator.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "mlir/Support/Timing.h"

namespace vmapc {

/// Runs arr-to-linalg and arr-bufferize on `module` (arr IR as imported from
/// .arr): afterwards every entry is a planned memref function with `arr.plan`.
/// With `cuda` (the schedule also runs on CUDA) every argument gets a
/// staging slot, and a dispatch fuses at most kCudaMaxFusedBytesPerExample
/// of producers' results per example (GpuPipeline.h), so that a block's
/// share fits its shared memory. `arenaAlignment` and `bufferReuse` are
/// the planner's, `verifyEachPass` as in CompileOptions; the passes are
/// timed under `timing`. Errors are emitted as diagnostics.
mlir::LogicalResult lowerToPlannedBuffers(mlir::ModuleOp module,
                                          bool cuda = false,
                                          int64_t arenaAlignment = 0,
                                          bool bufferReuse = true,
                                          bool verifyEachPass = false,
                                          mlir::TimingScope timing = {});

/// Reads the manifest of every entry (public function with `arr.batch`) of a
/// planned module: names, dtypes, per-example shapes, axes, B, arena and
/// staging offsets, plan figures. `entries` is filled in module order. An
/// entry that breaks a rule of the artifact format (validateEntry: a name
/// too long, too many arguments, a size past 2^62 bytes, ...) is an error
/// at its function's location, the export.
mlir::LogicalResult readManifest(mlir::ModuleOp module,
                                 std::vector<EntryInfo> &entries,
                                 const std::vector<KernelInfo> &kernels);

/// What `vmapc compile --target=...` builds.
struct CompileOptions {
  /// CPU code objects, one per ISA level of `isaLevels` (empty: x86-64,
  /// x86-64-v3 and x86-64-v4).
  bool cpu = true;
  std::vector<std::string> isaLevels;
  /// CUDA code objects: the PTX and a cubin for `cudaChip`, built with the
  /// toolkit at `cudaToolkit` (empty: defaultCudaToolkit()).
  bool cuda = false;
  std::string cudaChip = "sm_90";
  std::string cudaToolkit;
  /// Alignment of the arena's offsets (0: the targets', 64 bytes for the
  /// CPU alone, 256 with CUDA; passes/BufferPlan.h), and whether buffers
  /// share bytes (false: planning off, each buffer its own offset).
  int64_t arenaAlignment = 0;
  bool bufferReuse = true;
  /// Threads that compile the CPU code objects (0: one per hardware
  /// thread); a level's MLIR half and its LLVM half are separate tasks. The
  /// artifact's bytes do not depend on it.
  unsigned threads = 0;
  /// Verify the IR after every pass, as MLIR's pass manager does by
  /// default, so that a pass that breaks it is named; otherwise it is
  /// verified once at the end of each pipeline (an error all the same).
  /// Every-pass verification walks the whole module some 50 times per ISA
  /// level: 8-14% of a compile. The tests turn it on.
  bool verifyEachPass = false;
};

/// Compiles `module` (arr IR as imported) into `artifact`: the kernels,
/// each entry's schedule, and the code objects `options` asks for, each
/// exporting `vmapc_kernel_NAME` and its descriptor per kernel (CPU: an ELF
/// shared object per ISA level, linked with the system `ld`; CUDA: PTX and
/// an sm_XX cubin assembled with the toolkit's ptxas). One schedule serves
/// every code object: with both targets, the grid is the CPU's tiling (a
/// GPU block then takes a CPU workgroup's examples, and the CPU's tiles keep
/// a workgroup's fused intermediates within kGpuWorkgroupScratch); with
/// CUDA, every argument has a staging slot in the arena, and the kernels'
/// index arithmetic is 32-bit when every arena and binding size is below
/// 2^31 bytes (64-bit otherwise).
mlir::LogicalResult compileArtifact(mlir::ModuleOp module,
                                    const CompileOptions &options,
                                    Artifact &artifact);

/// compileArtifact, its phases timed under `timing` (what `--mlir-timing`
/// prints, mlir/Support/Timing.h): the planning pipeline's passes; under
/// "CPU code objects", each ISA level's passes, LLVM's translation,
/// optimisation and code generation (of all its parts) and its link; under
/// "CUDA code objects", the CUDA pipeline's passes and ptxas.
/// A level's work runs on several compile threads (its split, its parts,
/// its link); MLIR merges the timers of one name from several threads, the
/// User Time column adding up the threads' times, the Wall Time column
/// keeping the longest.
mlir::LogicalResult compileArtifact(mlir::ModuleOp module,
                                    const CompileOptions &options,
                                    Artifact &artifact,
                                    mlir::TimingScope &timing);

/// compileArtifact for the CPU alone, at `isaLevels` (default: all three).
mlir::LogicalResult compileForCpu(mlir::ModuleOp module, Artifact &artifact,
                                  llvm::ArrayRef<std::string> isaLevels = {});

} // namespace vmapc

#endif // VMAPC_CODEGEN_COMPILE_H
