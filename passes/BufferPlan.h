//===- BufferPlan.h - static arena planning of a function ------*- C++ -*-===//
//
// The buffer planner behind `--arr-plan-buffers` and `vmapc plan`.
//
// Input: one `func.func` of the bufferized program, in destination-passing
// style (no results; outputs are arguments marked `arr.output`), holding
// `memref.alloc`/`memref.alloca`s of static shape, linalg ops on memrefs,
// memref views and possibly `scf` loops.
//
// Algorithm
// ---------
// 1. Roots. Every view (anything implementing `ViewLikeOpInterface`) is
//    traced to its root: an allocation, or a function argument. Arguments
//    live outside the arena, except those marked `arr.staging`: the runtime
//    copies a padded or non-outermost chunk into a staging slot of the arena
//    and passes the slot instead of the user's buffer.
// 2. Live intervals. The schedule is the list of top-level ops of the
//    function body; point `i` is the i-th op. An access (any use that is not
//    a view or a dealloc) of any alias of a root (aliases from MLIR's
//    `BufferViewFlowAnalysis`, which also follows `scf` loop-carried values)
//    counts at its top-level ancestor. So a buffer used inside a loop is live
//    over the whole loop op, on every iteration. A buffer's interval is
//    [first access, last access] (closed). A staging input lives over
//    [0, last access], a staging `arr.output` over [first access, end], where
//    `end` is the function's terminator. An allocation that a dispatch marked
//    `sched.once_per_call` writes lives over [0, end]: the runtime writes it
//    in the first chunk only and every chunk reads it.
// 3. In place. A top-level `linalg::LinalgOp` with only parallel iterators
//    and a side-effect-free payload may write an output (init) over one of
//    its inputs when: both operands use the identity indexing map, have an
//    identity layout and cover their whole root allocation; both roots are
//    allocations (never arguments); the input's buffer has no access after
//    this op; the output's buffer has no access before it; element widths
//    and sizes match; the payload does not read the output; and no other
//    operand of the op reads the input's buffer through a non-identity map
//    or aliases the output's buffer. The output allocation then joins the
//    input's slot (same offset, one buffer for the lower bound).
//    A `sched.dispatch` whose kernel reads an output binding's contents and
//    writes them back (sched::readsOutput) updates that buffer in place; it
//    counts as an in-place write unless the op before it copies into the
//    buffer (bufferization copied the value, still read later, first).
// 4. Offsets. Every slot (in-place group or staging argument) gets an offset
//    aligned to `alignment` in one arena. Four greedy orders are tried and
//    the smallest arena kept (ties: the first below), as XLA's heap
//    simulator does with its alternatives (`ChooseBestHeapAlgorithm` over
//    `GlobalDecreasingSizeBestFitHeap`'s spatial and temporal orders):
//      - by size, descending: "greedy by size" with best fit from Pisarchyk
//        & Lee, "Efficient Memory Management for Deep Neural Net Inference",
//        2020 (arXiv:2001.03288), section 4.3, the strategy of TFLite's
//        arena planner;
//      - by the start of the live interval (first use first), as a
//        schedule-order allocator does;
//      - by conflict count, descending: the requests whose intervals overlap
//        the most others first (the most constrained first);
//      - by padding, ascending (the bytes a size lacks to a multiple of the
//        alignment): the request that would waste the most on padding comes
//        last, on top, where its padding costs nothing (with all requests
//        live at once this meets the aligned lower bound).
//    Ties in each order: larger first, then earlier start, then request
//    index. Each request in turn goes into the smallest gap, among
//    already-placed requests whose intervals overlap it, that fits (best
//    fit; the gap below the lowest of them counts, from offset 0); if none
//    fits, above all of them.
//    With `reuse` off, nothing shares bytes: no in-place writes, and every
//    slot gets its own aligned offset in row order (the checker's and the
//    bit-identity tests' baseline).
// 5. Rewrite. The function gets a last argument
//    `%arena: memref<ARENAxi8> {arr.arena}`; every allocation becomes
//    `memref.view %arena[%offset][]`; deallocs of planned buffers are erased;
//    staging arguments get `arr.staging_offset = N : i64`; the function gets
//    `arr.plan = #arr.plan<arena_bytes, lower_bound, naive_sum, in_place,
//    buffers, alignment, aligned_lower_bound>` (dialect/ArrAttrs.td).
//    The runtime must allocate the arena aligned to at least `alignment`
//    (the artifact records it).
//
// Figures: the lower bound is the largest sum of the exact sizes of slots
// live at one schedule point (alignment aside); the aligned lower bound is
// the least arena any placement at `alignment` can reach (see
// computeAlignedLowerBound); the naive sum adds the sizes of every
// allocation and staging slot, as if nothing were shared.
//
// Sizes: every byte count (a buffer, an offset, an offset + size, the
// arena, the lower bound, the naive sum) is computed with overflow-checked
// arithmetic and must stay below 2^62 (`kMaxBytes`, dialect/Limits.h, the
// runtime's kMaxArrayBytes); past it, planning fails with an error at the
// buffer's op (or the function). A buffer of 0 bytes (a shape with a 0
// dimension, from vmap with axis_size=0) is planned like any other.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_PASSES_BUFFERPLAN_H
#define VMAPC_PASSES_BUFFERPLAN_H

