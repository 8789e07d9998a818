//===- TensorSubsetModelsTest.cpp - passes/TensorSubsetModels.h -----------===//
//
// vmapc::areEquivalentSlices gives upstream's
// ValueBoundsConstraintSet::areEquivalentSlices answer wherever upstream
// decides, and decides besides where every component is the same value or
// two equal constants; the slice ops of a compiler context use the models
// that call it.
//
//===----------------------------------------------------------------------===//

#include "passes/TensorSubsetModels.h"
#include "passes/InitAll.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

/// "true", "false" or "failure".
std::string answer(FailureOr<bool> result) {
  return failed(result) ? "failure" : *result ? "true" : "false";
}

/// The accessed slice of an extract_slice, insert_slice or
/// parallel_insert_slice.
HyperrectangularSlice sliceOf(Operation *op) {
  return HyperrectangularSlice(cast<OffsetSizeAndStrideOpInterface>(op));
}

/// `source` parsed, with its extract_slice ops in order and its one
/// insertion of kind InsertOp.
template <typename InsertOp> struct ParsedSlices {
  OwningOpRef<ModuleOp> module;
  SmallVector<tensor::ExtractSliceOp> extracts;
  InsertOp insert;
};
template <typename InsertOp>
ParsedSlices<InsertOp> parseSlices(const char *source, MLIRContext &context) {
  ParsedSlices<InsertOp> parsed;
  parsed.module = parseSourceString<ModuleOp>(source, ParserConfig(&context));
  if (parsed.module) {
    parsed.module->walk(
        [&](tensor::ExtractSliceOp op) { parsed.extracts.push_back(op); });
    parsed.module->walk([&](InsertOp op) { parsed.insert = op; });
  }
  return parsed;
}

class SliceComparison : public ::testing::Test {
protected:
  SliceComparison() : context(registry()) {
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(R"mlir(
func.func @f(%t: tensor<?x?xf32>, %i: index, %j: index,
             %p: memref<4xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %n = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 64)>(%i)[%j]
  %sum = arith.addi %i, %c4 : index
  %sum2 = arith.addi %i, %c4 : index
  %loaded = memref.load %p[%c0] : memref<4xindex>
  %s0 = tensor.extract_slice %t[%i, 0] [%n, 4] [1, 1] : tensor<?x?xf32> to tensor<?x4xf32>
  %s1 = tensor.extract_slice %t[%i, %c0] [%n, %c4] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %s2 = tensor.extract_slice %t[%i, 0] [%n, 8] [1, 1] : tensor<?x?xf32> to tensor<?x8xf32>
  %s3 = tensor.extract_slice %t[%j, 0] [%n, 4] [1, 1] : tensor<?x?xf32> to tensor<?x4xf32>
  %s4 = tensor.extract_slice %t[%j, 0] [%n, 8] [1, 1] : tensor<?x?xf32> to tensor<?x8xf32>
  %s5 = tensor.extract_slice %t[%sum, 0] [%n, 4] [1, 1] : tensor<?x?xf32> to tensor<?x4xf32>
  %s6 = tensor.extract_slice %t[%sum2, 0] [%n, 4] [1, 1] : tensor<?x?xf32> to tensor<?x4xf32>
  %s7 = tensor.extract_slice %t[%loaded, 0] [%n, 4] [1, 1] : tensor<?x?xf32> to tensor<?x4xf32>
  %s8 = tensor.extract_slice %t[%loaded, 0] [%n, %c8] [1, 1] : tensor<?x?xf32> to tensor<?x?xf32>
  %w = tensor.insert_slice %s7 into %t[%loaded, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<?x?xf32>
  return
})mlir",
                                         ParserConfig(&context));
    module->walk([&](tensor::ExtractSliceOp op) { slices.push_back(op); });
    module->walk([&](tensor::InsertSliceOp op) { insert = op; });
  }

  static DialectRegistry registry() {
    DialectRegistry r;
    vmapc::registerCompilerDialects(r);
    return r;
  }

  HyperrectangularSlice slice(int i) { return sliceOf(slices[i]); }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  SmallVector<tensor::ExtractSliceOp> slices;
  tensor::InsertSliceOp insert;
};

