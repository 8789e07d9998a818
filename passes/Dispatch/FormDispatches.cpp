//===- FormDispatches.cpp - group an entry's ops into kernel dispatches ---===//
//
// `--arr-form-dispatches`: on linalg on tensors, every op that computes (a
// linalg op, an insert_slice) joins exactly one dispatch; each dispatch is
// outlined into a kernel function and replaced by a `sched.dispatch` in the
// entry. Greedy, from the last op of each block backwards: an op that no
// dispatch has taken yet is the root of a new one, which then takes every
// linalg producer whose results only it reads (an elementwise op whose
// result is larger than its inputs, read by several, is first copied for
// each reader: recomputed rather than kept), as long as the root's batch
// loop can still be spread over workgroups without computing any producer
// value twice (Fusion.h) and, if the option bounds it, the fused producers'
// results per example stay small enough for a GPU block's shared memory.
// Free ops (constants, empty tensors, views, scalar
// arithmetic) are cloned into every kernel that reads them; what a kernel
// reads that another dispatch or the entry produces becomes a binding.
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"
#include "passes/Dispatch/BatchDims.h"
#include "passes/Dispatch/Fusion.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRFORMDISPATCHES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;
using namespace vmapc;

namespace {

/// Ops a kernel computes; everything else in an entry is free to clone or
/// is the entry's own structure (loops, materializations, the return).
bool isCompute(Operation *op) {
  return isa<linalg::LinalgOp, tensor::InsertSliceOp>(op);
}

/// Ops that cost nothing and may be cloned into every kernel that reads
/// them: constants, empty tensors, views of tensors, scalar arithmetic.
bool isFree(Operation *op) {
  if (isa<arith::ConstantOp, tensor::EmptyOp, tensor::ExtractSliceOp,
          tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp,
          tensor::FromElementsOp, tensor::ExtractOp, sched::NumExamplesOp>(op))
    return true;
  // Scalar arithmetic (index casts of a loop index, say).
  return op->getDialect() &&
         op->getDialect()->getNamespace() ==
             arith::ArithDialect::getDialectNamespace() &&
         llvm::none_of(op->getResultTypes(),
                       [](Type t) { return isa<ShapedType>(t); });
}

struct Group {
  Operation *root = nullptr;
  /// The linalg op whose loops the kernel distributes: the root, or the
  /// producer of an insert_slice root's piece (none for a plain copy).
  linalg::LinalgOp loopOp;
  /// The compute ops of the dispatch, root included.
  llvm::SetVector<Operation *> ops;
};

/// Bytes of producer `op`'s results per example, in a dispatch whose root
/// runs over the batch with loop `batchLoop` of `op` (-1: none): a result
/// indexed by that loop counts its bytes over the loop's extent, one that
/// is not (or any result when there is no such loop and the result has no
/// batch dimension) counts whole: every workgroup would keep all of it.
/// Saturates at 2^62.
int64_t bytesPerExample(linalg::LinalgOp op, int64_t batchLoop,
                        const BatchDims &batchDims) {
  int64_t total = 0;
  for (OpResult result : op->getResults()) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type || !type.hasStaticShape())
      continue;
    std::optional<int64_t> batchDim;
    if (batchLoop >= 0)
      batchDim = op.getIndexingMapMatchingResult(result).getResultPosition(
          getAffineDimExpr(batchLoop, op->getContext()));
    else
      batchDim = batchDims.dimOf(result);
    int64_t elements = 1;
    for (auto [dim, size] : llvm::enumerate(type.getShape()))
      if (!batchDim || int64_t(dim) != *batchDim)
        elements = std::min<int64_t>(elements * size, int64_t(1) << 56);
    int64_t elementBytes = std::max<int64_t>(
        llvm::divideCeil(type.getElementTypeBitWidth(), 8), 1);
    total =
        std::min<int64_t>(total + elements * elementBytes, int64_t(1) << 62);
  }
  return total;
}

/// Whether linalg op `op` may root a dispatch of its own: a root starts
/// from its outputs' initial values inside the kernel (arr-tile-workgroups
/// tiles it over them), so each init must be empty or computed in `op`'s
/// block by a linalg op (a fill the dispatch then takes), not read from a
/// binding.
bool canRoot(linalg::LinalgOp op) {
  return llvm::all_of(op.getDpsInits(), [&](Value init) {
    Operation *def = init.getDefiningOp();
    return def &&
           (isa<tensor::EmptyOp>(def) ||
            (isa<linalg::LinalgOp>(def) && def->getBlock() == op->getBlock()));
  });
}

