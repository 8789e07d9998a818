//===- FuseSiblings.cpp - --arr-fuse-siblings -----------------------------===//
//
// Sibling (multi-output) fusion of elementwise linalg.generic ops: ops of one
// block that read a common tensor over the same static iteration space, and
// do not depend on one another, become one generic with the results of all
// of them. The common input is read once per point instead of once per op,
// and N small kernels become one: a function returning a tuple of 1600
// `x + k` was 1600 kernels of 16 elements, each tiled, vectorized and
// compiled by LLVM for three ISA levels (72 s of CPU); fused, it is 26
// kernels (15 s). This is XLA's sibling multi-output fusion (consumers of a
// common operand), bounded as elementwise fusion is: a fused payload holds
// at most `max-payload-ops` ops, and a fused op has at most `max-operands`
// inputs and outputs (each a binding of its kernel; the kernel pipeline
// takes time superlinear in them: 7 kernels of 255 outputs took 2.5 times
// as long as 26 of 63).
//
// Which ops fuse. A candidate is a linalg.generic on tensors whose loops are
// all parallel with static bounds, whose payload reads no output operand
// (each `outs` only gives a shape, usually a tensor.empty) and has no memory
// effects, and whose results are not inserted into a larger tensor
// (bufferization writes those in place; see isCandidate). Candidates that
// share an input value are siblings (transitively: union-find over inputs).
//
// Where the fused op goes. Siblings with the same loop bounds are taken in
// block order into groups. The fused op sits either at the group's first
// member (hoisting the others: everything they use must be defined before
// it) or at its last (sinking the others: nothing may use their results
// before it); an op joins the current group while one of the two stays
// possible, else it starts a new group. Either way no member uses another's
// result: it would be defined after the first member and used before the
// last.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRFUSESIBLINGS
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// Ops in the payload of `op`, its terminator included.
size_t payloadOps(linalg::GenericOp op) {
  return op.getBody()->getOperations().size();
}

/// Whether `op` may fuse with siblings (see the file comment).
bool isCandidate(linalg::GenericOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumReductionLoops() != 0 ||
      op.getNumParallelLoops() != op.getNumLoops())
    return false;
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (op.payloadUsesValueFromOperand(&init))
      return false;
    if (!cast<RankedTensorType>(init.get().getType()).hasStaticShape())
      return false;
  }
  // A result inserted into a larger tensor is written in place into it by
  // bufferization (empty-tensor elimination), which needs the destination
  // to be defined before the op; fused earlier, it would get a buffer of
  // its own and a copy.
  for (Operation *user : op->getUsers())
    if (isa<tensor::InsertSliceOp>(user))
      return false;
  return llvm::all_of(op.getBody()->getOperations(), [](Operation &nested) {
    return isMemoryEffectFree(&nested);
  });
}

/// Whether every value `op` uses is defined before `point`, except `outs`
/// made by tensor.empty, which the fused op makes anew.
bool canMoveTo(linalg::GenericOp op, Operation *point,
               DominanceInfo &dominance) {
  auto available = [&](Value value) {
    return dominance.properlyDominates(value, point);
  };
  if (!llvm::all_of(op.getDpsInputs(), available))
    return false;
  for (Value init : op.getDpsInits())
    if (!init.getDefiningOp<tensor::EmptyOp>() && !available(init))
      return false;
  llvm::SetVector<Value> captured;
  getUsedValuesDefinedAbove(op.getRegion(), captured);
  return llvm::all_of(captured, available);
}