#include "dialect/Limits.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vmapc {

/// A closed interval [start, end] of schedule points (top-level op indices).
struct LiveInterval {
  int64_t start = 0;
  int64_t end = 0;
  bool overlaps(const LiveInterval &other) const {
    return start <= other.end && other.start <= end;
  }
  bool contains(int64_t point) const { return start <= point && point <= end; }
};

/// One request to the offset assigner: `bytes` live over `live`.
struct BufferRequest {
  int64_t bytes = 0;
  LiveInterval live;
};

/// The order in which the offset assigner places requests (BufferPlan.h,
/// step 4).
enum class PlacementOrder { BySize, ByStart, ByConflicts, ByPadding };
/// Every order, in the order assignOffsets tries them.
inline constexpr PlacementOrder kPlacementOrders[] = {
    PlacementOrder::BySize, PlacementOrder::ByStart,
    PlacementOrder::ByConflicts, PlacementOrder::ByPadding};
/// "size", "start", "conflicts", "padding".
const char *placementOrderName(PlacementOrder order);

/// Result of the offset assignment: one offset per request, in request order,
/// the arena size (the largest `offset + bytes`; 0 for no requests), in
/// bytes, and the order that placed them.
struct OffsetAssignment {
  std::vector<int64_t> offsets;
  int64_t arenaBytes = 0;
  PlacementOrder order = PlacementOrder::BySize;
};

/// Places `requests` greedily in `order`, each at the best-fitting gap:
/// pure, deterministic, O(n^2). Every offset is a multiple of `alignment`
/// (> 0). Requests whose intervals overlap get disjoint byte ranges.
/// Returns nullopt if `alignment` is not positive, a request's size is
/// negative or not below 2^62, or the arena would reach 2^62 bytes.
std::optional<OffsetAssignment>
assignOffsetsInOrder(llvm::ArrayRef<BufferRequest> requests, int64_t alignment,
                     PlacementOrder order);

/// assignOffsetsInOrder in every order of kPlacementOrders; the smallest
/// arena wins (on a tie, the earlier order).
std::optional<OffsetAssignment>
assignOffsets(llvm::ArrayRef<BufferRequest> requests, int64_t alignment);

/// assignOffsetsInOrder by size alone (Pisarchyk & Lee 2020, section 4.3).
std::optional<OffsetAssignment>
assignOffsetsGreedyBySize(llvm::ArrayRef<BufferRequest> requests,
                          int64_t alignment);

/// Every request its own bytes, in request order, each offset aligned: the
/// layout without reuse (BufferPlanOptions::reuse off).
std::optional<OffsetAssignment>
assignOffsetsWithoutReuse(llvm::ArrayRef<BufferRequest> requests,
                          int64_t alignment);

/// The largest sum of `bytes` over requests live at one schedule point: no
/// placement of these requests can use a smaller arena. Nullopt if a size is
/// negative or a sum reaches 2^62.
std::optional<int64_t>
computeLowerBound(llvm::ArrayRef<BufferRequest> requests);

/// The same bound for offsets that are multiples of `alignment` (> 0): at a
/// point where requests of sizes b_1..b_k are live, every one but the
/// highest spans at least b_i rounded up to `alignment` before the next
/// offset, so the arena holds at least sum(alignUp(b_i)) - max(alignUp(b_i)
/// - b_i); the largest of that over points. At least computeLowerBound;
/// equal to it for an alignment of 1. Nullopt as computeLowerBound, or for
/// an alignment that is not positive.
std::optional<int64_t>
computeAlignedLowerBound(llvm::ArrayRef<BufferRequest> requests,
                         int64_t alignment);

