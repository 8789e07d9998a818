//===- StagesTest.cpp - unit tests of passes/Stages.h ---------------------===//
//
// detectStage reads a module's stage off the module; passesFromTo names the
// pipelines between two stages; checkStage accepts a range and names what
// to run otherwise.
//
//===----------------------------------------------------------------------===//

#include "passes/Stages.h"

#include "dialect/ArrDialect.h"
#include "dialect/SchedDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using vmapc::Stage;

namespace {

class Stages : public ::testing::Test {
protected:
  Stages() {
    context.loadDialect<vmapc::arr::ArrDialect, vmapc::sched::SchedDialect,
                        func::FuncDialect, memref::MemRefDialect,
                        arith::ArithDialect, LLVM::LLVMDialect>();
  }

  OwningOpRef<ModuleOp> parse(const std::string &source) {
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, ParserConfig(&context));
    EXPECT_TRUE(module) << source;
    return module;
  }

  Stage stageOf(const std::string &source) {
    OwningOpRef<ModuleOp> module = parse(source);
    return module ? vmapc::detectStage(*module).stage : Stage::Unknown;
  }

  MLIRContext context;
};

TEST_F(Stages, EachStageIsReadOffTheModule) {
  EXPECT_EQ(stageOf(R"mlir(
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arr.neg %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @e(%x: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  %y = arr.vmap_call @f(%x) {in_axes = [0], out_axes = [0], axis_size = 2 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
})mlir"),
            Stage::Arr);
  EXPECT_EQ(stageOf(R"mlir(
func.func @e(%x: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  %y = arr.neg %x : tensor<2x4xf32>
  return %y : tensor<2x4xf32>
})mlir"),
            Stage::Batched);
  EXPECT_EQ(stageOf(R"mlir(
func.func @e(%x: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  return %x : tensor<2x4xf32>
})mlir"),
            Stage::Linalg);
  EXPECT_EQ(stageOf(R"mlir(
func.func private @k(%a: memref<4xf32>) attributes {sched.kernel} {
  return
}
func.func @e(%x: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  return %x : tensor<2x4xf32>
})mlir"),
            Stage::Dispatched);
  EXPECT_EQ(stageOf(R"mlir(
func.func @e(%x: memref<2x4xf32>, %out: memref<2x4xf32> {arr.output}) attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  return
})mlir"),
            Stage::Bufferized);
  EXPECT_EQ(stageOf(R"mlir(
func.func @e(%x: memref<2x4xf32>, %out: memref<2x4xf32> {arr.output}, %arena: memref<256xi8> {arr.arena}) attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  return
})mlir"),
            Stage::Planned);
  EXPECT_EQ(stageOf(R"mlir(
func.func private @k(%a: memref<4xf32>) attributes {sched.kernel} {
  return
})mlir"),
            Stage::Kernels);
  EXPECT_EQ(stageOf(R"mlir(
llvm.func @k() {
  llvm.return
})mlir"),
            Stage::LLVM);
  EXPECT_EQ(stageOf("module {}"), Stage::Unknown);
}

TEST_F(Stages, AModuleWithoutEntriesIsReadFromItsFunctions) {
  // A function that allocates memrefs, with no memref in its signature.
  EXPECT_EQ(stageOf(R"mlir(
func.func @f() {
  %a = memref.alloc() : memref<4xf32>
  return
})mlir"),
            Stage::Bufferized);
  EXPECT_EQ(stageOf(R"mlir(
func.func @f(%arena: memref<256xi8> {arr.arena}) {
  return
})mlir"),
            Stage::Planned);
  EXPECT_EQ(stageOf(R"mlir(
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
})mlir"),
            Stage::Linalg);
}

TEST_F(Stages, PassesFromToTakeTheLongestSteps) {
  EXPECT_EQ(vmapc::passesFromTo(Stage::Arr, Stage::Batched), "--arr-vmap");
  EXPECT_EQ(vmapc::passesFromTo(Stage::Arr, Stage::Planned),
            "--arr-to-linalg-pipeline --arr-bufferize-pipeline");
  EXPECT_EQ(vmapc::passesFromTo(Stage::Arr, Stage::Dispatched),
            "--arr-to-linalg-pipeline --arr-pack-operands "
            "--arr-form-dispatches");
  EXPECT_EQ(vmapc::passesFromTo(Stage::Linalg, Stage::Bufferized),
            "--arr-bufferize-pipeline=plan=false");
  EXPECT_EQ(vmapc::passesFromTo(Stage::Bufferized, Stage::Planned),
            "--arr-plan-buffers");
  EXPECT_EQ(vmapc::passesFromTo(Stage::Planned, Stage::LLVM),
            "--arr-to-llvm-pipeline");
  // Every stage reaches every later one.
  for (int from = 0; from < int(Stage::LLVM); ++from)
    for (int to = from + 1; to <= int(Stage::LLVM); ++to)
      EXPECT_FALSE(vmapc::passesFromTo(Stage(from), Stage(to)).empty())
          << from << " -> " << to;
}

TEST_F(Stages, CheckStageNamesWhatToRunFirst) {
  OwningOpRef<ModuleOp> module = parse(R"mlir(
func.func @e(%x: tensor<2x4xf32>) -> tensor<2x4xf32> attributes {arr.batch = 2 : i64, arr.in_axes = [0], arr.out_axes = [0]} {
  return %x : tensor<2x4xf32>
})mlir");
  ASSERT_TRUE(module);
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(succeeded(
      vmapc::checkStage(*module, "p", Stage::Linalg, Stage::Dispatched)));
  EXPECT_EQ(message, "");
  EXPECT_TRUE(
      failed(vmapc::checkStage(*module, "p", Stage::Planned, Stage::Planned)));
  EXPECT_EQ(message,
            "'p' runs on planned entries, with an arr.arena argument (the "
            "output of --arr-bufferize-pipeline); this IR is linalg on "
            "tensors (the output of --arr-to-linalg-pipeline): run "
            "--arr-bufferize-pipeline first");
  EXPECT_TRUE(
      failed(vmapc::checkStage(*module, "p", Stage::Arr, Stage::Batched)));
  EXPECT_EQ(message,
            "'p' runs on arr with arr.vmap_call (the front end's output) up "
            "to batched arr, no arr.vmap_call (the output of --arr-vmap); "
            "this IR is linalg on tensors (the output of "
            "--arr-to-linalg-pipeline), a later stage");
}

} // namespace