TEST_F(SliceComparison, AgreesWithUpstreamWhereUpstreamDecides) {
  ASSERT_EQ(slices.size(), 9u);
  int decided = 0;
  for (int a = 0; a < 9; ++a)
    for (int b = 0; b < 9; ++b) {
      FailureOr<bool> upstream = ValueBoundsConstraintSet::areEquivalentSlices(
          &context, slice(a), slice(b));
      FailureOr<bool> ours = vmapc::areEquivalentSlices(slice(a), slice(b));
      if (failed(upstream))
        continue;
      ++decided;
      EXPECT_EQ(answer(ours), answer(upstream)) << "slices " << a << ", " << b;
    }
  // Most pairs are decided upstream too: the comparison above is not empty.
  EXPECT_GE(decided, 30);
}

// Value bounds decides these too; the same answers must come without it.
TEST_F(SliceComparison, DecidesSameValuesAndConstants) {
  // The same offset %i, size %n, and 4 as an attribute or %c4.
  EXPECT_EQ(answer(vmapc::areEquivalentSlices(slice(0), slice(1))), "true");
  EXPECT_EQ(answer(vmapc::areEquivalentSlices(slice(0), slice(0))), "true");
  // 4 columns against 8.
  EXPECT_EQ(answer(vmapc::areEquivalentSlices(slice(0), slice(2))), "false");
  // %i + 4 twice: two values that value bounds proves equal.
  EXPECT_EQ(answer(vmapc::areEquivalentSlices(slice(5), slice(6))), "true");
  // A loaded offset compared with itself: the same SSA value.
  EXPECT_EQ(answer(vmapc::areEquivalentSlices(slice(7), slice(7))), "true");
}

TEST_F(SliceComparison, UnrelatedOffsetsStayUndecided) {
  // %i against %j: nothing relates them.
  EXPECT_EQ(answer(vmapc::areEquivalentSlices(slice(0), slice(3))), "failure");
  // As upstream: an undecidable offset is a failure even when a later size
  // differs (4 against 8 columns).
  EXPECT_EQ(answer(vmapc::areEquivalentSlices(slice(0), slice(4))), "failure");
}

/// The loop over the full 4-row tiles of a remainder of at most 4 rows, as
/// a peeled CPU kernel had: it never runs, so value bounds finds its index's
/// constraints infeasible and answers failure even for the index against
/// itself. Upstream's models call its extract/insert pair different
/// subsets; these models call it equal.
constexpr const char *kNeverRunningLoop = R"mlir(
func.func @g(%t: tensor<?x10xf32>, %n: index, %wg: index) -> tensor<?x10xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %rows = affine.min affine_map<(d0)[s0] -> (-d0 + s0, 4)>(%wg)[%n]
  %first = affine.apply affine_map<()[s0] -> ((s0 floordiv 4) * 4)>()[%rows]
  %r = scf.for %i = %first to %rows step %c4 iter_args(%outer = %t) -> tensor<?x10xf32> {
    %full = affine.apply affine_map<(d0)[s0] -> (((-d0 + s0) floordiv 4) * 4)>(%i)[%rows]
    %s = scf.for %iv = %c0 to %full step %c4 iter_args(%acc = %outer) -> tensor<?x10xf32> {
      %row = tensor.extract_slice %acc[%iv, 0] [4, 10] [1, 1] : tensor<?x10xf32> to tensor<4x10xf32>
      %other = tensor.extract_slice %acc[%iv, 0] [4, 5] [1, 1] : tensor<?x10xf32> to tensor<4x5xf32>
      %back = tensor.insert_slice %row into %acc[%iv, 0] [4, 10] [1, 1] : tensor<4x10xf32> into tensor<?x10xf32>
      scf.yield %back : tensor<?x10xf32>
    }
    scf.yield %s : tensor<?x10xf32>
  }
  return %r : tensor<?x10xf32>
})mlir";

