//===- KernelLoopPasses.cpp - vmapc's LLVM passes on the kernels' loops ---===//

#include "codegen/KernelLoopPasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/Transforms/Utils/LoopUtils.h"

#include <algorithm>
#include <optional>

namespace {

//===----------------------------------------------------------------------===//
// vmapc-keep-vector-loops-rolled
//===----------------------------------------------------------------------===//

/// Marks every loop that holds vector code or a block move (`memcpy`,
/// `memset`), which the MLIR pipeline tiled and vectorized, so that LLVM's
/// unroller does not unroll it at run time
/// (`llvm.loop.unroll.runtime.disable`); the loops MLIR left scalar, which
/// LLVM's loop vectorizer takes next, keep it.
struct KeepVectorLoopsRolled : llvm::PassInfoMixin<KeepVectorLoopsRolled> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    // Vector code, or a block copy or fill: LLVM's loop idiom pass makes
    // a `memcpy` of a row of MLIR's vector loads and stores (a padded
    // slab's copy of its input rows), whose loop the unroller then copied 8
    // times with a remainder (the loop's step kernel: half of its code
    // generator's time).
    auto isVector = [](const llvm::Instruction &instruction) {
      if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&instruction))
        return store->getValueOperand()->getType()->isVectorTy();
      return instruction.getType()->isVectorTy() ||
             llvm::isa<llvm::MemIntrinsic>(instruction);
    };
    llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    for (llvm::Loop *loop : loops.getLoopsInPreorder())
      if (llvm::any_of(loop->blocks(), [&](const llvm::BasicBlock *block) {
            return llvm::any_of(*block, isVector);
          }))
        llvm::addStringMetadataToLoop(loop, "llvm.loop.unroll.runtime.disable");
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

/// A vector load or store of an innermost loop L, with P its parent, at the
/// address {{s,+,rowBytes}<P>,+,stepBytes}<L>.
struct RowAccess {
  llvm::Instruction *instruction;
  llvm::Value *address;
  /// {s,+,rowBytes}<P>: where L starts on the row.
  const llvm::SCEV *rowStart;
  int64_t stepBytes;
  int64_t rowBytes;
  int64_t accessBytes;
  bool write;
};

/// `instruction` as a RowAccess of `loop`, if it is a vector load or store
/// of memory other than the stack's, L's step and P's are constants, and
/// they are within the bounds above.
std::optional<RowAccess> rowAccessOf(llvm::Instruction &instruction,
                                     const llvm::Loop &loop,
                                     llvm::ScalarEvolution &evolution) {
  llvm::Value *address;
  llvm::Type *type;
  bool write;
  if (auto *load = llvm::dyn_cast<llvm::LoadInst>(&instruction)) {
    address = load->getPointerOperand();
    type = load->getType();
    write = false;
  } else if (auto *store = llvm::dyn_cast<llvm::StoreInst>(&instruction)) {
    address = store->getPointerOperand();
    type = store->getValueOperand()->getType();
    write = true;
  } else {
    return std::nullopt;
  }
  // MLIR's vector code; the loops it left scalar are LLVM's vectorizer's.
  if (!type->isVectorTy() ||
      llvm::isa<llvm::AllocaInst>(
          llvm::getUnderlyingObject(address, /*MaxLookup=*/0)))
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
      llvm::dyn_cast<llvm::SCEVAddRecExpr>(evolution.getSCEV(address));
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
  const llvm::DataLayout &layout = instruction.getModule()->getDataLayout();
  return RowAccess{
      &instruction, address,
      rowStart,     *stepBytes,
      *rowBytes,    static_cast<int64_t>(layout.getTypeStoreSize(type)),
      write};
}

/// Adds the prefetches of the next row for the accesses of `group` (of one
/// innermost loop, all loads or all stores, with one step and one row
/// length, their row starts a constant apart): the byte ranges they read
/// or write in a step, merged where they touch, each prefetched a line at a
/// time over the S bytes a step moves it, R bytes on, before the group's
/// first access in the range.
void prefetchNextRow(llvm::ArrayRef<RowAccess> group,
                     llvm::ScalarEvolution &evolution) {
  struct Range {
    int64_t begin, end;
    const RowAccess *first;
  };
  llvm::SmallVector<Range> ranges;
  for (const RowAccess &access : group) {
    int64_t offset =
        llvm::cast<llvm::SCEVConstant>(
            evolution.getMinusSCEV(access.rowStart, group.front().rowStart))
            ->getAPInt()
            .getSExtValue();
    ranges.push_back({offset, offset + access.accessBytes, &access});
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
  const RowAccess &any = group.front();
  for (const Range &range : merged) {
    llvm::IRBuilder<> builder(range.first->instruction);
    for (int64_t line = 0; line < any.stepBytes; line += kCacheLineBytes) {
      llvm::Value *address =
          builder.CreateGEP(builder.getInt8Ty(), range.first->address,
                            builder.getInt64(any.rowBytes + line), "next_row");
      builder.CreateIntrinsic(
          llvm::Intrinsic::prefetch, {address->getType()},
          {address, /*rw=*/builder.getInt32(any.write),
           /*locality: every cache level=*/builder.getInt32(3),
           /*data=*/builder.getInt32(1)});
    }
  }
}

struct PrefetchNextRow : llvm::PassInfoMixin<PrefetchNextRow> {
  llvm::PreservedAnalyses run(llvm::Function &function,
                              llvm::FunctionAnalysisManager &analyses) {
    llvm::LoopInfo &loops = analyses.getResult<llvm::LoopAnalysis>(function);
    llvm::ScalarEvolution &evolution =
        analyses.getResult<llvm::ScalarEvolutionAnalysis>(function);
    bool changed = false;
    for (llvm::Loop *loop : loops.getLoopsInPreorder()) {
      if (!loop->isInnermost() || !loop->getParentLoop())
        continue;
      llvm::SmallVector<RowAccess> accesses;
      for (llvm::BasicBlock *block : loop->blocks())
        for (llvm::Instruction &instruction : *block)
          if (std::optional<RowAccess> access =
                  rowAccessOf(instruction, *loop, evolution))
            accesses.push_back(*access);
      // Groups in the order of their first access.
      llvm::SmallVector<bool> grouped(accesses.size(), false);
      for (size_t i = 0; i < accesses.size(); ++i) {
        if (grouped[i])
          continue;
        const RowAccess &first = accesses[i];
        llvm::SmallVector<RowAccess> group;
        for (size_t j = i; j < accesses.size(); ++j) {
          const RowAccess &access = accesses[j];
          if (grouped[j] || access.write != first.write ||
              access.stepBytes != first.stepBytes ||
              access.rowBytes != first.rowBytes ||
              !llvm::isa<llvm::SCEVConstant>(
                  evolution.getMinusSCEV(access.rowStart, first.rowStart)))
            continue;
          grouped[j] = true;
          group.push_back(access);
        }
        prefetchNextRow(group, evolution);
        changed = true;
      }
    }
    if (!changed)
      return llvm::PreservedAnalyses::all();
    // New calls and address arithmetic only: no block, loop or recurrence
    // changed.
    llvm::PreservedAnalyses preserved;
    preserved.preserveSet<llvm::CFGAnalyses>();
    preserved.preserve<llvm::LoopAnalysis>();
    preserved.preserve<llvm::ScalarEvolutionAnalysis>();
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
        if (name == "vmapc-prefetch-next-row") {
          passes.addPass(PrefetchNextRow());
          return true;
        }
        return false;
      });
}
