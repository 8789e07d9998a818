//===- KernelLoopPasses.cpp - vmapc's LLVM passes on the kernels' loops ---===//

#include "codegen/KernelLoopPasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

#include <algorithm>
#include <optional>

namespace {

/// Whether `loop` holds vector code (a vector value or a store of one) the
/// MLIR pipeline vectorized, or, with `blockMoves`, a `memcpy`/`memset`:
/// LLVM's loop idiom pass makes one of a row of MLIR's vector loads and
/// stores (a padded slab's copy of its input rows).
static bool holdsVectorCode(const llvm::Loop *loop, bool blockMoves) {
  auto isVector = [&](const llvm::Instruction &instruction) {
    if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&instruction))
      return store->getValueOperand()->getType()->isVectorTy();
    return instruction.getType()->isVectorTy() ||
           (blockMoves && llvm::isa<llvm::MemIntrinsic>(instruction));
  };
  return llvm::any_of(loop->blocks(), [&](const llvm::BasicBlock *block) {
    return llvm::any_of(*block, isVector);
  });
}

//===----------------------------------------------------------------------===//
// vmapc-keep-vector-loops-rolled
//===----------------------------------------------------------------------===//

/// Marks every loop that holds vector code or a block move (`memcpy`,
/// `memset`), which the MLIR pipeline tiled and vectorized, so that LLVM's
/// unroller does not unroll it at run time
/// (`llvm.loop.unroll.runtime.disable`); the loops MLIR left scalar, which
/// LLVM's loop vectorizer takes next, keep it. (A row copy's `memcpy` loop
/// was copied 8 times with a remainder: half of the loop step kernel's code
/// generator time.)
struct KeepVectorLoopsRolled : llvm::PassInfoMixin<KeepVectorLoopsRolled> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    for (llvm::Loop *loop : loops.getLoopsInPreorder())
      if (holdsVectorCode(loop, /*blockMoves=*/true))
        llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.runtime.disable");
    return llvm::PreservedAnalyses::all();
  }
};

//===----------------------------------------------------------------------===//
// vmapc-keep-tile-loops-rolled
//===----------------------------------------------------------------------===//

/// Marks every loop that holds another loop and vector code (a loop over a
/// slab's column tiles, whose body is the loop over its row tiles)
/// `llvm.loop.unroll.disable`, so that LLVM's full unroller does not copy
/// the inner loops once per column tile. The attribute has no operand:
/// addStringMetadataToLoop would give it an `i32 0`, which the unroller's
/// getBooleanLoopAttribute reads as false.
struct KeepTileLoopsRolled : llvm::PassInfoMixin<KeepTileLoopsRolled> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    llvm::LLVMContext &context = function.getContext();
    llvm::MDNode *disable = llvm::MDNode::get(
        context, llvm::MDString::get(context, "llvm.loop.unroll.disable"));
    llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    for (llvm::Loop *loop : loops.getLoopsInPreorder())
      if (!loop->isInnermost() && holdsVectorCode(loop, /*blockMoves=*/false))
        loop->setLoopID(llvm::makePostTransformationMetadata(
            context, loop->getLoopID(), {}, {disable}));
    return llvm::PreservedAnalyses::all();
  }
};

//===----------------------------------------------------------------------===//
// vmapc-prefetch-next-row
//===----------------------------------------------------------------------===//

/// Bytes of a cache line on every x86-64 the levels run on.
constexpr int64_t kCacheLineBytes = 64;
/// The longest step of an innermost loop that walks a row (8 vectors of 64
/// bytes): a longer one is a column walk, not a row's.
constexpr int64_t kMaxRowStepBytes = 512;
/// The shortest row worth prefetching: a shorter one is a burst of under 16
/// lines, which the hardware's stream prefetcher follows.
constexpr int64_t kMinRowBytes = 1024;

/// A vector load (or store) of an innermost loop L, with P its parent, at the
/// address {{s,+,rowBytes}<P>,+,stepBytes}<L>.
struct RowAccess {
  llvm::Instruction *access;
  /// {s,+,rowBytes}<P>: where L starts on the row.
  const llvm::SCEV *rowStart;
  int64_t stepBytes;
  int64_t rowBytes;
};

