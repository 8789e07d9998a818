//===- KernelLoopPassesTest.cpp - unit tests of codegen/KernelLoopPasses.h ===//
//
// vmapc-prefetch-next-row: the vector loads and stores of an innermost loop
// that walks a row of 1 KiB or more, whose parent moves to the next row,
// get prefetches of the next row, one a cache line of a step; no other
// access gets one. The kernels' whole pipeline (CpuObject.h) keeps them.
//
//===----------------------------------------------------------------------===//

#include "codegen/KernelLoopPasses.h"
#include "codegen/CpuObject.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <set>
#include <string>
#include <tuple>

namespace {

/// Rows of 1000 floats (4000 bytes) read 4 vectors (128 bytes) a step and
/// written back scaled, 31 steps a row: the shape of the loops MLIR makes of
/// a softmax's passes over its row. Beside it, loops that must get no
/// prefetch: the same walk over the stack's scratch, rows of 512 bytes, a
/// walk down a column (a row a step), and the row walk in scalars.
constexpr const char *kLoops = R"ll(
define void @rows(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %row
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  %row.offset = mul nuw nsw i64 %r, 4000
  %in.row = getelementptr i8, ptr %in, i64 %row.offset
  %out.row = getelementptr i8, ptr %out, i64 %row.offset
  br label %step
step:
  %j = phi i64 [ 0, %row ], [ %j.next, %step ]
  %offset = mul nuw nsw i64 %j, 128
  %from0 = getelementptr i8, ptr %in.row, i64 %offset
  %from1 = getelementptr i8, ptr %from0, i64 32
  %from2 = getelementptr i8, ptr %from0, i64 64
  %from3 = getelementptr i8, ptr %from0, i64 96
  %x0 = load <8 x float>, ptr %from0, align 4
  %x1 = load <8 x float>, ptr %from1, align 4
  %x2 = load <8 x float>, ptr %from2, align 4
  %x3 = load <8 x float>, ptr %from3, align 4
  %y0 = fmul <8 x float> %x0, splat (float 2.0)
  %y1 = fmul <8 x float> %x1, splat (float 2.0)
  %y2 = fmul <8 x float> %x2, splat (float 2.0)
  %y3 = fmul <8 x float> %x3, splat (float 2.0)
  %to0 = getelementptr i8, ptr %out.row, i64 %offset
  %to1 = getelementptr i8, ptr %to0, i64 32
  %to2 = getelementptr i8, ptr %to0, i64 64
  %to3 = getelementptr i8, ptr %to0, i64 96
  store <8 x float> %y3, ptr %to3, align 4
  store <8 x float> %y2, ptr %to2, align 4
  store <8 x float> %y1, ptr %to1, align 4
  store <8 x float> %y0, ptr %to0, align 4
  %j.next = add nuw nsw i64 %j, 1
  %j.done = icmp eq i64 %j.next, 31
  br i1 %j.done, label %row.end, label %step
row.end:
  %r.next = add nuw nsw i64 %r, 1
  %r.done = icmp eq i64 %r.next, %n
  br i1 %r.done, label %exit, label %row
exit:
  ret void
}

define void @scratch_rows(ptr noalias %out, i64 %n) {
entry:
  %scratch = alloca [8000 x float], align 64
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %row
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  %row.offset = mul nuw nsw i64 %r, 4000
  %scratch.row = getelementptr i8, ptr %scratch, i64 %row.offset
  br label %step
step:
  %j = phi i64 [ 0, %row ], [ %j.next, %step ]
  %offset = mul nuw nsw i64 %j, 32
  %from = getelementptr i8, ptr %scratch.row, i64 %offset
  store <8 x float> splat (float 1.0), ptr %from, align 4
  %j.next = add nuw nsw i64 %j, 1
  %j.done = icmp eq i64 %j.next, 125
  br i1 %j.done, label %row.end, label %step
row.end:
  %r.next = add nuw nsw i64 %r, 1
  %r.done = icmp eq i64 %r.next, 2
  br i1 %r.done, label %exit, label %row
exit:
  %x = load <8 x float>, ptr %scratch, align 64
  store <8 x float> %x, ptr %out, align 4
  ret void
}

define void @short_rows(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %row
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  %row.offset = mul nuw nsw i64 %r, 512
  %in.row = getelementptr i8, ptr %in, i64 %row.offset
  %out.row = getelementptr i8, ptr %out, i64 %row.offset
  br label %step
step:
  %j = phi i64 [ 0, %row ], [ %j.next, %step ]
  %offset = mul nuw nsw i64 %j, 32
  %from = getelementptr i8, ptr %in.row, i64 %offset
  %x = load <8 x float>, ptr %from, align 4
  %to = getelementptr i8, ptr %out.row, i64 %offset
  store <8 x float> %x, ptr %to, align 4
  %j.next = add nuw nsw i64 %j, 1
  %j.done = icmp eq i64 %j.next, 16
  br i1 %j.done, label %row.end, label %step
row.end:
  %r.next = add nuw nsw i64 %r, 1
  %r.done = icmp eq i64 %r.next, %n
  br i1 %r.done, label %exit, label %row
exit:
  ret void
}

define void @column_walk(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %column
column:
  %c = phi i64 [ 0, %entry ], [ %c.next, %column.end ]
  %column.offset = mul nuw nsw i64 %c, 32
  %in.column = getelementptr i8, ptr %in, i64 %column.offset
  %out.column = getelementptr i8, ptr %out, i64 %column.offset
  br label %step
step:
  %i = phi i64 [ 0, %column ], [ %i.next, %step ]
  %offset = mul nuw nsw i64 %i, 4000
  %from = getelementptr i8, ptr %in.column, i64 %offset
  %x = load <8 x float>, ptr %from, align 4
  %to = getelementptr i8, ptr %out.column, i64 %offset
  store <8 x float> %x, ptr %to, align 4
  %i.next = add nuw nsw i64 %i, 1
  %i.done = icmp eq i64 %i.next, %n
  br i1 %i.done, label %column.end, label %step
column.end:
  %c.next = add nuw nsw i64 %c, 1
  %c.done = icmp eq i64 %c.next, 125
  br i1 %c.done, label %exit, label %column
exit:
  ret void
}

define void @scalar_rows(ptr noalias %out, ptr noalias %in, i64 %n) {
entry:
  %empty = icmp sle i64 %n, 0
  br i1 %empty, label %exit, label %row
row:
  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]
  %row.offset = mul nuw nsw i64 %r, 4000
  %in.row = getelementptr i8, ptr %in, i64 %row.offset
  %out.row = getelementptr i8, ptr %out, i64 %row.offset
  br label %step
step:
  %j = phi i64 [ 0, %row ], [ %j.next, %step ]
  %offset = mul nuw nsw i64 %j, 4
  %from = getelementptr i8, ptr %in.row, i64 %offset
  %x = load float, ptr %from, align 4
  %to = getelementptr i8, ptr %out.row, i64 %offset
  store float %x, ptr %to, align 4
  %j.next = add nuw nsw i64 %j, 1
  %j.done = icmp eq i64 %j.next, 1000
  br i1 %j.done, label %row.end, label %step
row.end:
  %r.next = add nuw nsw i64 %r, 1
  %r.done = icmp eq i64 %r.next, %n
  br i1 %r.done, label %exit, label %row
exit:
  ret void
}
)ll";

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &context) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(kLoops, diagnostic, context);
  EXPECT_TRUE(module) << diagnostic.getMessage().str();
  return module;
}

