//===- BatchingRules.cpp - one batching rule per op -----------------------===//
//
// The batching rules of the arr ops, after JAX's rule table
// (jax/_src/interpreters/batching.py, jax/_src/lax/lax.py). Families share one
// rule (batchElementwise, batchReducer); shape ops and dot_general have their
// own. An unbatched operand is never copied B times: it is either left
// unbatched (dot_general) or given a batch dimension by `arr.broadcast_in_dim`,
// which lowers to an indexing map. A rule rebuilds the op on batched operands
// and lets its type rule (TypeInference.h) infer the batched result types, as
// JAX re-binds the primitive; only an op whose result type is part of the op
// (a broadcast's or reshape's shape, a slice's sizes, a conversion's dtype)
// gets its per-example result type with the batch dimension inserted.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace vmapc::arr;

//===----------------------------------------------------------------------===//
// Shared helpers
//===----------------------------------------------------------------------===//

RankedTensorType vmapc::arr::insertDim(RankedTensorType type, int64_t dim,
                                       int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + dim, size);
  return RankedTensorType::get(shape, type.getElementType());
}

Value vmapc::arr::moveBatchDim(OpBuilder &b, Location loc, Value value,
                               int64_t from, int64_t to) {
  if (from == to)
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (d != from)
      perm.push_back(d);
  perm.insert(perm.begin() + to, from);
  return TransposeOp::create(b, loc, value, b.getDenseI64ArrayAttr(perm));
}

Value vmapc::arr::broadcastBatchDim(OpBuilder &b, Location loc, Value value,
                                    int64_t dim, int64_t batchSize) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> dims;
  for (int64_t d = 0; d < type.getRank(); ++d)
    dims.push_back(d < dim ? d : d + 1);
  return BroadcastInDimOp::create(b, loc, insertDim(type, dim, batchSize),
                                  value, b.getDenseI64ArrayAttr(dims));
}

Value vmapc::arr::toBatchDim(OpBuilder &b, Location loc, Value value,
                             BatchDim dim, int64_t to, int64_t batchSize) {
  return dim ? moveBatchDim(b, loc, value, *dim, to)
             : broadcastBatchDim(b, loc, value, to, batchSize);
}

int64_t vmapc::arr::firstBatchDim(ArrayRef<BatchDim> dims) {
  return **llvm::find_if(dims, [](BatchDim d) { return d.has_value(); });
}

/// Rebuilds `op` on `operands` with `attrs` (JAX's `prim.bind`). An op with
/// InferTypeOpInterface gets the result types its type rule infers; any other
/// its per-example result types with a dimension of `batchSize` inserted at
/// `dim`. Fails, with the type rule's error at the op, when the batched
/// operands do not fit the rule (a bug in a batching rule).
static FailureOr<Operation *> rebind(OpBuilder &b, Operation *op,
                                     ValueRange operands,
                                     ArrayRef<NamedAttribute> attrs,
                                     int64_t dim, int64_t batchSize) {
  OperationState state(op->getLoc(), op->getName());
  state.addOperands(operands);
  state.addAttributes(attrs);
  bool inferred = op->getName().hasInterface<InferTypeOpInterface>();
  for (Type t : op->getResultTypes())
    state.addTypes(
        inferred ? t : insertDim(cast<RankedTensorType>(t), dim, batchSize));
  Operation *rebuilt = b.create(state);
  if (!inferred)
    return rebuilt;
  // The rule reads the operands and the properties of the op just built.
  SmallVector<Type> types;
  if (failed(cast<InferTypeOpInterface>(rebuilt).inferReturnTypes(
          rebuilt->getContext(), rebuilt->getLoc(), rebuilt->getOperands(),
          rebuilt->getRawDictionaryAttrs(), rebuilt->getPropertiesStorage(),
          rebuilt->getRegions(), types))) {
    rebuilt->erase();
    return failure();
  }
  for (auto [result, type] : llvm::zip_equal(rebuilt->getResults(), types))
    result.setType(type);
  return rebuilt;
}

