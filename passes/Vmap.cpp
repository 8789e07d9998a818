//===- Vmap.cpp - --arr-vmap: batch functions through their ops' rules ----===//
//
// JAX's BatchTrace as an MLIR pass. Every `arr.vmap_call @f` becomes a call
// of `f` batched for the call's in_axes, followed by moving each result's
// batch dimension to its out_axes. Batching a function walks its ops in
// order, keeping for each value where its batch dimension is (or that it has
// none); an op with no batched operand is cloned, any other op is batched by
// its BatchingOpInterface rule. The pass knows no op by name.
//
// Functions are processed callees first, so the function a vmap_call names
// holds no vmap_call itself when it is batched: nested vmaps become calls of
// specialisations, which the func.call rule batches again for the outer map.
// Specialisations are cached per (function, argument batch dims, batch size).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "passes/Stages.h"

#include "dialect/Limits.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRVMAP
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;
using namespace vmapc;
using namespace vmapc::arr;

namespace {

/// A short, stable spelling of a batching signature for symbol names and
/// cache keys: "0_n_2" for dims (0, none, 2).
static std::string signatureOf(ArrayRef<BatchDim> dims, int64_t batchSize) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (BatchDim d : dims) {
    if (d)
      os << *d;
    else
      os << "n";
    os << "_";
  }
  os << "b" << batchSize;
  return s;
}

/// Creates and caches batched specialisations of functions.
class Batcher {
public:
  Batcher(ModuleOp module) : module(module), symbolTable(module) {}

  /// Returns `fn` batched for argument batch dims `argDims` and batch size
  /// `batchSize`. `vmapLoc` is the vmap that reached it, for errors.
  FailureOr<BatchedCallee> batchFunction(func::FuncOp fn,
                                         ArrayRef<BatchDim> argDims,
                                         int64_t batchSize, Location vmapLoc);

  /// Replaces `op` by a call of its batched callee and moves each result's
  /// batch dimension to its out axis.
  LogicalResult lowerVmapCall(VmapCallOp op);

private:
  LogicalResult batchBody(func::FuncOp fn, func::FuncOp batched,
                          ArrayRef<BatchDim> argDims, int64_t batchSize,
                          Location vmapLoc,
                          SmallVectorImpl<BatchDim> &resultDims);

  ModuleOp module;
  SymbolTable symbolTable;
  llvm::StringMap<BatchedCallee> cache;
};

/// The context handed to batching rules while batching one function.
class FunctionBatchingContext : public BatchingContext {
public:
  FunctionBatchingContext(OpBuilder &builder, int64_t batchSize,
                          Batcher &batcher, Location vmapLoc)
      : BatchingContext(builder, batchSize), batcher(batcher),
        vmapLoc(vmapLoc) {}

  FailureOr<BatchedCallee>
  getBatchedCallee(Operation *call, FlatSymbolRefAttr callee,
                   ArrayRef<BatchDim> argDims) override {
    auto fn = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(call, callee);
    if (!fn || fn.isExternal())
      return call->emitOpError() << "calls '" << callee.getValue()
                                 << "', which is not a function with a body";
    return batcher.batchFunction(fn, argDims, getBatchSize(), vmapLoc);
  }

  LogicalResult batchBlock(Block &source, Block &target,
                           ArrayRef<BatchDim> argDims,
                           SmallVectorImpl<Value> &yielded,
                           SmallVectorImpl<BatchDim> &yieldedDims) override;

private:
  Batcher &batcher;
  Location vmapLoc;
};

} // namespace

FailureOr<BatchedCallee> Batcher::batchFunction(func::FuncOp fn,
                                                ArrayRef<BatchDim> argDims,
                                                int64_t batchSize,
                                                Location vmapLoc) {
  std::string name =
      (fn.getSymName() + "_vmap_" + signatureOf(argDims, batchSize)).str();
  if (auto it = cache.find(name); it != cache.end())
    return it->second;

  SmallVector<Type> argTypes;
  for (auto [type, dim] : llvm::zip(fn.getArgumentTypes(), argDims))
    argTypes.push_back(
        dim ? insertDim(cast<RankedTensorType>(type), *dim, batchSize) : type);
  OpBuilder builder(fn);
  builder.setInsertionPointAfter(fn);
  auto batched = func::FuncOp::create(builder, fn.getLoc(), name,
                                      builder.getFunctionType(argTypes, {}));
  batched.setPrivate();
  symbolTable.insert(batched);

  SmallVector<BatchDim> resultDims;
  if (failed(batchBody(fn, batched, argDims, batchSize, vmapLoc, resultDims))) {
    batched.erase();
    return failure();
  }
  BatchedCallee result{FlatSymbolRefAttr::get(batched.getSymNameAttr()),
                       batched.getFunctionType(), resultDims};
  cache[name] = result;
  return result;
}