/// Replaces `group` (at least two ops) by one generic at `point`, one of
/// its members: the inputs of all members (each (value, indexing map) pair
/// once), then the outputs of each member in turn, and a payload that is the
/// members' payloads one after another. Outputs made by tensor.empty are
/// made anew at `point`.
void fuseGroup(ArrayRef<linalg::GenericOp> group, linalg::GenericOp point) {
  OpBuilder b(point);
  Location loc = b.getFusedLoc(llvm::to_vector(llvm::map_range(
      group, [](linalg::GenericOp op) { return op.getLoc(); })));

  // Inputs, deduplicated by value and indexing map.
  SmallVector<Value> inputs;
  SmallVector<AffineMap> inputMaps;
  DenseMap<std::pair<Value, AffineMap>, unsigned> inputIndex;
  SmallVector<Value> inits;
  SmallVector<AffineMap> initMaps;
  SmallVector<Type> resultTypes;
  llvm::SetVector<Operation *> oldEmpties;
  for (linalg::GenericOp op : group) {
    for (OpOperand *input : op.getDpsInputOperands()) {
      AffineMap map = op.getMatchingIndexingMap(input);
      if (inputIndex.insert({{input->get(), map}, unsigned(inputs.size())})
              .second) {
        inputs.push_back(input->get());
        inputMaps.push_back(map);
      }
    }
    for (OpOperand &init : op.getDpsInitsMutable()) {
      Value value = init.get();
      if (auto empty = value.getDefiningOp<tensor::EmptyOp>()) {
        oldEmpties.insert(empty);
        value = tensor::EmptyOp::create(b, empty.getLoc(),
                                        cast<RankedTensorType>(empty.getType()),
                                        ValueRange{});
      }
      inits.push_back(value);
      initMaps.push_back(op.getMatchingIndexingMap(&init));
    }
    llvm::append_range(resultTypes, op.getResultTypes());
  }
  SmallVector<AffineMap> maps(inputMaps);
  llvm::append_range(maps, initMaps);

  auto fused = linalg::GenericOp::create(b, loc, resultTypes, inputs, inits,
                                         maps, point.getIteratorTypesArray());
  Block *body = b.createBlock(&fused.getRegion());
  for (Value input : inputs)
    body->addArgument(getElementTypeOrSelf(input.getType()), loc);
  for (Value init : inits)
    body->addArgument(getElementTypeOrSelf(init.getType()), loc);

  // Each member's payload, its block arguments mapped to the fused op's.
  b.setInsertionPointToEnd(body);
  SmallVector<Value> yielded;
  unsigned nextInit = inputs.size();
  for (linalg::GenericOp op : group) {
    IRMapping mapping;
    for (OpOperand *input : op.getDpsInputOperands())
      mapping.map(op.getMatchingBlockArgument(input),
                  body->getArgument(inputIndex.lookup(
                      {input->get(), op.getMatchingIndexingMap(input)})));
    for (OpOperand &init : op.getDpsInitsMutable())
      mapping.map(op.getMatchingBlockArgument(&init),
                  body->getArgument(nextInit++));
    for (Operation &nested : op.getBody()->without_terminator())
      b.clone(nested, mapping);
    for (Value value : op.getBody()->getTerminator()->getOperands())
      yielded.push_back(mapping.lookupOrDefault(value));
  }
  linalg::YieldOp::create(b, loc, yielded);

  unsigned nextResult = 0;
  for (linalg::GenericOp op : group) {
    op->replaceAllUsesWith(
        fused->getResults().slice(nextResult, op->getNumResults()));
    nextResult += op->getNumResults();
    op->erase();
  }
  for (Operation *empty : oldEmpties)
    if (empty->use_empty())
      empty->erase();
}

/// A group of siblings being formed, and where its fused op may go.
struct Group {
  SmallVector<linalg::GenericOp> members;
  /// Payload ops of the fused op so far (one yield for all).
  size_t payload = 1;
  /// Whether the fused op may sit at the first member (everything the
  /// members use is defined before it) or at the last (no result of a
  /// member is used before it).
  bool atFirst = true, atLast = true;
  /// The first op of the block that uses a result of a member.
  unsigned firstUse = std::numeric_limits<unsigned>::max();
  /// The fused op's inputs (each value and indexing map once) and outputs.
  llvm::DenseSet<std::pair<Value, AffineMap>> inputs;
  size_t outputs = 0;

