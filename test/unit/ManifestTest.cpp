//===- ManifestTest.cpp - unit tests of readManifest ----------------------===//
//
// codegen/Compile.h's readManifest turns a planned entry into the artifact's
// manifest; every size it copies must be within the limits it can state in
// the artifact (dialect/Limits.h), else it reports an error at the entry.
//
//===----------------------------------------------------------------------===//

#include "codegen/Compile.h"
#include "dialect/ArrDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;

namespace {

/// A planned entry of batch 4 with `figures` as its arr.plan, the staging
/// offset `staging` on its input and 64 on its output. It has no
/// dispatches, so its output is empty (f32[0] per example): an output of
/// one byte or more must be written by some dispatch.
std::string plannedEntry(const std::string &figures,
                         const std::string &staging = "0") {
  return R"mlir(
func.func @e(%x: memref<4x3xf32> {arr.name = "x", arr.staging_offset = )mlir" +
         staging + R"mlir( : i64},
             %out: memref<4x0xf32> {arr.output, arr.name = "out",
                                  arr.staging_offset = 64 : i64},
             %arena: memref<256xi8> {arr.arena})
    attributes {arr.batch = 4 : i64, arr.in_axes = [0], arr.out_axes = [0],
                arr.plan = #arr.plan<)mlir" +
         figures + R"mlir(>} {
  return
}
)mlir";
}

constexpr const char *kFigures =
    "arena_bytes = 256, lower_bound = 64, aligned_lower_bound = 64, "
    "naive_sum = 64, in_place = 0, buffers = 1, alignment = 64";

class ReadManifest : public ::testing::Test {
protected:
  ReadManifest() {
    context.loadDialect<func::FuncDialect, memref::MemRefDialect,
                        vmapc::arr::ArrDialect>();
  }

  /// Parses and verifies `source` and reads its manifest; returns the
  /// first error ("" on success).
  std::string read(const std::string &source,
                   std::vector<vmapc::EntryInfo> &entries) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message += diag.str();
      return success();
    });
    OwningOpRef<ModuleOp> module =
        parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return message;
    // A planned entry without dispatches: no kernels.
    return succeeded(vmapc::readManifest(*module, entries, /*kernels=*/{}))
               ? ""
               : message;
  }

  MLIRContext context;
};

TEST_F(ReadManifest, ReadsAPlannedEntry) {
  std::vector<vmapc::EntryInfo> entries;
  ASSERT_EQ(read(plannedEntry(kFigures), entries), "");
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].batchSize, 4u);
  EXPECT_EQ(entries[0].arenaBytes, 256u);
  ASSERT_EQ(entries[0].inputs.size(), 1u);
  EXPECT_EQ(entries[0].inputs[0].shape, std::vector<int64_t>{3});
  EXPECT_EQ(entries[0].inputs[0].stagingOffset, 0u);
}

TEST_F(ReadManifest, RefusesAnOutputNoDispatchWrites) {
  std::vector<vmapc::EntryInfo> entries;
  std::string source = plannedEntry(kFigures);
  source.replace(source.find("memref<4x0xf32>"), 15, "memref<4xf32>");
  EXPECT_EQ(read(source, entries),
            "entry 'e' schedule: no dispatch writes output #0 'out'");
}

TEST_F(ReadManifest, RejectsANegativeFigure) {
  std::string figures = kFigures;
  figures.replace(figures.find("arena_bytes = 256"), 17, "arena_bytes = -16");
  std::vector<vmapc::EntryInfo> entries;
  EXPECT_EQ(read(plannedEntry(figures), entries),
            "arena_bytes = -16 is outside [0, 2^62)");
}

TEST_F(ReadManifest, RejectsAnArenaPastTheLimit) {
  std::string figures = kFigures;
  figures.replace(figures.find("arena_bytes = 256"), 17,
                  "arena_bytes = 4611686018427387904");
  std::vector<vmapc::EntryInfo> entries;
  EXPECT_EQ(read(plannedEntry(figures), entries),
            "arena_bytes = 4611686018427387904 is outside [0, 2^62)");
}

TEST_F(ReadManifest, RejectsANegativeStagingOffset) {
  std::vector<vmapc::EntryInfo> entries;
  EXPECT_EQ(read(plannedEntry(kFigures, "-256"), entries),
            "'func.func' op 'arr.staging_offset' must be a non-negative "
            "integer");
}

TEST_F(ReadManifest, RejectsAnEntryOfNoExamples) {
  std::string source = plannedEntry(kFigures);
  source.replace(source.find("arr.batch = 4"), 13, "arr.batch = 0");
  std::vector<vmapc::EntryInfo> entries;
  EXPECT_EQ(read(source, entries), "'func.func' op has arr.batch = 0, outside "
                                   "[1, 2147483647]");
}

TEST_F(ReadManifest, RejectsABatchPastTheLimit) {
  std::string source = plannedEntry(kFigures);
  source.replace(source.find("arr.batch = 4"), 13, "arr.batch = 4294967296");
  std::vector<vmapc::EntryInfo> entries;
  EXPECT_EQ(read(source, entries), "'func.func' op 'arr.batch' must be an "
                                   "integer in [0, 2147483647]");
}

} // namespace