/// Batches the ops of `source` but its terminator into the end of `target`,
/// whose arguments stand for `source`'s arguments batched at `argDims`. Walks
/// the ops in order keeping, for each value, its batched value and batch
/// dimension; an op with no batched operand is cloned as it is. The
/// terminator's operands, batched, are returned in `yielded`/`yieldedDims`.
static LogicalResult batchOps(Block &source, Block &target,
                              ArrayRef<BatchDim> argDims, BatchingContext &ctx,
                              Location vmapLoc, SmallVectorImpl<Value> &yielded,
                              SmallVectorImpl<BatchDim> &yieldedDims) {
  OpBuilder &builder = ctx.getBuilder();
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToEnd(&target);

  IRMapping mapping;
  llvm::DenseMap<Value, BatchDim> batchDims;
  for (auto [arg, newArg, dim] :
       llvm::zip(source.getArguments(), target.getArguments(), argDims)) {
    mapping.map(arg, newArg);
    batchDims[arg] = dim;
  }

  for (Operation &op : source) {
    SmallVector<Value> operands;
    SmallVector<BatchDim> dims;
    for (Value v : op.getOperands()) {
      operands.push_back(mapping.lookup(v));
      dims.push_back(batchDims.lookup(v));
    }
    if (op.hasTrait<OpTrait::IsTerminator>()) {
      llvm::append_range(yielded, operands);
      llvm::append_range(yieldedDims, dims);
      return success();
    }
    bool anyBatched =
        llvm::any_of(dims, [](BatchDim d) { return d.has_value(); });
    if (!anyBatched) {
      builder.clone(op, mapping);
      for (Value r : op.getResults())
        batchDims[r] = std::nullopt;
      continue;
    }
    auto rule = dyn_cast<BatchingOpInterface>(&op);
    if (!rule) {
      InFlightDiagnostic diag = op.emitOpError("has no batching rule");
      diag.attachNote(vmapLoc) << "batched by this vmap";
      return failure();
    }
    SmallVector<Value> results;
    SmallVector<BatchDim> newDims;
    if (failed(rule.batch(ctx, operands, dims, results, newDims)))
      return failure();
    assert(results.size() == op.getNumResults() &&
           newDims.size() == op.getNumResults() &&
           "a batching rule must give one value and dim per result");
    // B times a per-example size may pass the size limits even when every
    // per-example value is within them (dialect/Limits.h).
    for (Value r : results) {
      auto type = cast<ShapedType>(r.getType());
      if (checkedByteSize(type))
        continue;
      InFlightDiagnostic diag =
          emitError(op.getLoc())
          << "batched over " << ctx.getBatchSize()
          << " examples, this value has type " << type
          << ", past the size limits: " << describeLimitViolation(type)
          << " (every dimension is at most " << kMaxDimSize
          << " and every array holds fewer than 2^62 bytes)";
      diag.attachNote(vmapLoc) << "batched by this vmap";
      return failure();
    }
    for (auto [from, to, dim] : llvm::zip(op.getResults(), results, newDims)) {
      mapping.map(from, to);
      batchDims[from] = dim;
    }
  }
  return source.getParentOp()->emitOpError(
      "has a block without a terminator; cannot batch it");
}

LogicalResult FunctionBatchingContext::batchBlock(
    Block &source, Block &target, ArrayRef<BatchDim> argDims,
    SmallVectorImpl<Value> &yielded, SmallVectorImpl<BatchDim> &yieldedDims) {
  return batchOps(source, target, argDims, *this, vmapLoc, yielded,
                  yieldedDims);
}

LogicalResult Batcher::batchBody(func::FuncOp fn, func::FuncOp batched,
                                 ArrayRef<BatchDim> argDims, int64_t batchSize,
                                 Location vmapLoc,
                                 SmallVectorImpl<BatchDim> &resultDims) {
  if (!fn.getBody().hasOneBlock())
    return fn.emitOpError("must have a single block to be batched");
  Block *block = batched.addEntryBlock();
  OpBuilder builder = OpBuilder::atBlockBegin(block);
  FunctionBatchingContext ctx(builder, batchSize, *this, vmapLoc);
  SmallVector<Value> returned;
  if (failed(batchOps(fn.getBody().front(), *block, argDims, ctx, vmapLoc,
                      returned, resultDims)))
    return failure();
  builder.setInsertionPointToEnd(block);
  func::ReturnOp::create(
      builder, fn.getBody().front().getTerminator()->getLoc(), returned);
  batched.setFunctionType(
      builder.getFunctionType(batched.getArgumentTypes(), TypeRange(returned)));
  return success();
}

