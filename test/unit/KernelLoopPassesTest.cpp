//===- KernelLoopPassesTest.cpp - unit tests of codegen/KernelLoopPasses.h ===//
//
// vmapc-prefetch-next-row: the vector loads of a later pass over a row of
// 1 KiB or more (an innermost loop whose parent moves to the next row, after
// code of the parent that read the row) get prefetches of the next row, one
// a cache line of a step, and prefetches for a write of the rows that loops
// after them in the same row loop store; no other access gets one. The
// kernels' whole pipeline (CpuObject.h) keeps them.
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
#include <vector>

namespace {

/// A loop nest over rows of `rowBytes` (the parent loop) with one or two
/// passes over each row, the shape of the loops MLIR makes of a softmax: a
/// first pass that takes the maximum of the row (a loop, the same unrolled
/// in full into the parent's body, or none), then a loop over the row again,
/// `loads` vectors (or scalars) a step of `stepBytes`, that writes the row
/// less that maximum; with `writeAfter`, a third loop then writes the
/// quotients of a row of the stack's scratch by the maximum to a row of
/// %after (a row that the second pass's write prefetches cover), of the
/// stack's scratch with `writeAfterToScratch`.
/// Rows are read from the argument %in or from the stack's scratch.
struct RowNest {
  enum class FirstPass { Loop, Unrolled, None };
  const char *name;
  int64_t rowBytes = 4000;
  int64_t stepBytes = 128;
  int loads = 4;
  FirstPass firstPass = FirstPass::Loop;
  bool scalar = false;
  bool fromScratch = false;
  bool writeAfter = false;
  bool writeAfterToScratch = false;
};

std::string irOf(const RowNest &nest) {
  std::string type = nest.scalar ? "float" : "<8 x float>";
  int64_t elementBytes = nest.scalar ? 4 : 32;
  int64_t steps = nest.rowBytes / nest.stepBytes;
  auto number = [](int64_t value) { return std::to_string(value); };
  std::string ir =
      "define void @" + std::string(nest.name) +
      "(ptr noalias %out, ptr noalias %in, i64 %n, ptr noalias %after) "
      "{\nentry:\n";
  if (nest.writeAfter)
    ir += "  %quotients = alloca [" + number(nest.rowBytes) +
          " x i8], align 64\n";
  if (nest.writeAfterToScratch)
    ir += "  %after.scratch = alloca [" + number(2 * nest.rowBytes) +
          " x i8], align 64\n";
  if (nest.fromScratch)
    ir += "  %scratch = alloca [" + number(2 * nest.rowBytes) +
          " x i8], align 64\n  %src = getelementptr i8, ptr %scratch, i64 "
          "0\n";
  else
    ir += "  %src = getelementptr i8, ptr %in, i64 0\n";
  ir += "  %empty = icmp sle i64 %n, 0\n"
        "  br i1 %empty, label %exit, label %row\n"
        "row:\n"
        "  %r = phi i64 [ 0, %entry ], [ %r.next, %row.end ]\n"
        "  %row.offset = mul nuw nsw i64 %r, " +
        number(nest.rowBytes) +
        "\n"
        "  %in.row = getelementptr i8, ptr %src, i64 %row.offset\n"
        "  %out.row = getelementptr i8, ptr %out, i64 %row.offset\n";
  std::string maximum;
  switch (nest.firstPass) {
  case RowNest::FirstPass::Loop:
    ir += "  br label %first\n"
          "first:\n"
          "  %i = phi i64 [ 0, %row ], [ %i.next, %first ]\n"
          "  %m = phi " +
          type + " [ zeroinitializer, %row ], [ %m.next, %first ]\n" +
          "  %first.offset = mul nuw nsw i64 %i, " + number(nest.stepBytes) +
          "\n"
          "  %first.from = getelementptr i8, ptr %in.row, i64 %first.offset\n"
          "  %first.x = load " +
          type + ", ptr %first.from, align 4\n  %m.next = call " + type +
          " @llvm.maxnum(" + type + " %m, " + type +
          " %first.x)\n"
          "  %i.next = add nuw nsw i64 %i, 1\n"
          "  %i.done = icmp eq i64 %i.next, " +
          number(steps) +
          "\n"
          "  br i1 %i.done, label %second.start, label %first\n"
          "second.start:\n";
    maximum = "%m.next";
    break;
  case RowNest::FirstPass::Unrolled:
    ir += "  %head = load " + type +
          ", ptr %in.row, align 4\n"
          "  %tail.from = getelementptr i8, ptr %in.row, i64 " +
          number(elementBytes) + "\n  %tail = load " + type +
          ", ptr %tail.from, align 4\n  %both = call " + type +
          " @llvm.maxnum(" + type + " %head, " + type + " %tail)\n";
    maximum = "%both";
    break;
  case RowNest::FirstPass::None:
    maximum = nest.scalar ? "1.0" : "splat (float 1.0)";
    break;
  }
  ir += "  br label %second\n"
        "second:\n"
        "  %j = phi i64 [ 0, %" +
        std::string(nest.firstPass == RowNest::FirstPass::Loop ? "second.start"
                                                               : "row") +
        " ], [ %j.next, %second ]\n"
        "  %offset = mul nuw nsw i64 %j, " +
        number(nest.stepBytes) + "\n";
  for (int k = 0; k < nest.loads; ++k) {
    std::string index = number(k);
    ir += "  %from" + index + " = getelementptr i8, ptr %in.row, i64 %offset\n";
    if (k > 0)
      ir += "  %from" + index + ".at = getelementptr i8, ptr %from" + index +
            ", i64 " + number(k * elementBytes) + "\n";
    std::string from = k > 0 ? "%from" + index + ".at" : "%from0";
    ir += "  %x" + index + " = load " + type + ", ptr " + from +
          ", align 4\n"
          "  %y" +
          index + " = fsub " + type + " %x" + index + ", " + maximum +
          "\n"
          "  %to" +
          index + " = getelementptr i8, ptr %out.row, i64 %offset\n" + "  %to" +
          index + ".at = getelementptr i8, ptr %to" + index + ", i64 " +
          number(k * elementBytes) + "\n  store " + type + " %y" + index +
          ", ptr %to" + index + ".at, align 4\n";
  }
  ir += "  %j.next = add nuw nsw i64 %j, 1\n"
        "  %j.done = icmp eq i64 %j.next, " +
        number(steps) +
        "\n"
        "  br i1 %j.done, label %" +
        std::string(nest.writeAfter ? "third.start" : "row.end") +
        ", label %second\n";
  if (nest.writeAfter) {
    // Each step divides `loads` values of the stack's scratch by the
    // maximum (work enough that LLVM does not unroll the loop in full).
    ir += "third.start:\n"
          "  %after.row = getelementptr i8, ptr " +
          std::string(nest.writeAfterToScratch ? "%after.scratch" : "%after") +
          ", i64 %row.offset\n"
          "  br label %third\n"
          "third:\n"
          "  %k = phi i64 [ 0, %third.start ], [ %k.next, %third ]\n"
          "  %third.offset = mul nuw nsw i64 %k, " +
          number(nest.stepBytes) + "\n";
    for (int k = 0; k < nest.loads; ++k) {
      std::string index = number(k);
      std::string at = number(k * elementBytes);
      ir += "  %third.from" + index +
            " = getelementptr i8, ptr %quotients, i64 %third.offset\n"
            "  %third.from" +
            index + ".at = getelementptr i8, ptr %third.from" + index +
            ", i64 " + at + "\n  %third.x" + index + " = load " + type +
            ", ptr %third.from" + index + ".at, align 4\n  %third.y" + index +
            " = fdiv " + type + " %third.x" + index + ", " + maximum +
            "\n"
            "  %third.to" +
            index + " = getelementptr i8, ptr %after.row, i64 %third.offset\n" +
            "  %third.to" + index + ".at = getelementptr i8, ptr %third.to" +
            index + ", i64 " + at + "\n  store " + type + " %third.y" + index +
            ", ptr %third.to" + index + ".at, align 4\n";
    }
    ir += "  %k.next = add nuw nsw i64 %k, 1\n"
          "  %k.done = icmp eq i64 %k.next, " +
          number(steps) +
          "\n"
          "  br i1 %k.done, label %row.end, label %third\n";
  }
  ir += "row.end:\n"
        "  %r.next = add nuw nsw i64 %r, 1\n"
        "  %r.done = icmp eq i64 %r.next, %n\n"
        "  br i1 %r.done, label %exit, label %row\n"
        "exit:\n"
        "  ret void\n"
        "}\n\n";
  return ir;
}

/// Rows of 1000 floats (4000 bytes) read 4 vectors (128 bytes) a step in
/// their second pass, 31 steps a row (what is left of 4000 bytes is not
/// read: a tail MLIR peels), after a first pass in a loop (`rows`) or
/// unrolled (`unrolled_first_pass`); the same with a third loop that writes
/// a row of %after (`write_after`, the softmax's shape); beside them, nests
/// that must get no prefetch: a row read in one pass (also with a write
/// after it), rows of the stack's scratch, rows of 512 bytes, steps of 1024
/// bytes (8 vectors apart, as down a column), and rows read in scalars; and
/// one whose third loop writes the stack's scratch, which gets the read
/// prefetches only.
std::string loopNests() {
  using FirstPass = RowNest::FirstPass;
  std::string ir;
  for (const RowNest &nest : std::initializer_list<RowNest>{
           {"rows"},
           {"unrolled_first_pass", 4000, 128, 4, FirstPass::Unrolled},
           {"one_pass", 4000, 128, 4, FirstPass::None},
           {"scratch_rows", 4000, 128, 4, FirstPass::Loop, false, true},
           {"short_rows", 512, 32, 1},
           {"long_steps", 8192, 1024, 1},
           {"scalar_rows", 4000, 4, 1, FirstPass::Loop, true},
           {"write_after", 4000, 128, 4, FirstPass::Loop, false, false, true},
           {"write_after_one_pass", 4000, 128, 4, FirstPass::None, false, false,
            true},
           {"write_after_to_scratch", 4000, 128, 4, FirstPass::Loop, false,
            false, true, true}})
    ir += irOf(nest);
  return ir;
}

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &context) {
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(loopNests(), diagnostic, context);
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

/// The `llvm.prefetch` calls of `function`, in order.
std::vector<const llvm::IntrinsicInst *>
prefetchCallsOf(const llvm::Function &function) {
  std::vector<const llvm::IntrinsicInst *> calls;
  for (const llvm::BasicBlock &block : function)
    for (const llvm::Instruction &instruction : block)
      if (auto *call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction);
          call && call->getIntrinsicID() == llvm::Intrinsic::prefetch)
        calls.push_back(call);
  return calls;
}

