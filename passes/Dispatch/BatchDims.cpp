//===- BatchDims.cpp - where the batch dimension of each value sits -------===//

#include "passes/Dispatch/BatchDims.h"
#include "dialect/ArrDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace vmapc;

namespace {
/// The transfer functions. A value missing from `dims` is unbatched.
class Analysis {
public:
  llvm::DenseMap<Value, int64_t> &dims;
  llvm::DenseMap<Operation *, int64_t> &loops;
  Operation *conflict = nullptr;

  std::optional<int64_t> get(Value v) const {
    auto it = dims.find(v);
    if (it == dims.end())
      return std::nullopt;
    return it->second;
  }
  void set(Value v, std::optional<int64_t> dim, Operation *op) {
    if (!dim)
      return;
    auto [it, inserted] = dims.try_emplace(v, *dim);
    if (!inserted && it->second != *dim)
      fail(op);
  }
  void fail(Operation *op) {
    if (!conflict)
      conflict = op;
  }

  void visitBlock(Block &block) {
    for (Operation &op : block) {
      if (conflict)
        return;
      visit(&op);
    }
  }

  void visit(Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      return visitLinalg(linalgOp);
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(op))
      return visitExtractSlice(slice);
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(op))
      return visitInsertSlice(insert);
    if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(op))
      return visitCollapse(collapse);
    if (auto expand = dyn_cast<tensor::ExpandShapeOp>(op))
      return visitExpand(expand);
    if (auto concat = dyn_cast<tensor::ConcatOp>(op)) {
      std::optional<int64_t> dim;
      for (Value input : concat.getInputs())
        if (auto d = get(input)) {
          if (dim && *dim != *d)
            return fail(op);
          dim = d;
        }
      if (dim && int64_t(concat.getDim()) == *dim)
        return fail(op);
      return set(concat.getResult(), dim, op);
    }
    if (auto cast = dyn_cast<tensor::CastOp>(op))
      return set(cast.getResult(), get(cast.getSource()), op);
    if (auto materialize =
            dyn_cast<bufferization::MaterializeInDestinationOp>(op)) {
      // The result is the source's value in the destination's buffer (of
      // the same shape): an unbatched destination (a carry's zeros) takes
      // the batched source's dimension; two different ones conflict.
      std::optional<int64_t> dest = get(materialize.getDest());
      std::optional<int64_t> source = get(materialize.getSource());
      if (source && dest && dest != source)
        return fail(op);
      if (materialize.getResult())
        set(materialize.getResult(), source ? source : dest, op);
      return;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op))
      return visitFor(loop);
    // Ops that make values out of nothing batched: constants, empties,
    // scalars (the loop index as a tensor), terminators.
    bool batchedOperand = llvm::any_of(
        op->getOperands(), [&](Value v) { return get(v).has_value(); });
    bool tensorResult = llvm::any_of(
        op->getResultTypes(), [](Type t) { return isa<RankedTensorType>(t); });
    if (batchedOperand && tensorResult)
      fail(op);
  }

  void visitLinalg(linalg::LinalgOp op) {
    std::optional<int64_t> loop;
    for (OpOperand &operand : op->getOpOperands()) {
      std::optional<int64_t> dim = get(operand.get());
      if (!dim)
        continue;
      AffineMap map = op.getMatchingIndexingMap(&operand);
      auto expr = dyn_cast<AffineDimExpr>(map.getResult(*dim));
      if (!expr || (loop && *loop != int64_t(expr.getPosition())))
        return fail(op);
      loop = expr.getPosition();
    }
    if (!loop)
      return;
    if (op.getIteratorTypesArray()[*loop] != utils::IteratorType::parallel)
      return fail(op);
    loops[op] = *loop;
    for (OpResult result : op->getResults()) {
      AffineMap map = op.getIndexingMapMatchingResult(result);
      std::optional<unsigned> pos =
          map.getResultPosition(getAffineDimExpr(*loop, op->getContext()));
      if (!pos)
        return fail(op);
      set(result, *pos, op);
    }
  }

  void visitExtractSlice(tensor::ExtractSliceOp op) {
    std::optional<int64_t> dim = get(op.getSource());
    if (!dim)
      return;
    int64_t size = op.getSourceType().getDimSize(*dim);
    if (!op.isDynamicOffset(*dim) && op.getStaticOffset(*dim) == 0 &&
        !op.isDynamicSize(*dim) && op.getStaticSize(*dim) == size &&
        !op.isDynamicStride(*dim) && op.getStaticStride(*dim) == 1) {
      llvm::SmallBitVector dropped = op.getDroppedDims();
      if (dropped.test(*dim))
        return fail(op);
      int64_t pos = *dim;
      for (int64_t i = 0; i < *dim; ++i)
        pos -= dropped.test(i);
      return set(op.getResult(), pos, op);
    }
    fail(op);
  }

  void visitInsertSlice(tensor::InsertSliceOp op) {
    std::optional<int64_t> dest = get(op.getDest());
    std::optional<int64_t> source = get(op.getSource());
    std::optional<int64_t> dim = dest;
    if (source) {
      // The source's batch dimension, in the destination's dimensions.
      llvm::SmallBitVector dropped = op.getDroppedDims();
      int64_t pos = -1;
      for (int64_t i = 0, seen = 0; i < op.getDestType().getRank(); ++i) {
        if (dropped.test(i))
          continue;
        if (seen++ == *source)
          pos = i;
      }
      if (pos < 0 || (dest && *dest != pos))
        return fail(op);
      int64_t size = op.getDestType().getDimSize(pos);
      if (op.isDynamicOffset(pos) || op.getStaticOffset(pos) != 0 ||
          op.isDynamicSize(pos) || op.getStaticSize(pos) != size)
        return fail(op);
      dim = pos;
    } else if (dest) {
      // An unbatched piece written into a batched tensor must cover no
      // batch lane partially.
      if (!op.getDroppedDims().test(*dest) &&
          op.getStaticSize(*dest) != op.getDestType().getDimSize(*dest))
        return fail(op);
    }
    set(op.getResult(), dim, op);
  }

  void visitCollapse(tensor::CollapseShapeOp op) {
    std::optional<int64_t> dim = get(op.getSrc());
    if (!dim)
      return;
    for (auto [group, indices] :
         llvm::enumerate(op.getReassociationIndices())) {
      if (!llvm::is_contained(indices, *dim))
        continue;
      for (int64_t i : indices)
        if (i != *dim && op.getSrcType().getDimSize(i) != 1)
          return fail(op);
      return set(op.getResult(), group, op);
    }
    fail(op);
  }

  void visitExpand(tensor::ExpandShapeOp op) {
    std::optional<int64_t> dim = get(op.getSrc());
    if (!dim)
      return;
    ReassociationIndices group = op.getReassociationIndices()[*dim];
    std::optional<int64_t> pos;
    for (int64_t i : group) {
      if (op.getResultType().getDimSize(i) == 1)
        continue;
      if (pos)
        return fail(op);
      pos = i;
    }
    if (!pos)
      pos = group.front();
    set(op.getResult(), *pos, op);
  }

  void visitFor(scf::ForOp loop) {
    // Carries: the init's batch dimension, joined with what the body yields,
    // until no value gains a batch dimension (entries are only ever added).
    for (int iteration = 0; iteration < 64 && !conflict; ++iteration) {
      size_t known = dims.size();
      for (auto [init, arg] :
           llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
        set(arg, get(init), loop);
      visitBlock(*loop.getBody());
      auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
      for (auto [value, arg] :
           llvm::zip(yield.getOperands(), loop.getRegionIterArgs()))
        set(arg, get(value), loop);
      if (dims.size() == known)
        break;
    }
    for (auto [arg, result] :
         llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
      set(result, get(arg), loop);
  }
};
} // namespace