/// One row of the plan: an allocation or a staging argument.
struct PlannedBuffer {
  enum class Kind { Alloc, Staging };
  Kind kind = Kind::Alloc;
  /// `arr.name` of a staging argument (or `arg<N>`); `alloc<K>` for the K-th
  /// allocation of the function in walk order.
  std::string name;
  /// The type, the op that first writes (or accesses) it and its location.
  std::string description;
  /// The alloc result, or the staging block argument.
  mlir::Value root;
  int64_t bytes = 0;
  LiveInterval live;
  int64_t offset = 0;
  /// Index of the arena slot (in-place groups share one slot).
  int slot = -1;
  /// Row whose memory this buffer takes over in place (-1 if none).
  int inPlaceSource = -1;
  /// Dispatches that update this buffer in place: their kernel reads its
  /// contents and writes them back (a scatter's destination, a loop carry
  /// updated with `.at[]`), with no copy made for them.
  int updatesInPlace = 0;
  /// For the first buffer of a slot: the row that last occupied bytes
  /// overlapping this buffer's before it became live (-1 if fresh memory).
  int reusedFrom = -1;
};

/// A whole-function plan: rows in order (staging arguments in argument
/// order, then allocations in walk order) and the figures.
struct BufferPlan {
  std::vector<PlannedBuffer> buffers;
  /// Alignment of every offset: the requested one, raised to a multiple of
  /// any `alignment` attribute of an allocation.
  int64_t alignment = 64;
  int64_t arenaBytes = 0;
  /// The exact lower bound (computeLowerBound) and the one at `alignment`
  /// (computeAlignedLowerBound).
  int64_t lowerBound = 0;
  int64_t alignedLowerBound = 0;
  /// The order that gave the smallest arena; meaningless when `reuse` is
  /// off.
  PlacementOrder order = PlacementOrder::BySize;
  /// Whether buffers share bytes (BufferPlanOptions::reuse).
  bool reuse = true;
  int64_t naiveSum = 0;
  /// Number of in-place writes: allocations merged into an input's slot,
  /// and dispatches that update a buffer in place.
  int64_t inPlace = 0;
  int64_t numSlots = 0;
  /// Bytes of the outputs that take a donated input's bytes (`donate=`): per
  /// chunk, memory neither the caller nor the arena holds twice.
  int64_t donatedBytes = 0;
  /// Number of schedule points (top-level ops of the body).
  int64_t scheduleLength = 0;
};

/// The default alignment per target: a cache line on the CPU (a 64-byte
/// vector load never splits one), 256 bytes on CUDA (cudaMalloc's, and the
/// rule of thumb for coalesced accesses).
inline constexpr int64_t kCpuArenaAlignment = 64;
inline constexpr int64_t kCudaArenaAlignment = 256;

/// Whether `alignment` is a valid arena alignment: a power of two from 1 to
/// kMaxArenaAlignmentBytes. Otherwise `why` (if given) says what is wrong.
bool isValidArenaAlignment(int64_t alignment, std::string *why = nullptr);

struct BufferPlanOptions {
  /// Alignment of every offset, in bytes: a power of two from 1 to
  /// kMaxArenaAlignmentBytes.
  int64_t alignment = kCpuArenaAlignment;
  /// With false, planning is off: no buffer shares bytes with another (no
  /// in-place writes, no reuse over time); each gets its own offset.
  bool reuse = true;
};

/// Computes the plan of `func` without changing it. Emits an error on `func`
/// (or the offending op) and fails on what cannot be planned: several
/// blocks, dynamic shapes, allocations other than `memref.alloc`/`alloca`,
/// buffers that escape through a return.
mlir::FailureOr<BufferPlan>
computeBufferPlan(mlir::func::FuncOp func,
                  const BufferPlanOptions &options = {});

/// Rewrites `func` by `plan` (computed on this very function): adds the arena
/// argument, turns allocations into views, erases their deallocs and writes
/// `arr.staging_offset` and `arr.plan`. Fails if any allocation (an op with
/// an `Allocate` effect, or a call of malloc and friends) remains.
mlir::LogicalResult applyBufferPlan(mlir::func::FuncOp func,
                                    const BufferPlan &plan);

} // namespace vmapc

#endif // VMAPC_PASSES_BUFFERPLAN_H