static bool elementwiseRuleBroken = false;

void vmapc::arr::testing::setBreakElementwiseRule(bool broken) {
  elementwiseRuleBroken = broken;
}

bool vmapc::arr::testing::isElementwiseRuleBroken() {
  return elementwiseRuleBroken;
}

//===----------------------------------------------------------------------===//
// Families
//===----------------------------------------------------------------------===//

LogicalResult
vmapc::arr::batchElementwise(Operation *op, BatchingContext &ctx,
                             ValueRange operands, ArrayRef<BatchDim> dims,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  // The first batched operand decides where the batch dimension goes.
  int64_t dim = firstBatchDim(dims);
  SmallVector<Value> newOperands;
  for (auto [v, d] : llvm::zip(operands, dims)) {
    Value aligned = toBatchDim(b, op->getLoc(), v, d, dim, ctx.getBatchSize());
    if (testing::isElementwiseRuleBroken() && d && aligned != v)
      aligned = ReshapeOp::create(b, op->getLoc(), aligned.getType(), v);
    newOperands.push_back(aligned);
  }
  FailureOr<Operation *> batched =
      rebind(b, op, newOperands, op->getAttrs(), dim, ctx.getBatchSize());
  if (failed(batched))
    return failure();
  for (Value r : (*batched)->getResults()) {
    results.push_back(r);
    resultDims.push_back(dim);
  }
  return success();
}

LogicalResult vmapc::arr::batchReducer(Operation *op, BatchingContext &ctx,
                                       ValueRange operands,
                                       ArrayRef<BatchDim> dims,
                                       SmallVectorImpl<Value> &results,
                                       SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  Value operand = moveBatchDim(b, op->getLoc(), operands[0], *dims[0], 0);
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute attr : op->getAttrs()) {
    if (auto list = dyn_cast<DenseI64ArrayAttr>(attr.getValue())) {
      auto shifted = llvm::map_to_vector(list.asArrayRef(),
                                         [](int64_t d) { return d + 1; });
      attrs.emplace_back(attr.getName(), b.getDenseI64ArrayAttr(shifted));
    } else if (auto axis = dyn_cast<IntegerAttr>(attr.getValue());
               axis && attr.getName() == "axis") {
      attrs.emplace_back(attr.getName(),
                         b.getI64IntegerAttr(axis.getInt() + 1));
    } else {
      attrs.push_back(attr);
    }
  }
  FailureOr<Operation *> batched =
      rebind(b, op, operand, attrs, 0, ctx.getBatchSize());
  if (failed(batched))
    return failure();
  results.push_back((*batched)->getResult(0));
  resultDims.push_back(0);
  return success();
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::batch(BatchingContext &ctx, ValueRange operands,
                                      ArrayRef<BatchDim> dims,
                                      SmallVectorImpl<Value> &results,
                                      SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  Value operand = moveBatchDim(b, getLoc(), operands[0], *dims[0], 0);
  SmallVector<int64_t> newDims{0};
  for (int64_t d : getDims())
    newDims.push_back(d + 1);
  results.push_back(BroadcastInDimOp::create(
      b, getLoc(), insertDim(getType(), 0, ctx.getBatchSize()), operand,
      b.getDenseI64ArrayAttr(newDims)));
  resultDims.push_back(0);
  return success();
}

LogicalResult TransposeOp::batch(BatchingContext &ctx, ValueRange operands,
                                 ArrayRef<BatchDim> dims,
                                 SmallVectorImpl<Value> &results,
                                 SmallVectorImpl<BatchDim> &resultDims) {
  // The batch dimension goes first; per-example dimension p of the operand
  // sits at p or p + 1 depending on where the batch dimension is.
  int64_t bd = *dims[0];
  SmallVector<int64_t> perm{bd};
  for (int64_t p : getPerm())
    perm.push_back(p < bd ? p : p + 1);
  OpBuilder &b = ctx.getBuilder();
  results.push_back(TransposeOp::create(b, getLoc(), operands[0],
                                        b.getDenseI64ArrayAttr(perm)));
  resultDims.push_back(0);
  return success();
}