BatchDims BatchDims::analyze(func::FuncOp entry) {
  BatchDims result;
  Analysis analysis{result.dims, result.loops};
  // Inputs from `arr.in_axes`; output arguments (`arr.output`, added by
  // `--arr-outputs-to-destinations`) from `arr.out_axes`.
  auto inAxes =
      entry->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kInAxesAttrName);
  auto outAxes =
      entry->getAttrOfType<ArrayAttr>(vmapc::arr::ArrDialect::kOutAxesAttrName);
  size_t numInputs = 0, numOutputs = 0;
  for (BlockArgument arg : entry.getArguments()) {
    bool isOutput =
        entry.getArgAttr(arg.getArgNumber(),
                         vmapc::arr::ArrDialect::kOutputAttrName) != nullptr;
    ArrayAttr axes = isOutput ? outAxes : inAxes;
    size_t index = isOutput ? numOutputs++ : numInputs++;
    if (!axes || index >= axes.size())
      continue;
    if (auto dim = dyn_cast<IntegerAttr>(axes[index]))
      analysis.set(arg, dim.getInt(), entry);
  }
  analysis.visitBlock(entry.getBody().front());
  result.conflictOp = analysis.conflict;
  return result;
}

std::optional<int64_t> BatchDims::dimOf(Value value) const {
  if (conflictOp)
    return std::nullopt;
  auto it = dims.find(value);
  return it == dims.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

std::optional<int64_t> BatchDims::loopOf(Operation *op) const {
  if (conflictOp)
    return std::nullopt;
  auto it = loops.find(op);
  return it == loops.end() ? std::nullopt : std::optional<int64_t>(it->second);
}