/// `instruction` as a RowAccess of `loop`, if it is a vector load (a vector
/// store with `stores`) of memory other than the stack's, L's step and P's
/// are constants, and they are within the bounds above.
std::optional<RowAccess> rowAccessOf(llvm::Instruction &instruction,
                                     const llvm::Loop &loop,
                                     llvm::ScalarEvolution &evolution,
                                     bool stores) {
  // Loads, or stores with `stores` (anything else has no pointer operand).
  llvm::Value *pointer = llvm::getLoadStorePointerOperand(&instruction);
  if (!pointer || llvm::isa<llvm::StoreInst>(instruction) != stores)
    return std::nullopt;
  // MLIR's vector code; the loops it left scalar are LLVM's vectorizer's.
  if (!llvm::getLoadStoreType(&instruction)->isVectorTy() ||
      llvm::isa<llvm::AllocaInst>(
          llvm::getUnderlyingObject(pointer, /*MaxLookup=*/0)))
    return std::nullopt;
  auto constantStep =
      [&](const llvm::SCEVAddRecExpr *recurrence) -> std::optional<int64_t> {
    auto *step = llvm::dyn_cast<llvm::SCEVConstant>(
        recurrence->getStepRecurrence(evolution));
    if (!step || step->getAPInt().getSignificantBits() > 64)
      return std::nullopt;
    return step->getAPInt().getSExtValue();
  };
  auto *inLoop =
      llvm::dyn_cast<llvm::SCEVAddRecExpr>(evolution.getSCEV(pointer));
  if (!inLoop || inLoop->getLoop() != &loop || !inLoop->isAffine())
    return std::nullopt;
  auto *rowStart = llvm::dyn_cast<llvm::SCEVAddRecExpr>(inLoop->getStart());
  if (!rowStart || rowStart->getLoop() != loop.getParentLoop() ||
      !rowStart->isAffine())
    return std::nullopt;
  std::optional<int64_t> stepBytes = constantStep(inLoop);
  std::optional<int64_t> rowBytes = constantStep(rowStart);
  if (!stepBytes || !rowBytes || *stepBytes <= 0 ||
      *stepBytes > kMaxRowStepBytes || *rowBytes < kMinRowBytes)
    return std::nullopt;
  return RowAccess{&instruction, rowStart, *stepBytes, *rowBytes};
}

/// The RowAccesses of `loop`: its loads, or with `stores` its stores.
llvm::SmallVector<RowAccess> rowAccessesOf(const llvm::Loop &loop,
                                           llvm::ScalarEvolution &evolution,
                                           bool stores) {
  llvm::SmallVector<RowAccess> accesses;
  for (llvm::BasicBlock *block : loop.blocks())
    for (llvm::Instruction &instruction : *block)
      if (std::optional<RowAccess> access =
              rowAccessOf(instruction, loop, evolution, stores))
        accesses.push_back(*access);
  return accesses;
}

/// Adds the prefetches of the next row for `group` (loads of one row, of one
/// innermost loop, with one step): the byte ranges they read in a step, merged
/// where they touch, each prefetched a line at a time over the bytes a step
/// moves it, a row on, before the group's first load in the range.
void prefetchNextRow(llvm::ArrayRef<RowAccess> group,
                     llvm::ScalarEvolution &evolution) {
  struct Range {
    int64_t begin, end;
    llvm::Instruction *first;
  };
  const llvm::DataLayout &layout =
      group.front().access->getModule()->getDataLayout();
  llvm::SmallVector<Range> ranges;
  for (const RowAccess &load : group) {
    int64_t offset =
        llvm::cast<llvm::SCEVConstant>(
            evolution.getMinusSCEV(load.rowStart, group.front().rowStart))
            ->getAPInt()
            .getSExtValue();
    int64_t bytes =
        layout.getTypeStoreSize(llvm::getLoadStoreType(load.access));
    ranges.push_back({offset, offset + bytes, load.access});
  }
  llvm::sort(ranges,
             [](const Range &a, const Range &b) { return a.begin < b.begin; });
  llvm::SmallVector<Range> merged;
  for (const Range &range : ranges) {
    if (!merged.empty() && range.begin <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, range.end);
      continue;
    }
    merged.push_back(range);
  }
  int64_t stepBytes = group.front().stepBytes;
  int64_t rowBytes = group.front().rowBytes;
  for (const Range &range : merged) {
    llvm::IRBuilder<> builder(range.first);
    for (int64_t line = 0; line < stepBytes; line += kCacheLineBytes) {
      llvm::Value *address = builder.CreateGEP(
          builder.getInt8Ty(), llvm::getLoadStorePointerOperand(range.first),
          builder.getInt64(rowBytes + line), "next_row");
      builder.CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                              {address, /*read=*/builder.getInt32(0),
                               /*every cache level=*/builder.getInt32(3),
                               /*data=*/builder.getInt32(1)});
    }
  }
}