LogicalResult ReshapeOp::batch(BatchingContext &ctx, ValueRange operands,
                               ArrayRef<BatchDim> dims,
                               SmallVectorImpl<Value> &results,
                               SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  Value operand = moveBatchDim(b, getLoc(), operands[0], *dims[0], 0);
  results.push_back(ReshapeOp::create(
      b, getLoc(), insertDim(getType(), 0, ctx.getBatchSize()), operand));
  resultDims.push_back(0);
  return success();
}

LogicalResult ConcatOp::batch(BatchingContext &ctx, ValueRange operands,
                              ArrayRef<BatchDim> dims,
                              SmallVectorImpl<Value> &results,
                              SmallVectorImpl<BatchDim> &resultDims) {
  // The first batched piece decides where the batch dimension goes; the
  // others are moved there, unbatched pieces are read through a map.
  OpBuilder &b = ctx.getBuilder();
  int64_t bd = firstBatchDim(dims);
  SmallVector<Value> pieces;
  for (auto [v, d] : llvm::zip(operands, dims))
    pieces.push_back(toBatchDim(b, getLoc(), v, d, bd, ctx.getBatchSize()));
  int64_t oldDim = getDimAttr().getInt();
  int64_t dim = oldDim < bd ? oldDim : oldDim + 1;
  results.push_back(
      ConcatOp::create(b, getLoc(), pieces, b.getI64IntegerAttr(dim)));
  resultDims.push_back(bd);
  return success();
}

LogicalResult SliceOp::batch(BatchingContext &ctx, ValueRange operands,
                             ArrayRef<BatchDim> dims,
                             SmallVectorImpl<Value> &results,
                             SmallVectorImpl<BatchDim> &resultDims) {
  // The batch dimension stays where it is, sliced whole.
  int64_t bd = *dims[0];
  SmallVector<int64_t> start(getStart()), stride(getStride());
  start.insert(start.begin() + bd, 0);
  stride.insert(stride.begin() + bd, 1);
  OpBuilder &b = ctx.getBuilder();
  results.push_back(SliceOp::create(
      b, getLoc(), insertDim(getType(), bd, ctx.getBatchSize()), operands[0],
      b.getDenseI64ArrayAttr(start), b.getDenseI64ArrayAttr(stride)));
  resultDims.push_back(bd);
  return success();
}

//===----------------------------------------------------------------------===//
// Gather and scatter: JAX's `_gather_batching_rule` and
// `_scatter_batching_rule` (jax/_src/lax/slicing.py), with batch_dims in the
// place of JAX's operand_batching_dims.
//===----------------------------------------------------------------------===//

LogicalResult GatherOp::batch(BatchingContext &ctx, ValueRange operands,
                              ArrayRef<BatchDim> dims,
                              SmallVectorImpl<Value> &results,
                              SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = getLoc();
  Value operand = operands[0], indices = operands[1];
  int64_t n = getBatchDims(), axis = getAxis();
  int64_t indexDims = getIndices().getType().getRank() - n;
  if (dims[0] && dims[1]) {
    // Each example reads its own operand: one more leading batch dimension.
    operand = moveBatchDim(b, loc, operand, *dims[0], 0);
    indices = moveBatchDim(b, loc, indices, *dims[1], 0);
    results.push_back(
        GatherOp::create(b, loc, operand, indices, axis + 1, n + 1, getMode()));
    resultDims.push_back(0);
    return success();
  }
  if (dims[0]) {
    // Unbatched indices: the batch dimension is one more operand dimension
    // (outside the leading batch dimensions, which the indices share).
    int64_t d = *dims[0];
    if (d < n) {
      operand = moveBatchDim(b, loc, operand, d, n);
      d = n;
    }
    int64_t newAxis = d <= axis ? axis + 1 : axis;
    results.push_back(
        GatherOp::create(b, loc, operand, indices, newAxis, n, getMode()));
    // Operand dimensions after the axis shift by the index dimensions.
    resultDims.push_back(d < newAxis ? d : d - 1 + indexDims);
    return success();
  }
  // Batched indices into the one shared operand: the batch dimension is an
  // index dimension; the operand is read in place, never copied B times.
  int64_t e = *dims[1];
  if (e < n) {
    indices = moveBatchDim(b, loc, indices, e, n);
    e = n;
  }
  results.push_back(
      GatherOp::create(b, loc, operand, indices, axis, n, getMode()));
  resultDims.push_back(axis + (e - n));
  return success();
}