/// Whether the models attached in `context` take %row and %back of
/// kNeverRunningLoop for the same subset (and %other for another).
void expectTheseModels(MLIRContext &context) {
  auto [loop, extracts, back] =
      parseSlices<tensor::InsertSliceOp>(kNeverRunningLoop, context);
  ASSERT_TRUE(loop);
  ASSERT_EQ(extracts.size(), 2u);

  ASSERT_TRUE(failed(ValueBoundsConstraintSet::areEquivalentSlices(
      &context, sliceOf(back), sliceOf(extracts[0]))))
      << "upstream now decides this pair: the test no longer tells whose "
         "model is attached";
  EXPECT_EQ(
      answer(vmapc::areEquivalentSlices(sliceOf(back), sliceOf(extracts[0]))),
      "true");

  auto sameTensor = [](Value a, Value b) { return a == b; };
  auto insertion = cast<SubsetInsertionOpInterface>(back.getOperation());
  EXPECT_TRUE(
      insertion.isEquivalentSubset(extracts[0].getResult(), sameTensor));
  EXPECT_FALSE(
      insertion.isEquivalentSubset(extracts[1].getResult(), sameTensor));
  EXPECT_TRUE(
      cast<SubsetOpInterface>(back.getOperation())
          .operatesOnEquivalentSubset(
              cast<SubsetOpInterface>(extracts[0].getOperation()), sameTensor));
}

// A compile's context (registerCompilerDialects).
TEST_F(SliceComparison, CompilerContextUsesTheseModels) {
  expectTheseModels(context);
}

// vmapc-opt's (registerAllDialects: every upstream extension too, upstream's
// subset models among them, registered after these).
TEST(SliceComparisonOpt, OptContextUsesTheseModels) {
  DialectRegistry registry;
  vmapc::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  expectTheseModels(context);
}

TEST_F(SliceComparison, InsertionModelsBuildTheExtraction) {
  auto sameTensor = [](Value a, Value b) { return a == b; };
  auto insertion = cast<SubsetInsertionOpInterface>(insert.getOperation());
  EXPECT_EQ(insertion.getSourceOperand().get(), insert.getSource());
  EXPECT_EQ(insertion.getDestinationOperand().get(), insert.getDest());
  // The dynamic offset %loaded and size %n, then the destination.
  SmallVector<Value> needed =
      insertion.getValuesNeededToBuildSubsetExtraction();
  ASSERT_EQ(needed.size(), 3u);
  EXPECT_EQ(needed[0], insert.getOffsets()[0]);
  EXPECT_EQ(needed[1], insert.getSizes()[0]);
  EXPECT_EQ(needed[2], insert.getDest());
  OpBuilder builder(insert);
  Value built = insertion.buildSubsetExtraction(builder, insert.getLoc());
  auto extract = built.getDefiningOp<tensor::ExtractSliceOp>();
  ASSERT_TRUE(extract);
  EXPECT_EQ(extract.getSource(), insert.getDest());
  EXPECT_EQ(extract.getType(), insert.getSourceType());
  EXPECT_TRUE(insertion.isEquivalentSubset(built, sameTensor));
  extract.erase();

  // parallel_insert_slice: its destination is the shared output, the
  // subset an extract_slice of the same output at the same place reads.
  auto [forall, reads, write] = parseSlices<tensor::ParallelInsertSliceOp>(
      R"mlir(
func.func @h(%t: tensor<8x10xf32>, %u: tensor<8x10xf32>) -> tensor<8x10xf32> {
  %r = scf.forall (%k) in (2) shared_outs(%o = %t) -> tensor<8x10xf32> {
    %i = affine.apply affine_map<(d0) -> (d0 * 4)>(%k)
    %read = tensor.extract_slice %o[%i, 0] [4, 10] [1, 1] : tensor<8x10xf32> to tensor<4x10xf32>
    %elsewhere = tensor.extract_slice %u[%i, 0] [4, 10] [1, 1] : tensor<8x10xf32> to tensor<4x10xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %read into %o[%i, 0] [4, 10] [1, 1] : tensor<4x10xf32> into tensor<8x10xf32>
    }
  }
  return %r : tensor<8x10xf32>
})mlir",
      context);
  ASSERT_TRUE(forall);
  ASSERT_EQ(reads.size(), 2u);
  auto parallel = cast<SubsetInsertionOpInterface>(write.getOperation());
  EXPECT_EQ(parallel.getSourceOperand().get(), write.getSource());
  EXPECT_EQ(parallel.getDestinationOperand().get(), write.getDest());
  EXPECT_TRUE(parallel.isEquivalentSubset(reads[0].getResult(), sameTensor));
  // The same place of another tensor is not the same subset.
  EXPECT_FALSE(parallel.isEquivalentSubset(reads[1].getResult(), sameTensor));
}

} // namespace