/// Adds to `later`, a row's later pass over the row that `group` (loads of
/// one row and step) reads, prefetches for a write of the rows that the
/// innermost loops of the same parent after it store (vector stores at
/// {{s,+,R}<P>,+,S}<W>, as RowAccess takes them): the row's lines at the
/// offsets `group` reads in the step, before its first load, so that the
/// lines are in the cache, owned, when the later loop stores to them (the
/// softmax's division writes the row its exp pass computes beside). Stores
/// a constant apart share their prefetches.
void prefetchLaterWrites(llvm::Loop &later, llvm::ArrayRef<RowAccess> group,
                         llvm::DominatorTree &dominance,
                         llvm::ScalarEvolution &evolution) {
  llvm::Loop &parent = *later.getParentLoop();
  llvm::BasicBlock *preheader = later.getLoopPreheader();
  if (!preheader)
    return;
  // Per row stored, the start of its store at the lowest offset.
  llvm::SmallVector<const llvm::SCEV *> rows;
  for (llvm::Loop *writer : parent.getSubLoops()) {
    if (writer == &later || !writer->isInnermost() ||
        !dominance.dominates(later.getHeader(), writer->getHeader()))
      continue;
    for (const RowAccess &store :
         rowAccessesOf(*writer, evolution, /*stores=*/true)) {
      auto row = llvm::find_if(rows, [&](const llvm::SCEV *start) {
        return llvm::isa<llvm::SCEVConstant>(
            evolution.getMinusSCEV(store.rowStart, start));
      });
      if (row == rows.end())
        rows.push_back(store.rowStart);
      else if (llvm::cast<llvm::SCEVConstant>(
                   evolution.getMinusSCEV(store.rowStart, *row))
                   ->getAPInt()
                   .isNegative())
        *row = store.rowStart;
    }
  }
  const RowAccess &front = group.front();
  llvm::Instruction *where = preheader->getTerminator();
  llvm::SCEVExpander expander(evolution, "vmapc_row");
  for (const llvm::SCEV *row : rows) {
    if (!expander.isSafeToExpandAt(row, where) ||
        !expander.isSafeToExpandAt(front.rowStart, where))
      continue;
    // The distance in bytes from the row read to the row written, in the
    // preheader; the stored row's line at the offset of each line read.
    llvm::Value *written = expander.expandCodeFor(row, row->getType(), where);
    llvm::Value *read = expander.expandCodeFor(
        front.rowStart, front.rowStart->getType(), where);
    llvm::IRBuilder<> builder(where);
    llvm::Value *distance = builder.CreateSub(
        builder.CreatePtrToInt(written, builder.getInt64Ty()),
        builder.CreatePtrToInt(read, builder.getInt64Ty()), "written_row");
    builder.SetInsertPoint(front.access);
    llvm::Value *base = builder.CreateGEP(
        builder.getInt8Ty(), llvm::getLoadStorePointerOperand(front.access),
        distance, "written");
    for (int64_t line = 0; line < front.stepBytes; line += kCacheLineBytes) {
      llvm::Value *address =
          line == 0 ? base
                    : builder.CreateGEP(builder.getInt8Ty(), base,
                                        builder.getInt64(line), "written");
      builder.CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                              {address, /*write=*/builder.getInt32(1),
                               /*every cache level=*/builder.getInt32(3),
                               /*data=*/builder.getInt32(1)});
    }
  }
}

/// A vector load of the loop nest of `parent` from a row of `parent`: at
/// {s,+,R}<parent> (straight-line code in `parent`'s body), or at
/// {{s,+,R}<parent>,+,S}<L> (in a loop L that `parent` holds).
struct RowRead {
  llvm::BasicBlock *block;
  /// {s,+,R}<parent>.
  const llvm::SCEV *rowStart;
};