/// Bytes of a statically shaped tensor, or nothing.
std::optional<int64_t> staticBytes(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape() ||
      !tensor.getElementType().isIntOrFloat())
    return std::nullopt;
  return tensor.getNumElements() *
         std::max<int64_t>(tensor.getElementTypeBitWidth() / 8, 1);
}

/// Whether `op` is an elementwise op whose result is larger than all its
/// inputs together (an outer product, a broadcast: per example, g (10
/// floats) times x (64) is 640 floats): recomputing it costs less than
/// reading it back.
bool expands(linalg::GenericOp op) {
  if (op->getNumResults() != 1 || op.getNumReductionLoops() != 0 ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)) ||
      !isMemoryEffectFree(op.getOperation()))
    return false;
  std::optional<int64_t> result = staticBytes(op->getResult(0).getType());
  int64_t inputs = 0;
  for (Value input : op.getDpsInputs()) {
    std::optional<int64_t> bytes = staticBytes(input.getType());
    if (!bytes)
      return false;
    inputs += *bytes;
  }
  return result && inputs < *result;
}

/// Gives each compute op that reads an expanding elementwise op (expands)
/// a copy of its own, as XLA's fusion duplicates cheap producers: each
/// consumer's dispatch then takes its copy, and the large result never
/// reaches memory (DP-SGD's per-example outer product gw, read by the
/// clipping norm and by the clipped gradient).
void duplicateExpandingProducers(func::FuncOp entry) {
  SmallVector<linalg::GenericOp> candidates;
  entry.walk([&](linalg::GenericOp op) {
    // Read by two or more ops (not twice by one).
    llvm::SmallPtrSet<Operation *, 4> readers(op->user_begin(), op->user_end());
    if (readers.size() > 1 && expands(op) &&
        llvm::all_of(op->getUsers(), [&](Operation *user) {
          return isCompute(user) && user->getBlock() == op->getBlock();
        }))
      candidates.push_back(op);
  });
  for (linalg::GenericOp op : candidates) {
    // One copy per reader (not per operand: a reader of two operands that
    // are both `op`, gw * gw, shares one).
    llvm::SetVector<Operation *> readers(op->user_begin(), op->user_end());
    OpBuilder b(op);
    b.setInsertionPointAfter(op);
    for (Operation *reader : llvm::drop_begin(readers)) {
      Value copy = b.clone(*op)->getResult(0);
      op->getResult(0).replaceUsesWithIf(
          copy, [&](OpOperand &use) { return use.getOwner() == reader; });
    }
  }
}

