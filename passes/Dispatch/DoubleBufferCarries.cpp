//===- DoubleBufferCarries.cpp - loop carries in two alternating buffers --===//
//
// `--arr-double-buffer-carries`, on bufferized entries before
// `--arr-copies-to-dispatches`. Bufferization gives a loop carry that
// cannot be updated in place (each step reads the whole carry, as the RNN's
// `W @ h` does, while it writes the next one) a buffer of its own and a
// temporary: each step writes the new carry into the temporary and copies
// it back, a whole-carry copy per step (a dispatch of its own, and on two
// threads a serial one) that moves as many bytes as the step's product
// reads. Double buffering (ping-pong buffers, as a GPU kernel alternates
// two shared-memory tiles) unrolls the loop by two and swaps the carry and
// its temporary in the second half, so that no step copies:
//
//   scf.for %i = 0 to 20 step 1 {         scf.for %i = 0 to 10 step 1 {
//     %t = memref.alloc()                    D(%h) outs(%t)     (step 2i)
//     D(%h) outs(%t)                 =>      D(%t) outs(%h)     (step 2i + 1)
//     memref.copy %t, %h                   }
//   }
//
// The swap is a renaming, so it keeps every read and write of the step in
// its place: what the first half finds in (carry, temporary) the second
// finds in (temporary, carry). It needs the temporary to be undefined at
// each step's start in the original (a fresh allocation) and the copy to
// end the step. An odd trip count leaves its last step as it was, after the
// loop. The loop is rewritten when:
//   - it runs from 0 to a constant N >= 2 by 1 (a schedule loop), has no
//     results, and its body does not use its index;
//   - its body ends with copies (before the terminator), each from an
//     allocation of the body to a buffer of the same type defined outside
//     the loop, all of them distinct (so nothing after a copy uses its
//     temporary).
//
//===----------------------------------------------------------------------===//

#include "dialect/ArrDialect.h"
#include "passes/Passes.h"
#include "passes/Stages.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace vmapc {
#define GEN_PASS_DEF_ARRDOUBLEBUFFERCARRIES
#include "passes/Passes.h.inc"
} // namespace vmapc

using namespace mlir;

namespace {

/// A carry that each step copies from a temporary of the step.
struct CarryCopy {
  Operation *copy;
  memref::AllocOp temporary;
  Value carry;
};

/// The source and target of a whole-buffer copy, or nothing.
std::optional<std::pair<Value, Value>> copyOperands(Operation *op) {
  if (auto copy = dyn_cast<memref::CopyOp>(op))
    return std::make_pair(copy.getSource(), copy.getTarget());
  if (auto copy = dyn_cast<linalg::CopyOp>(op))
    if (copy.hasPureBufferSemantics())
      return std::make_pair(copy.getInputs()[0], copy.getOutputs()[0]);
  return std::nullopt;
}

/// The copies that end `loop`'s body, when the loop can be double buffered.
SmallVector<CarryCopy> carryCopies(scf::ForOp loop) {
  Block *body = loop.getBody();
  SmallVector<CarryCopy> copies;
  llvm::SmallPtrSet<Value, 8> seen;
  for (Operation *op = body->getTerminator()->getPrevNode(); op;
       op = op->getPrevNode()) {
    std::optional<std::pair<Value, Value>> operands = copyOperands(op);
    if (!operands)
      break;
    auto [source, target] = *operands;
    auto temporary = source.getDefiningOp<memref::AllocOp>();
    if (!temporary || temporary->getBlock() != body ||
        !temporary.getDynamicSizes().empty() ||
        !temporary.getSymbolOperands().empty() ||
        !loop.isDefinedOutsideOfLoop(target) ||
        source.getType() != target.getType() || !seen.insert(source).second ||
        !seen.insert(target).second)
      return {};
    copies.push_back({op, temporary, target});
  }
  return copies;
}

void doubleBuffer(scf::ForOp loop, ArrayRef<CarryCopy> copies, int64_t trips) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  // An odd step count: the last step stays as it was, after the loop.
  if (trips % 2) {
    b.setInsertionPointAfter(loop);
    IRMapping lastStep;
    for (Operation &op : loop.getBody()->without_terminator())
      b.clone(op, lastStep);
  }
  // Half as many steps, each two of the original (a schedule loop runs from
  // 0 by 1, and the body does not use its index).
  b.setInsertionPoint(loop);
  loop.getUpperBoundMutable().assign(
      arith::ConstantIndexOp::create(b, loc, trips / 2));
  // The temporaries live across steps now: allocate them before the loop.
  for (CarryCopy carry : copies)
    carry.temporary->moveBefore(loop);

  // The second half: the step again, carry and temporary swapped, before
  // the copies (which then go).
  Block *body = loop.getBody();
  Operation *firstCopy = copies.back().copy;
  SmallVector<Operation *> firstHalf;
  for (Operation &op : *body) {
    if (&op == firstCopy)
      break;
    firstHalf.push_back(&op);
  }
  b.setInsertionPoint(firstCopy);
  IRMapping mapping;
  for (CarryCopy carry : copies) {
    mapping.map(carry.temporary.getResult(), carry.carry);
    mapping.map(carry.carry, carry.temporary.getResult());
  }
  for (Operation *op : firstHalf)
    b.clone(*op, mapping);
  for (const CarryCopy &carry : copies)
    carry.copy->erase();
}

struct ArrDoubleBufferCarriesPass
    : vmapc::impl::ArrDoubleBufferCarriesBase<ArrDoubleBufferCarriesPass> {
  void runOnOperation() override {
    if (failed(vmapc::checkStage(getOperation(), getArgument(),
                                 vmapc::Stage::Bufferized,
                                 vmapc::Stage::Planned)))
      return signalPassFailure();
    for (auto entry : getOperation().getOps<func::FuncOp>()) {
      if (!vmapc::arr::isEntry(entry))
        continue;
      SmallVector<scf::ForOp> loops;
      entry.walk([&](scf::ForOp loop) { loops.push_back(loop); });
      for (scf::ForOp loop : loops) {
        // A schedule loop (0 to N by 1) whose body does not use its index.
        std::optional<int64_t> lower =
            getConstantIntValue(loop.getLowerBound());
        std::optional<int64_t> upper =
            getConstantIntValue(loop.getUpperBound());
        std::optional<int64_t> step = getConstantIntValue(loop.getStep());
        if (lower != 0 || step != 1 || !upper || *upper < 2 ||
            loop.getNumResults() != 0 || !loop.getInductionVar().use_empty())
          continue;
        SmallVector<CarryCopy> copies = carryCopies(loop);
        if (!copies.empty())
          doubleBuffer(loop, copies, *upper);
      }
    }
  }
};

} // namespace
