//===- TileSizes.h - tile sizes per op kind and target ---------*- C++ -*-===//
//
// The choices of tile sizes, in one place: which loops of a kernel's root
// are spread over workgroups and how many iterations each workgroup takes.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_CODEGEN_TILESIZES_H
#define VMAPC_PASSES_CODEGEN_TILESIZES_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace vmapc {

/// Loops of the root spread over the grid (at most 3, the first one being
/// grid dimension x) and the iterations of each that one workgroup takes.
struct WorkgroupTiling {
  llvm::SmallVector<int64_t, 3> loops;
  llvm::SmallVector<int64_t, 3> tileSizes;
};

/// Bytes of fused intermediates per workgroup that suit a CUDA block (its
/// shared memory): 48 KiB, so that 4 blocks fit an sm_90 SM (227 KiB).
constexpr int64_t kGpuWorkgroupScratch = 48 << 10;

/// The most bytes of fused intermediates one workgroup of `target` keeps
/// by default: 256 KiB for "cpu" (a worker's stack, L2), 48 KiB for "cuda"
/// (kGpuWorkgroupScratch).
int64_t defaultWorkgroupScratch(llvm::StringRef target);

/// Workgroup tiling for `target` ("cpu" or "cuda") of a kernel whose root is
/// `root`, computed with `producers`, given the root's distributable loops
/// and its batch loop. A workgroup's share of the producers' results is
/// kept within `maxScratch` bytes (<= 0: defaultWorkgroupScratch(target))
/// by halving the tile, down to one step of the loop.
WorkgroupTiling chooseWorkgroupTiling(
    mlir::linalg::LinalgOp root, llvm::ArrayRef<mlir::Operation *> producers,
    llvm::ArrayRef<int64_t> distributable, std::optional<int64_t> batchLoop,
    llvm::StringRef target, int64_t maxScratch = 0);

/// A CPU vector ISA level: the x86-64 micro-architecture levels of the
/// psABI, and the register tiles that suit them.
struct VectorIsa {
  /// "x86-64" (SSE2), "x86-64-v3" (AVX2 + FMA), "x86-64-v4" (AVX-512).
  std::string name;
  /// f32 lanes per vector register: 4, 8, 16.
  int64_t vectorWidth = 4;
  /// Register tile of a contraction: rows x columns (lanes) of
  /// accumulators, which with one broadcast and the B row must fit the
  /// register file (16 xmm, 16 ymm, 32 zmm).
  int64_t rowTile = 4;
  int64_t colTile = 8;
  /// Rows of the register tile of a plain multiply-accumulate (`x @ W`),
  /// whose step needs no temporary: as many as fill the register file with
  /// one broadcast and the B row (BLIS's 6x16 on AVX2, 14x32 on AVX-512),
  /// for an operand read in panels, in a slab of at least 4 such tiles: at
  /// most, as chooseRegisterTiling takes a shorter tile whose last one may
  /// overlap the one before (13 rows of a 64-row slab at AVX-512).
  int64_t mulAddRowTile = 4;
  /// Whether the level has FMA (AVX2's and AVX-512's vfmadd): a `contract`
  /// multiply and add become one instruction with one rounding.
  bool fusedMultiplyAdd = false;

  static std::optional<VectorIsa> named(llvm::StringRef name);
  /// Every level, baseline first.
  static llvm::SmallVector<VectorIsa, 3> all();
};

/// The most loop iterations an op is vectorized whole with (no strategy of
/// chooseRegisterTiling fits it): past that, it is cut into register tiles.
constexpr int64_t kMaxWholeVectorIterations = 1024;

/// How to cut one statically shaped op into register tiles.
struct RegisterTiling {
  enum class Kind {
    /// Leave it (scalar loops).
    None,
    /// Tile with `tileSizes` (0: whole dimension) and vectorize each tile.
    Tiles,
    /// Tile reduction dims `reductionDims` as partial reductions into
    /// vectors of lanes (upstream PartialReductionOuterReduction).
    PartialReduction,
  };
  Kind kind = Kind::None;
  llvm::SmallVector<int64_t> tileSizes;
  llvm::SmallVector<unsigned> reductionDims;
  /// PartialReduction only: the parallel loops' tile sizes (0: whole),
  /// applied first; `tileSizes` (reduction loops only) then tile each row
  /// tile's reduction.
  llvm::SmallVector<int64_t> rowTileSizes;
  /// Tiles only: the order of the tile loops (a permutation of the op's
  /// loops, outermost first); empty for the op's own order.
  llvm::SmallVector<int64_t> interchange;
  /// Tiles of a contraction only: the loops of the output's columns and of
  /// its rows whose last tile overlaps the one before instead of being
  /// peeled (the tile does not divide the loop; kOverlapWorkDivisor), by
  /// CpuVectorize.cpp's overlapLastTile.
  std::optional<unsigned> overlappedColumnLoop;
  std::optional<unsigned> overlappedRowLoop;
};