struct ArrFormDispatchesPass
    : vmapc::impl::ArrFormDispatchesBase<ArrFormDispatchesPass> {
  using ArrFormDispatchesBase::ArrFormDispatchesBase;

  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Linalg, vmapc::Stage::Linalg)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> entries;
    for (auto fn : module.getOps<func::FuncOp>())
      if (vmapc::arr::isEntry(fn))
        entries.push_back(fn);
    for (func::FuncOp entry : entries)
      if (failed(formDispatches(entry)))
        return signalPassFailure();
  }

  LogicalResult formDispatches(func::FuncOp entry) {
    duplicateExpandingProducers(entry);
    BatchDims batchDims = BatchDims::analyze(entry);
    Value numExamples;
    if (batchDims.succeeded()) {
      OpBuilder b = OpBuilder::atBlockBegin(&entry.getBody().front());
      numExamples =
          sched::NumExamplesOp::create(b, entry.getLoc(), b.getIndexType());
    } else {
      entry->setAttr(sched::SchedDialect::kPadsPartialChunksAttrName,
                     UnitAttr::get(entry.getContext()));
    }

    // Group the ops of every block (the entry's and each loop body's).
    SmallVector<Block *> blocks;
    entry.walk([&](Block *block) { blocks.push_back(block); });
    SmallVector<Group> groups;
    DenseMap<Operation *, size_t> groupOf;
    for (Block *block : blocks) {
      SmallVector<Operation *> ops;
      for (Operation &op : *block)
        ops.push_back(&op);
      for (Operation *op : llvm::reverse(ops)) {
        if (!isCompute(op) || groupOf.count(op))
          continue;
        groups.push_back(formGroup(op, batchDims));
        for (Operation *member : groups.back().ops)
          groupOf[member] = groups.size() - 1;
      }
    }

    // Outline in program order, so kernels are numbered as they run.
    DenseMap<Operation *, size_t> order;
    entry.walk<WalkOrder::PreOrder>(
        [&](Operation *op) { order[op] = order.size(); });
    llvm::sort(groups, [&](const Group &a, const Group &b) {
      return order[a.root] < order[b.root];
    });
    SymbolTable symbols(getOperation());
    for (auto [index, group] : llvm::enumerate(groups))
      if (failed(outline(entry, group, index, batchDims, numExamples, symbols)))
        return failure();
    return success();
  }

  /// The dispatch rooted at `root`: the root and, transitively, every linalg
  /// producer whose results only the dispatch reads, while the root's batch
  /// loop stays distributable and the fused producers' results per example
  /// stay within `maxFusedBytesPerExample` (if not 0; a producer that could
  /// not root a dispatch, canRoot, is fused regardless).
  ///
  /// An insert_slice root (a piece of a concat) takes in the linalg op that
  /// computes its piece when nothing else reads it, so that the piece is
  /// computed straight into its slice of the destination.
  Group formGroup(Operation *root, const BatchDims &batchDims) {
    Group group;
    group.root = root;
    group.ops.insert(root);
    auto linalgRoot = dyn_cast<linalg::LinalgOp>(root);
    if (auto insert = dyn_cast<tensor::InsertSliceOp>(root)) {
      auto piece = insert.getSource().getDefiningOp<linalg::LinalgOp>();
      if (piece && piece->getBlock() == root->getBlock() &&
          piece->hasOneUse() && piece->getNumResults() == 1) {
        linalgRoot = piece;
        group.ops.insert(piece);
      }
    }
    if (!linalgRoot)
      return sortedByBlockOrder(std::move(group));
    group.loopOp = linalgRoot;
    std::optional<int64_t> batchLoop = batchDims.loopOf(linalgRoot);
    RootLoopMap loopMap(linalgRoot);
    int64_t fusedBytes = 0;
    SmallVector<Operation *> worklist{linalgRoot.getOperation()};
    while (!worklist.empty()) {
      auto consumer = cast<linalg::LinalgOp>(worklist.pop_back_val());
      for (OpOperand &operand : consumer->getOpOperands()) {
        auto producer = operand.get().getDefiningOp<linalg::LinalgOp>();
        if (!producer || producer->getBlock() != root->getBlock() ||
            group.ops.contains(producer))
          continue;
        bool onlyReadHere =
            llvm::all_of(producer->getUsers(),
                         [&](Operation *u) { return group.ops.contains(u); });
        if (!onlyReadHere)
          continue;
        RootLoopMap trial = loopMap;
        trial.addProducer(producer, operand);
        SmallVector<int64_t> loops = trial.distributableLoops();
        if (batchLoop && !llvm::is_contained(loops, *batchLoop))
          continue;
        // A producer of a consumer's init (a fill) computes into the
        // consumer's buffer: it keeps no bytes of its own.
        int64_t bytes =
            consumer.isDpsInit(&operand)
                ? 0
                : bytesPerExample(producer,
                                  batchLoop ? trial.loopOf(producer, *batchLoop)
                                            : -1,
                                  batchDims);
        if (maxFusedBytesPerExample > 0 &&
            fusedBytes + bytes > maxFusedBytesPerExample && canRoot(producer))
          continue;
        fusedBytes += bytes;
        loopMap = std::move(trial);
        group.ops.insert(producer);
        worklist.push_back(producer);
      }
    }
    return sortedByBlockOrder(std::move(group));
  }

  /// `group` with its ops in block order (producers before consumers).
  static Group sortedByBlockOrder(Group group) {
    SmallVector<Operation *> sorted(group.ops.begin(), group.ops.end());
    llvm::sort(sorted, [](Operation *a, Operation *b) {
      return a->isBeforeInBlock(b);
    });
    group.ops = llvm::SetVector<Operation *>(sorted.begin(), sorted.end());
    return group;
  }

  /// Outlines `group` into a kernel and replaces it by a sched.dispatch.
  LogicalResult outline(func::FuncOp entry, Group &group, size_t index,
                        const BatchDims &batchDims, Value numExamples,
                        SymbolTable &symbols) {
    MLIRContext *ctx = entry.getContext();
    Location loc = group.root->getLoc();

    // What the kernel reads from outside: bindings (tensors) and scalars
    // (index values), found through the free ops it clones.
    llvm::SetVector<Operation *> freeOps;
    llvm::SetVector<Value> inputs, scalars;
    std::function<void(Value)> collect = [&](Value value) {
      Operation *def = value.getDefiningOp();
      if (def && group.ops.contains(def))
        return;
      if (def && isFree(def) && !isa<sched::NumExamplesOp>(def)) {
        if (freeOps.contains(def))
          return;
        for (Value operand : def->getOperands())
          collect(operand);
        freeOps.insert(def);
        return;
      }
      if (isa<IndexType>(value.getType()))
        scalars.insert(value);
      else if (isa<RankedTensorType>(value.getType()))
        inputs.insert(value);
      else
        llvm::report_fatal_error("dispatch formation: unexpected operand");
    };
    for (Operation *op : group.ops) {
      for (Value operand : op->getOperands())
        collect(operand);
      llvm::SetVector<Value> captured;
      getUsedValuesDefinedAbove(op->getRegions(), captured);
      for (Value value : captured)
        collect(value);
    }

    // Outputs: the root's results read outside the dispatch. An
    // insert_slice writes its piece into its destination, which the
    // dispatch updates in place.
    SmallVector<Value> results;
    for (Value result : group.root->getResults())
      if (!result.use_empty())
        results.push_back(result);
    if (results.empty()) {
      for (Operation *op : llvm::reverse(group.ops))
        op->erase();
      return success();
    }
    auto insert = dyn_cast<tensor::InsertSliceOp>(group.root);
    if (insert)
      inputs.remove(insert.getDest());
    // A linalg root that updates a value computed outside the dispatch (an
    // init its payload reads: a scatter's operand, a loop carry) updates it
    // in place: the
    // dispatch's init is that value, and the kernel starts from the output
    // binding's contents. Bufferization copies the value first where it is
    // read later. The value stays an input binding too if another op of the
    // dispatch reads it (bufferization then never places the output in its
    // buffer: a kernel never reads a buffer it writes).
    SmallVector<Value> updated(results.size());
    if (auto linalgRoot = dyn_cast<linalg::LinalgOp>(group.root)) {
      for (auto [i, result] : llvm::enumerate(results)) {
        OpOperand *initOperand = linalgRoot.getDpsInitOperand(
            cast<OpResult>(result).getResultNumber());
        Value init = initOperand->get();
        Operation *def = init.getDefiningOp();
        if (!linalgRoot.payloadUsesValueFromOperand(initOperand) ||
            (def && (group.ops.contains(def) || isa<tensor::EmptyOp>(def) ||
                     isFree(def))))
          continue;
        updated[i] = init;
        // Uses in a group op's region (a gather's tensor.extract) and by
        // the free ops cloned into the kernel (a slice of it) count.
        auto groupOpOf = [&](Operation *op) -> Operation * {
          for (; op; op = op->getParentOp())
            if (group.ops.contains(op) || freeOps.contains(op))
              return op;
          return nullptr;
        };
        bool readElsewhere = llvm::any_of(init.getUses(), [&](OpOperand &use) {
          Operation *owner = groupOpOf(use.getOwner());
          return owner &&
                 !(use.getOwner() == group.root && linalgRoot.isDpsInit(&use));
        });
        if (!readElsewhere)
          inputs.remove(init);
      }
    }

    std::optional<int64_t> batchLoop;
    if (group.loopOp)
      batchLoop = batchDims.loopOf(group.loopOp);
    bool needsN = numExamples && batchLoop.has_value();
    if (needsN)
      scalars.insert(numExamples);

    // The kernel.
    SmallVector<Type> argTypes;
    auto memrefOf = [](Type t) {
      auto tensor = cast<RankedTensorType>(t);
      return MemRefType::get(tensor.getShape(), tensor.getElementType());
    };
    for (Value input : inputs)
      argTypes.push_back(memrefOf(input.getType()));
    for (Value result : results)
      argTypes.push_back(memrefOf(result.getType()));
    argTypes.append(scalars.size(), IndexType::get(ctx));
    OpBuilder moduleBuilder(entry);
    std::string name = (entry.getSymName() + "_dispatch_" + Twine(index)).str();
    auto kernel = func::FuncOp::create(moduleBuilder, loc, name,
                                       FunctionType::get(ctx, argTypes, {}));
    kernel.setPrivate();
    kernel->setAttr(sched::SchedDialect::kKernelAttrName, UnitAttr::get(ctx));
    symbols.insert(kernel);
    Block *body = kernel.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    IRMapping mapping;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      auto toTensor = bufferization::ToTensorOp::create(
          b, loc, input.getType(), body->getArgument(i), /*restrict=*/true,
          /*writable=*/false);
      mapping.map(input, toTensor.getResult());
    }
    // The piece of an insert_slice root is computed into a new tensor that
    // the kernel writes to its slice of the binding; empty-tensor
    // elimination then computes it there directly.
    if (insert)
      mapping.map(insert.getDest(), tensor::EmptyOp::create(
                                        b, loc, insert.getDestType().getShape(),
                                        insert.getDestType().getElementType()));
    // An updated value starts as the output binding's contents.
    SmallVector<std::pair<Value, Value>> updatedInits;
    for (auto [i, value] : llvm::enumerate(updated))
      if (value)
        updatedInits.push_back(
            {value,
             bufferization::ToTensorOp::create(
                 b, loc, value.getType(), body->getArgument(inputs.size() + i),
                 /*restrict=*/true, /*writable=*/true)});
    size_t firstScalar = inputs.size() + results.size();
    for (auto [i, scalar] : llvm::enumerate(scalars)) {
      mapping.map(scalar, body->getArgument(firstScalar + i));
      if (scalar == numExamples)
        kernel.setArgAttr(firstScalar + i,
                          sched::SchedDialect::kNumExamplesAttrName,
                          UnitAttr::get(ctx));
    }
    // Free ops and group ops, in block order (free ops of an outer block
    // first).
    SmallVector<Operation *> toClone(freeOps.begin(), freeOps.end());
    llvm::append_range(toClone, group.ops);
    llvm::stable_sort(toClone, [&](Operation *a, Operation *c) {
      if (a->getBlock() == c->getBlock())
        return a->isBeforeInBlock(c);
      return a->getParentRegion()->isAncestor(c->getParentRegion());
    });
    for (Operation *op : toClone) {
      if (insert && op == group.root)
        continue;
      // The root's updated inits read the output bindings (other ops of
      // the dispatch read the input binding of the same value).
      Operation *clone;
      if (op == group.root && !updatedInits.empty()) {
        IRMapping rootMapping = mapping;
        for (auto [value, toTensor] : updatedInits)
          rootMapping.map(value, toTensor);
        clone = b.clone(*op, rootMapping);
        mapping.map(op->getResults(), clone->getResults());
      } else {
        clone = b.clone(*op, mapping);
      }
      if (op == group.loopOp.getOperation() && needsN)
        clone->setAttr(sched::SchedDialect::kBatchLoopAttrName,
                       b.getI64IntegerAttr(*batchLoop));
    }
    // Write the outputs.
    for (auto [i, result] : llvm::enumerate(results)) {
      Value binding = body->getArgument(inputs.size() + i);
      if (insert) {
        // Only the slice of the destination: a subview of the binding.
        Value piece = mapping.lookup(insert.getSource());
        auto sliceType = memref::SubViewOp::inferRankReducedResultType(
            cast<RankedTensorType>(piece.getType()).getShape(),
            cast<MemRefType>(binding.getType()), insert.getMixedOffsets(),
            insert.getMixedSizes(), insert.getMixedStrides());
        Value slice = memref::SubViewOp::create(
            b, loc, cast<MemRefType>(sliceType), binding,
            insert.getMixedOffsets(), insert.getMixedSizes(),
            insert.getMixedStrides());
        auto materialize = bufferization::MaterializeInDestinationOp::create(
            b, loc, piece, slice);
        materialize.setRestrict(true);
        materialize.setWritable(true);
        continue;
      }
      Value value = mapping.lookup(result);
      auto materialize = bufferization::MaterializeInDestinationOp::create(
          b, loc, value, binding);
      materialize.setRestrict(true);
      materialize.setWritable(true);
    }
    func::ReturnOp::create(b, loc);

    // The dispatch.
    OpBuilder entryBuilder(group.root);
    SmallVector<Value> inits;
    for (auto [result, value] : llvm::zip(results, updated)) {
      if (insert) {
        inits.push_back(insert.getDest());
        continue;
      }
      if (value) {
        inits.push_back(value);
        continue;
      }
      auto type = cast<RankedTensorType>(result.getType());
      inits.push_back(tensor::EmptyOp::create(
          entryBuilder, loc, type.getShape(), type.getElementType()));
    }
    auto dispatch = sched::DispatchOp::create(
        entryBuilder, loc, TypeRange(ValueRange(inits)),
        FlatSymbolRefAttr::get(kernel.getSymNameAttr()), inputs.getArrayRef(),
        inits, scalars.getArrayRef());
    for (auto [result, replacement] : llvm::zip(results, dispatch.getResults()))
      result.replaceAllUsesWith(replacement);
    for (Operation *op : llvm::reverse(group.ops)) {
      op->dropAllUses();
      op->erase();
    }
    return success();
  }
};

} // namespace