/// Runs `pipeline` (the text of a function pipeline) on `module`, with
/// vmapc's kernel loop passes registered.
void runFunctionPipeline(llvm::Module &module, llvm::StringRef pipeline) {
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager cgscc;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(cgscc);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, cgscc, modules);
  vmapc::registerKernelLoopPasses(builder);
  llvm::ModulePassManager passes;
  llvm::Error error = builder.parsePassPipeline(passes, pipeline);
  ASSERT_FALSE(error) << llvm::toString(std::move(error));
  passes.run(module, modules);
}

/// Each prefetch of `function` as (the name of the address it is an offset
/// of, the offset in bytes, whether it is for a write); "?" and -1 where the
/// address is not a constant offset of a named value.
using Prefetch = std::tuple<std::string, int64_t, bool>;
std::multiset<Prefetch> prefetchesOf(const llvm::Function &function) {
  std::multiset<Prefetch> prefetches;
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block) {
      auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction);
      if (!call || call->getIntrinsicID() != llvm::Intrinsic::prefetch)
        continue;
      bool write = llvm::cast<llvm::ConstantInt>(call->getArgOperand(1))
                       ->getZExtValue() == 1;
      auto *address =
          llvm::dyn_cast<llvm::GetElementPtrInst>(call->getArgOperand(0));
      auto *offset =
          address && address->getNumIndices() == 1
              ? llvm::dyn_cast<llvm::ConstantInt>(address->getOperand(1))
              : nullptr;
      if (!offset || !address->getSourceElementType()->isIntegerTy(8)) {
        prefetches.insert({"?", -1, write});
        continue;
      }
      prefetches.insert({address->getPointerOperand()->getName().str(),
                         offset->getSExtValue(), write});
    }
  return prefetches;
}