LogicalResult ScatterOp::batch(BatchingContext &ctx, ValueRange operands,
                               ArrayRef<BatchDim> dims,
                               SmallVectorImpl<Value> &results,
                               SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = getLoc();
  int64_t batchSize = ctx.getBatchSize();
  int64_t n = getBatchDims(), axis = getAxis();
  // Every example updates its own operand: an unbatched operand is
  // broadcast to B copies (the scatter's destination, written once).
  if (dims[1]) {
    // Batched indices: one more leading batch dimension for all three.
    Value operand = toBatchDim(b, loc, operands[0], dims[0], 0, batchSize);
    Value indices = moveBatchDim(b, loc, operands[1], *dims[1], 0);
    Value updates = toBatchDim(b, loc, operands[2], dims[2], 0, batchSize);
    results.push_back(ScatterOp::create(b, loc, operand, indices, updates,
                                        axis + 1, n + 1, getKind()));
    resultDims.push_back(0);
    return success();
  }
  // Unbatched indices: the batch dimension is an ordinary dimension of the
  // operand and the updates, right after the leading batch dimensions.
  Value operand = toBatchDim(b, loc, operands[0], dims[0], n, batchSize);
  Value updates = toBatchDim(b, loc, operands[2], dims[2], n, batchSize);
  results.push_back(ScatterOp::create(b, loc, operand, operands[1], updates,
                                      axis + 1, n, getKind()));
  resultDims.push_back(n);
  return success();
}

//===----------------------------------------------------------------------===//
// ForOp: JAX's scan batching rule (jax/_src/lax/control_flow/loops.py,
// `_scan_batching_rule`): a fixpoint decides which carries are batched.
//===----------------------------------------------------------------------===//