/// A contraction's last register tile of columns or rows overlaps the one
/// before, instead of being peeled into a second loop nest of a narrower
/// tile, where that recomputes at most 1 / kOverlapWorkDivisor of the
/// columns or rows (the columns also where the narrower tile takes as many
/// vectors a row).
constexpr int64_t kOverlapWorkDivisor = 32;

/// Rows of a CPU workgroup's slab when its kernel contracts: the register
/// tiles of a slab walk the shared operand's columns outermost and the
/// slab's rows inside, so that a column panel of the weights (K x colTile)
/// stays in cache for kContractionSlabRows / rowTile register tiles instead
/// of being read again from a farther cache for every rowTile rows (the
/// cache blocking over N of a GEMM).
constexpr int64_t kContractionSlabRows = 64;

/// Bytes of per-workgroup scratch a CPU kernel may have on a worker's stack
/// (the default of arr-cpu-workgroups' `max-scratch-bytes`).
constexpr int64_t kCpuMaxWorkgroupScratch = 1 << 20;

/// Columns of a weight panel (`--arr-pack-operands`, rule 3): an unbatched
/// [K, N] operand of a contraction over the batch is read from a copy laid
/// out [N / kPanelWidth, K, kPanelWidth], through the map results
/// (p floordiv kPanelWidth, k, p mod kPanelWidth). Every ISA's colTile
/// divides it (8, 16, 32 lanes), so a register tile's columns, cut from 0
/// in steps of colTile, lie in one panel; 128 bytes, two cache lines.
constexpr int64_t kPanelWidth = 32;

/// The smallest operand packed in panels, in bytes: 64 KiB, past a core's
/// L1 data cache (32-48 KiB), where a strided walk starts to miss.
constexpr int64_t kPanelMinBytes = 64 << 10;

/// Whether `op` reads an operand in column panels (kPanelWidth).
bool readsPanels(mlir::linalg::LinalgOp op);

/// Resolves the panel index of each operand `op` reads in panels, where
/// the op's column loop spans at most one panel (a register tile after
/// tiling, whose operand slice is that panel): `p floordiv kPanelWidth`
/// becomes 0 and `p mod kPanelWidth` becomes `p`, leaving projected
/// permutations that upstream's vectorizer takes. Returns whether `op`
/// changed.
bool resolvePanelIndices(mlir::linalg::LinalgOp op);

/// Whether `op` reduces along loops while vectorizing along its output's
/// innermost dimension (every input contiguous along it or not reading it):
/// a contraction-like op, whose register tile takes several rows so that
/// each loaded vector of the shared operand serves them all.
bool reducesAlongOutput(mlir::linalg::LinalgOp op);

/// The loops along which an input of `op` that reads along `op`'s output's
/// innermost loop p is contiguous, where that is another loop than p: the
/// other side of a transpose, which the register tiles cut V x V with p. An
/// input that does not read along p (a row's max, splatted along the row)
/// is a broadcast, not a transpose: attention's 16 x 16 tiles of
/// `exp(s - max)` took its x86-64-v4 compile from 125 to 170 ms for no
/// run-time gain (bench/RESULTS.md, 2026-12-07, thirteenth session).
llvm::SmallVector<unsigned> transposedLoops(mlir::linalg::LinalgOp op);

/// Whether `op` is a gather: its body reads a tensor (`tensor.extract`) at
/// an index computed from one of its operands' elements (arr.gather's
/// lowering), not only from the loop indices (a reversed slice).
bool isGather(mlir::linalg::LinalgOp op);

/// Whether every `tensor.extract` of `op`'s body reads along the innermost
/// loop: its last index follows that loop's `linalg.index` (and nothing
/// else of the body), its other indices do not. A gather of rows is; upstream's
/// vectorizer turns it into contiguous vector loads. Other reads by index
/// stay loops (the vectorizer can emit an invalid `vector.gather` for them).
bool readsRowsAlongInnermostLoop(mlir::linalg::LinalgOp op);

/// The register tiling of `op` (static shapes) for `isa`, by op kind:
/// elementwise (innermost output dimension in tiles of 4 vectors, V x V
/// tiles for a transpose; a gather reads one row of its operand per tile;
/// a fill of at most a register tile whole),
/// contraction along the output's innermost dimension (rows x columns of
/// accumulators, reductions one step at a time), a reduction along a contiguous
/// dimension (rows cut first, then partial reduction into 4 vectors of
/// lanes), else, past kMaxWholeVectorIterations, register-sized tiles of
/// the last loop; none for a smaller op that fits no strategy.
RegisterTiling chooseRegisterTiling(mlir::linalg::LinalgOp op,
                                    const VectorIsa &isa);

} // namespace vmapc

#endif // VMAPC_PASSES_CODEGEN_TILESIZES_H