bool isWritePrefetch(const llvm::IntrinsicInst &call) {
  return llvm::cast<llvm::ConstantInt>(call.getArgOperand(1))->isOne();
}

/// Each prefetch of `function` as (the name of the address it is an offset
/// of, the offset in bytes, whether it is for a write); "?" and -1 where the
/// address is not a constant offset of a named value.
using Prefetch = std::tuple<std::string, int64_t, bool>;
std::multiset<Prefetch> prefetchesOf(const llvm::Function &function) {
  std::multiset<Prefetch> prefetches;
  for (const llvm::IntrinsicInst *call : prefetchCallsOf(function)) {
    bool write = isWritePrefetch(*call);
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
  return prefetchCallsOf(function).size();
}

TEST(PrefetchNextRow, ARowsLaterPassPrefetchesEachLineOfAStepARowAhead) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(context);
  ASSERT_TRUE(module);
  runFunctionPipeline(*module, "function(vmapc-prefetch-next-row)");

  // The second pass's four loads of a step are 128 contiguous bytes from
  // %from0: two lines, 4000 bytes on, read, before the first load; the
  // first pass (which streams the row from memory) and the stores get none.
  for (const char *name : {"rows", "unrolled_first_pass"}) {
    SCOPED_TRACE(name);
    const llvm::Function &function = *module->getFunction(name);
    std::multiset<Prefetch> expected{{"from0", 4000, false},
                                     {"from0", 4064, false}};
    EXPECT_EQ(prefetchesOf(function), expected);
    for (const llvm::IntrinsicInst *call : prefetchCallsOf(function)) {
      EXPECT_EQ(call->getParent()->getName(), "second");
      const llvm::Instruction *next = call->getNextNode();
      while (llvm::isa<llvm::GetElementPtrInst, llvm::IntrinsicInst>(next))
        next = next->getNextNode();
      EXPECT_EQ(next->getName(), "x0");
    }
  }

  for (const char *name :
       {"one_pass", "scratch_rows", "short_rows", "long_steps", "scalar_rows",
        "write_after_one_pass"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(countPrefetches(*module->getFunction(name)), 0);
  }
  // The second pass's own stores get no prefetch, nor does a row of the
  // stack's scratch written after it.
  EXPECT_EQ(prefetchesOf(*module->getFunction("write_after_to_scratch")),
            (std::multiset<Prefetch>{{"from0", 4000, false},
                                     {"from0", 4064, false}}));
}

TEST(PrefetchNextRow, ALaterPassPrefetchesTheRowThatALaterLoopWrites) {
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> module = parse(context);
  ASSERT_TRUE(module);
  runFunctionPipeline(*module, "function(vmapc-prefetch-next-row)");
  const llvm::Function &function = *module->getFunction("write_after");

  // The next row's reads as in `rows`, and two lines of %after's row for a
  // write, at the offsets of the two lines the step reads.
  EXPECT_EQ(prefetchesOf(function),
            (std::multiset<Prefetch>{{"from0", 4000, false},
                                     {"from0", 4064, false},
                                     {"?", -1, true},
                                     {"written", 64, true}}));
  // Both hang off one `written`: the line at offset 0 is it, the other a
  // constant 64 bytes on.
  std::vector<const llvm::Value *> bases;
  for (const llvm::IntrinsicInst *call : prefetchCallsOf(function)) {
    if (!isWritePrefetch(*call))
      continue;
    EXPECT_EQ(call->getParent()->getName(), "second");
    auto *address = llvm::cast<llvm::GetElementPtrInst>(call->getArgOperand(0));
    bases.push_back(llvm::isa<llvm::ConstantInt>(address->getOperand(1))
                        ? address->getPointerOperand()
                        : address);
  }
  ASSERT_EQ(bases.size(), 2u);
  EXPECT_EQ(bases[0], bases[1]);
  // `written` is %from0 (the first load's address) plus the distance from
  // the row read to the row written.
  auto *written = llvm::cast<llvm::GetElementPtrInst>(bases[0]);
  EXPECT_EQ(written->getPointerOperand()->getName(), "from0");
  auto *distance = llvm::cast<llvm::Instruction>(written->getOperand(1));
  EXPECT_EQ(distance->getOpcode(), llvm::Instruction::Sub);
  EXPECT_NE(distance->getParent()->getName(), "second");
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
    for (const char *name : {"rows", "unrolled_first_pass"}) {
      SCOPED_TRACE(name);
      EXPECT_EQ(countPrefetches(*module->getFunction(name)), 2);
    }
    EXPECT_EQ(countPrefetches(*module->getFunction("write_after")), 4);
    for (const char *name :
         {"one_pass", "short_rows", "long_steps", "scalar_rows"}) {
      SCOPED_TRACE(name);
      EXPECT_EQ(countPrefetches(*module->getFunction(name)), 0);
    }
  }
}

} // namespace