LogicalResult ForOp::batch(BatchingContext &ctx, ValueRange operands,
                           ArrayRef<BatchDim> dims,
                           SmallVectorImpl<Value> &results,
                           SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  Location loc = getLoc();
  int64_t batchSize = ctx.getBatchSize();
  size_t numConsts = getConsts().size();
  ArrayRef<BatchDim> operandConstDims = dims.take_front(numConsts);
  ArrayRef<BatchDim> initDims = dims.drop_front(numConsts);
  // Batched consts move to batch dimension 0 once, before the loop, where
  // the batched carries are: the body then needs no transpose per
  // iteration to combine them.
  SmallVector<Value> consts;
  SmallVector<BatchDim> constDims;
  for (auto [c, d] :
       llvm::zip(operands.take_front(numConsts), operandConstDims)) {
    consts.push_back(d ? moveBatchDim(b, loc, c, *d, 0) : c);
    constDims.push_back(d ? BatchDim(0) : std::nullopt);
  }
  ValueRange inits = operands.drop_front(numConsts);

  // Argument types and batch dims of the body for a set of batched carries.
  auto bodySignature = [&](ArrayRef<bool> carried, SmallVectorImpl<Type> &types,
                           SmallVectorImpl<BatchDim> &argDims) {
    types.push_back(getIndexArgument().getType());
    argDims.push_back(std::nullopt);
    for (auto [c, d] : llvm::zip(consts, constDims)) {
      types.push_back(c.getType());
      argDims.push_back(d);
    }
    for (auto [arg, isBatched] : llvm::zip(getCarryArguments(), carried)) {
      auto t = cast<RankedTensorType>(arg.getType());
      types.push_back(isBatched ? insertDim(t, 0, batchSize) : t);
      argDims.push_back(isBatched ? BatchDim(0) : std::nullopt);
    }
  };
  auto makeBlock = [&](ArrayRef<Type> types) {
    auto *block = new Block();
    for (Type t : types)
      block->addArgument(t, loc);
    return block;
  };

  // The fixpoint: batching the body in a scratch block tells which yields
  // are batched; a carry whose yield is batched becomes batched. Each round
  // adds a carry or stops, so there are at most #carries + 1 rounds. The
  // answer is memoized per batching pattern of the operands.
  SmallVector<bool> carried =
      llvm::map_to_vector(initDims, [](BatchDim d) { return d.has_value(); });
  BatchingContext::LoopKey key{getOperation(), {}};
  for (BatchDim d : dims)
    key.second.push_back(d.has_value());
  auto &memo = ctx.getLoopCarryMemo();
  if (auto it = memo.find(key); it != memo.end())
    carried = it->second;
  while (!memo.count(key)) {
    SmallVector<Type> types;
    SmallVector<BatchDim> argDims;
    bodySignature(carried, types, argDims);
    std::unique_ptr<Block> scratch(makeBlock(types));
    SmallVector<Value> yielded;
    SmallVector<BatchDim> yieldedDims;
    LogicalResult batched =
        ctx.batchBlock(getBodyBlock(), *scratch, argDims, yielded, yieldedDims);
    scratch->dropAllDefinedValueUses();
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*scratch)))
      op.erase();
    if (failed(batched))
      return failure();
    bool changed = false;
    for (auto [isBatched, d] : llvm::zip(carried, yieldedDims))
      if (!isBatched && d) {
        isBatched = true;
        changed = true;
      }
    if (!changed)
      memo[key] = carried;
  }

  // The batched loop.
  SmallVector<Value> newInits;
  for (auto [init, d, isBatched] : llvm::zip(inits, initDims, carried))
    newInits.push_back(isBatched ? toBatchDim(b, loc, init, d, 0, batchSize)
                                 : init);
  auto loop = ForOp::create(b, loc, getTripCountAttr(), consts, newInits);
  SmallVector<Type> types;
  SmallVector<BatchDim> argDims;
  bodySignature(carried, types, argDims);
  Block *body = makeBlock(types);
  loop.getBody().push_back(body);
  SmallVector<Value> yielded;
  SmallVector<BatchDim> yieldedDims;
  if (failed(
          ctx.batchBlock(getBodyBlock(), *body, argDims, yielded, yieldedDims)))
    return failure();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(body);
  SmallVector<Value> newYields;
  for (auto [v, d, isBatched] : llvm::zip(yielded, yieldedDims, carried)) {
    assert((isBatched || !d) && "the fixpoint batches every batched yield");
    newYields.push_back(isBatched ? toBatchDim(b, loc, v, d, 0, batchSize) : v);
  }
  YieldOp::create(b, loc, newYields);
  for (auto [r, isBatched] : llvm::zip(loop.getResults(), carried)) {
    results.push_back(r);
    resultDims.push_back(isBatched ? BatchDim(0) : std::nullopt);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// DotGeneralOp: JAX's _dot_general_batch_rule
//===----------------------------------------------------------------------===//

/// Dimension list `dims` of a tensor after a batch dimension is inserted at
/// `bd`.
static SmallVector<int64_t> shiftPast(ArrayRef<int64_t> dims, int64_t bd) {
  return llvm::map_to_vector(dims,
                             [&](int64_t d) { return d < bd ? d : d + 1; });
}

/// Number of free (neither batch nor contracting) dimensions of a rank-`rank`
/// operand that come before dimension `dim`.
static int64_t freeDimsBefore(int64_t dim, ArrayRef<int64_t> batch,
                              ArrayRef<int64_t> contract) {
  int64_t n = 0;
  for (int64_t d = 0; d < dim; ++d)
    if (!llvm::is_contained(batch, d) && !llvm::is_contained(contract, d))
      ++n;
  return n;
}

static int64_t numFreeDims(RankedTensorType t, ArrayRef<int64_t> batch,
                           ArrayRef<int64_t> contract) {
  return t.getRank() - batch.size() - contract.size();
}

LogicalResult DotGeneralOp::batch(BatchingContext &ctx, ValueRange operands,
                                  ArrayRef<BatchDim> dims,
                                  SmallVectorImpl<Value> &results,
                                  SmallVectorImpl<BatchDim> &resultDims) {
  OpBuilder &b = ctx.getBuilder();
  Value lhs = operands[0], rhs = operands[1];
  SmallVector<int64_t> lb(getLhsBatch()), rb(getRhsBatch());
  SmallVector<int64_t> lc(getLhsContract()), rc(getRhsContract());
  int64_t resultDim;
  if (dims[0] && dims[1]) {
    // Both batched: a new leading batch dimension pair.
    lhs = moveBatchDim(b, getLoc(), lhs, *dims[0], 0);
    rhs = moveBatchDim(b, getLoc(), rhs, *dims[1], 0);
    lb = shiftPast(lb, 0);
    rb = shiftPast(rb, 0);
    lc = shiftPast(lc, 0);
    rc = shiftPast(rc, 0);
    lb.insert(lb.begin(), 0);
    rb.insert(rb.begin(), 0);
    resultDim = 0;
  } else if (dims[0]) {
    // Only lhs batched: its batch dimension is one more free dimension.
    int64_t bd = *dims[0];
    lb = shiftPast(lb, bd);
    lc = shiftPast(lc, bd);
    resultDim = lb.size() + freeDimsBefore(bd, lb, lc);
  } else {
    int64_t bd = *dims[1];
    rb = shiftPast(rb, bd);
    rc = shiftPast(rc, bd);
    resultDim =
        rb.size() +
        numFreeDims(getLhs().getType(), getLhsBatch(), getLhsContract()) +
        freeDimsBefore(bd, rb, rc);
  }
  results.push_back(DotGeneralOp::create(
      b, getLoc(), lhs, rhs, b.getDenseI64ArrayAttr(lb),
      b.getDenseI64ArrayAttr(rb), b.getDenseI64ArrayAttr(lc),
      b.getDenseI64ArrayAttr(rc)));
  resultDims.push_back(resultDim);
  return success();
}

//===----------------------------------------------------------------------===//
// func.call: batch the callee for this call's batching signature (JAX's
// rule for call primitives: batch the inner jaxpr).
//===----------------------------------------------------------------------===//

namespace {
struct CallBatchingModel
    : public BatchingOpInterface::ExternalModel<CallBatchingModel,
                                                func::CallOp> {
  LogicalResult batch(Operation *op, BatchingContext &ctx, ValueRange operands,
                      ArrayRef<BatchDim> dims, SmallVectorImpl<Value> &results,
                      SmallVectorImpl<BatchDim> &resultDims) const {
    auto call = cast<func::CallOp>(op);
    FailureOr<BatchedCallee> callee =
        ctx.getBatchedCallee(op, call.getCalleeAttr(), dims);
    if (failed(callee))
      return failure();
    auto batched =
        func::CallOp::create(ctx.getBuilder(), op->getLoc(), callee->symbol,
                             callee->type.getResults(), operands);
    llvm::append_range(results, batched.getResults());
    llvm::append_range(resultDims, callee->resultBatchDims);
    return success();
  }
};
} // namespace

void vmapc::arr::registerExternalBatchingModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, func::FuncDialect *) {
    func::CallOp::attachInterface<CallBatchingModel>(*ctx);
  });
}