int countPrefetches(const llvm::Function &function) {
  int count = 0;
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block)
      if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction))
        count += call->getIntrinsicID() == llvm::Intrinsic::prefetch;
  return count;
}

TEST(PrefetchNextRow, EachLineOfAStepIsPrefetchedARowAhead) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(context);
  ASSERT_TRUE(module);
  runFunctionPipeline(*module, "function(vmapc-prefetch-next-row)");

  // The four loads of a step are 128 contiguous bytes from %from0: two lines,
  // 4000 bytes on, read; the stores likewise from %to0, written.
  std::multiset<Prefetch> expected{{"from0", 4000, false},
                                   {"from0", 4064, false},
                                   {"to0", 4000, true},
                                   {"to0", 4064, true}};
  EXPECT_EQ(prefetchesOf(*module->getFunction("rows")), expected);
  // Each before the first access of its range: the loads' before %x0, the
  // stores' before the store to %to0, the last of the four.
  for (const llvm::BasicBlock &block : *module->getFunction("rows"))
    for (const llvm::Instruction &instruction : block) {
      auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction);
      if (!call || call->getIntrinsicID() != llvm::Intrinsic::prefetch)
        continue;
      const llvm::Instruction *next = call->getNextNode();
      while (llvm::isa<llvm::GetElementPtrInst, llvm::IntrinsicInst>(next))
        next = next->getNextNode();
      bool write = llvm::cast<llvm::ConstantInt>(call->getArgOperand(1))
                       ->getZExtValue() == 1;
      if (write)
        EXPECT_EQ(
            llvm::cast<llvm::StoreInst>(next)->getPointerOperand()->getName(),
            "to0");
      else
        EXPECT_EQ(next->getName(), "x0");
    }

  for (const char *name :
       {"scratch_rows", "short_rows", "column_walk", "scalar_rows"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(countPrefetches(*module->getFunction(name)), 0);
  }
}

TEST(PrefetchNextRow, TheKernelPipelineKeepsThePrefetches) {
  vmapc::initializeCpuTarget();
  for (const char *level : {"x86-64", "x86-64-v3", "x86-64-v4"}) {
    SCOPED_TRACE(level);
    llvm::LLVMContext context;
    std::unique_ptr<llvm::Module> module = parse(context);
    ASSERT_TRUE(module);
    llvm::Error error = vmapc::optimizeCpuKernels(*module, level);
    ASSERT_FALSE(error) << llvm::toString(std::move(error));
    EXPECT_EQ(countPrefetches(*module->getFunction("rows")), 4);
    for (const char *name : {"short_rows", "column_walk", "scalar_rows"}) {
      SCOPED_TRACE(name);
      EXPECT_EQ(countPrefetches(*module->getFunction(name)), 0);
    }
  }
}

} // namespace