LogicalResult Batcher::lowerVmapCall(VmapCallOp op) {
  auto callee = symbolTable.lookup<func::FuncOp>(op.getCallee());
  if (!callee || callee.isExternal())
    return op.emitOpError()
           << "'" << op.getCallee() << "' is not a function with a body";
  int64_t batchSize = op.getAxisSize();
  FailureOr<BatchedCallee> batched =
      batchFunction(callee, op.getInAxesList(), batchSize, op.getLoc());
  if (failed(batched))
    return failure();

  OpBuilder builder(op);
  auto call = func::CallOp::create(builder, op.getLoc(), batched->symbol,
                                   batched->type.getResults(), op.getArgs());
  SmallVector<Value> results;
  for (auto [i, value, dim, outAxis] : llvm::enumerate(
           call.getResults(), batched->resultBatchDims, op.getOutAxesList())) {
    if (!outAxis) {
      if (dim)
        return op.emitError()
               << "out_axes is none for result " << i
               << ", but it depends on a mapped operand; give it an axis "
                  "(none is only for a result that is the same for every "
                  "example)";
      results.push_back(value);
    } else {
      // JAX: an output that does not depend on a mapped input is broadcast
      // along the batch axis unless its out_axes is none.
      results.push_back(
          toBatchDim(builder, op.getLoc(), value, dim, *outAxis, batchSize));
    }
  }
  op.replaceAllUsesWith(results);
  op.erase();
  return success();
}

namespace {

/// The functions that `fn` calls (func.call and arr.vmap_call), in order of
/// first call.
static SmallVector<func::FuncOp> calleesOf(func::FuncOp fn,
                                           SymbolTable &symbols) {
  SmallVector<func::FuncOp> callees;
  fn.walk([&](Operation *op) {
    FlatSymbolRefAttr callee;
    if (auto call = dyn_cast<func::CallOp>(op))
      callee = call.getCalleeAttr();
    else if (auto vmap = dyn_cast<VmapCallOp>(op))
      callee = vmap.getCalleeAttr();
    if (!callee)
      return;
    if (auto target = symbols.lookup<func::FuncOp>(callee.getValue()))
      if (!llvm::is_contained(callees, target))
        callees.push_back(target);
  });
  return callees;
}

/// Functions of `module` ordered callees first (over func.call and
/// arr.vmap_call): an iterative depth-first post-order, so that a long call
/// chain costs no stack. Fails on recursion, which the language does not
/// have.
static LogicalResult calleesFirst(ModuleOp module,
                                  SmallVectorImpl<func::FuncOp> &order) {
  enum class State { Visiting, Done };
  llvm::DenseMap<Operation *, State> state;
  SymbolTable symbols(module);
  struct Frame {
    func::FuncOp fn;
    SmallVector<func::FuncOp> callees;
    size_t next = 0;
  };
  for (auto root : module.getOps<func::FuncOp>()) {
    if (state.count(root))
      continue;
    state[root] = State::Visiting;
    SmallVector<Frame> stack;
    stack.push_back({root, calleesOf(root, symbols)});
    while (!stack.empty()) {
      Frame &top = stack.back();
      if (top.next == top.callees.size()) {
        state[top.fn] = State::Done;
        order.push_back(top.fn);
        stack.pop_back();
        continue;
      }
      func::FuncOp callee = top.callees[top.next++];
      auto [it, inserted] = state.try_emplace(callee, State::Visiting);
      if (!inserted) {
        if (it->second == State::Visiting)
          return callee.emitOpError("is recursive; vmap needs a call tree");
        continue;
      }
      stack.push_back({callee, calleesOf(callee, symbols)});
    }
  }
  return success();
}

struct ArrVmapPass : vmapc::impl::ArrVmapBase<ArrVmapPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Arr, vmapc::Stage::Linalg)))
      return signalPassFailure();
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> order;
    if (failed(calleesFirst(module, order)))
      return signalPassFailure();
    Batcher batcher(module);
    for (func::FuncOp fn : order) {
      SmallVector<VmapCallOp> calls;
      fn.walk([&](VmapCallOp op) { calls.push_back(op); });
      for (VmapCallOp op : calls)
        if (failed(batcher.lowerVmapCall(op)))
          return signalPassFailure();
    }
  }
};

} // namespace