/// The RowReads of `parent`'s loop nest.
llvm::SmallVector<RowRead> rowReadsOf(const llvm::Loop &parent,
                                      llvm::ScalarEvolution &evolution) {
  llvm::SmallVector<RowRead> reads;
  for (llvm::BasicBlock *block : parent.blocks())
    for (llvm::Instruction &instruction : *block) {
      auto *load = llvm::dyn_cast<llvm::LoadInst>(&instruction);
      if (!load || !load->getType()->isVectorTy())
        continue;
      auto *address = llvm::dyn_cast<llvm::SCEVAddRecExpr>(
          evolution.getSCEV(load->getPointerOperand()));
      if (address && address->getLoop() != &parent)
        address = llvm::dyn_cast<llvm::SCEVAddRecExpr>(address->getStart());
      if (address && address->getLoop() == &parent)
        reads.push_back({block, address});
    }
  return reads;
}

/// The prefetches go into a row's later passes: an innermost loop of a
/// parent loop whose body reads the same row before it (in code that
/// dominates the loop: an earlier loop, or one LLVM unrolled in full). The
/// first pass streams the row from memory, which the hardware prefetcher
/// follows; the later ones read it from the cache, the compute between and
/// in them (softmax's exp) leaves the hardware prefetcher idle, and that is
/// when the next row's lines can come in. A row read in one pass (an
/// elementwise chain) keeps its stream.
struct PrefetchNextRow : llvm::PassInfoMixin<PrefetchNextRow> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    llvm::DominatorTree &dominance =
        analyses.getResult<llvm::DominatorTreeAnalysis>(function);
    llvm::ScalarEvolution &evolution =
        analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
    bool changed = false;
    for (llvm::Loop *later : loops.getLoopsInPreorder()) {
      llvm::Loop *parent = later->getParentLoop();
      if (!later->isInnermost() || !parent)
        continue;
      llvm::SmallVector<RowAccess> loads =
          rowAccessesOf(*later, evolution, /*stores=*/false);
      if (loads.empty())
        continue;
      llvm::SmallVector<RowRead> reads = rowReadsOf(*parent, evolution);
      // The loads of rows read before, in groups of one row and step.
      llvm::SmallVector<llvm::SmallVector<RowAccess>> groups;
      for (const RowAccess &load : loads) {
        bool readBefore = llvm::any_of(reads, [&](const RowRead &read) {
          return !later->contains(read.block) &&
                 dominance.dominates(read.block, later->getHeader()) &&
                 llvm::isa<llvm::SCEVConstant>(
                     evolution.getMinusSCEV(load.rowStart, read.rowStart));
        });
        if (!readBefore)
          continue;
        auto group = llvm::find_if(groups, [&](const auto &group) {
          return load.stepBytes == group.front().stepBytes &&
                 llvm::isa<llvm::SCEVConstant>(evolution.getMinusSCEV(
                     load.rowStart, group.front().rowStart));
        });
        if (group == groups.end())
          groups.push_back({load});
        else
          group->push_back(load);
      }
      for (const llvm::SmallVector<RowAccess> &group : groups)
        prefetchNextRow(group, evolution);
      if (!groups.empty())
        prefetchLaterWrites(*later, groups.front(), dominance, evolution);
      changed |= !groups.empty();
    }
    if (!changed)
      return llvm::PreservedAnalyses::all();
    // New calls and address arithmetic only (the expander reuses the parent
    // loop's induction variable or adds one): no block or loop changed.
    llvm::PreservedAnalyses preserved;
    preserved.preserveSet<llvm::CFGAnalyses>();
    preserved.preserve<llvm::LoopAnalysis>();
    return preserved;
  }
};

} // namespace

void vmapc::registerKernelLoopPasses(llvm::PassBuilder &builder) {
  builder.registerPipelineParsingCallback(
      [](llvm::StringRef name, llvm::FunctionPassManager &passes,
         llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (name == "vmapc-keep-vector-loops-rolled") {
          passes.addPass(KeepVectorLoopsRolled());
          return true;
        }
        if (name == "vmapc-keep-tile-loops-rolled") {
          passes.addPass(KeepTileLoopsRolled());
          return true;
        }
        if (name == "vmapc-prefetch-next-row") {
          passes.addPass(PrefetchNextRow());
          return true;
        }
        return false;
      });
}