  /// Operands of the fused op if `op` joined.
  size_t operandsWith(linalg::GenericOp op) const {
    size_t count = inputs.size() + outputs + op.getNumDpsInits();
    for (OpOperand *input : op.getDpsInputOperands())
      count +=
          !inputs.contains({input->get(), op.getMatchingIndexingMap(input)});
    return count;
  }
  void add(linalg::GenericOp op) {
    members.push_back(op);
    // The op's payload joins the group's, one yield for both.
    payload += payloadOps(op) - 1;
    for (OpOperand *input : op.getDpsInputOperands())
      inputs.insert({input->get(), op.getMatchingIndexingMap(input)});
    outputs += op.getNumDpsInits();
  }
};

struct ArrFuseSiblingsPass
    : vmapc::impl::ArrFuseSiblingsBase<ArrFuseSiblingsPass> {
  using ArrFuseSiblingsBase::ArrFuseSiblingsBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Linalg,
                                 vmapc::Stage::Dispatched)))
      return signalPassFailure();
    // All groups are chosen before any is rewritten, so that block order and
    // dominance are computed once.
    DominanceInfo dominance(getOperation());
    SmallVector<Group> groups;
    getOperation()->walk(
        [&](Block *block) { findGroups(*block, dominance, groups); });
    for (Group &group : groups)
      fuseGroup(group.members,
                group.atFirst ? group.members.front() : group.members.back());
  }

  /// Appends to `groups` the groups of two or more siblings in `block`.
  void findGroups(Block &block, DominanceInfo &dominance,
                  SmallVector<Group> &groups) {
    SmallVector<linalg::GenericOp> candidates;
    for (auto op : block.getOps<linalg::GenericOp>())
      if (isCandidate(op) && payloadOps(op) < maxPayloadOps)
        candidates.push_back(op);
    if (candidates.size() < 2)
      return;

    // Siblings: candidates joined through the inputs they share.
    llvm::EquivalenceClasses<unsigned> siblings;
    DenseMap<Value, unsigned> firstReader;
    for (auto [index, op] : llvm::enumerate(candidates)) {
      siblings.insert(index);
      for (Value input : op.getDpsInputs()) {
        auto [it, inserted] = firstReader.insert({input, index});
        if (!inserted)
          siblings.unionSets(it->second, index);
      }
    }

    // Positions in the block, and the first op that uses a result of each
    // candidate (an op nested in a later op counts at that op).
    DenseMap<Operation *, unsigned> position;
    for (auto [index, op] : llvm::enumerate(block))
      position[&op] = index;
    auto firstUse = [&](linalg::GenericOp op) {
      unsigned first = std::numeric_limits<unsigned>::max();
      for (Operation *user : op->getUsers())
        if (Operation *ancestor = block.findAncestorOpInBlock(*user))
          first = std::min(first, position.lookup(ancestor));
      return first;
    };

    // Open groups by (sibling class, loop bounds), in block order.
    std::map<std::pair<unsigned, SmallVector<int64_t>>, Group> open;
    auto close = [&](Group &group) {
      if (group.members.size() > 1)
        groups.push_back(std::move(group));
      group = Group();
    };
    for (auto [index, op] : llvm::enumerate(candidates)) {
      Group &group =
          open[{siblings.getLeaderValue(index), op.getStaticLoopRanges()}];
      if (!group.members.empty()) {
        bool atFirst =
            group.atFirst && canMoveTo(op, group.members.front(), dominance);
        bool atLast = group.atLast && group.firstUse > position.lookup(op);
        if (group.payload + payloadOps(op) - 1 > maxPayloadOps ||
            group.operandsWith(op) > maxOperands || (!atFirst && !atLast))
          close(group);
        else {
          group.atFirst = atFirst;
          group.atLast = atLast;
        }
      }
      group.add(op);
      group.firstUse = std::min(group.firstUse, firstUse(op));
    }
    for (auto &entry : open)
      close(entry.second);
  }
};

} // namespace
