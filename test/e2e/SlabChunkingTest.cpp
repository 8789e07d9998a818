//===- SlabChunkingTest.cpp - contractions at B = 64, run at N != B
//--------===//
//
// A kernel that contracts computes its workgroup's rows as one slab of 64
// (passes/Codegen/PadSlab.h): a partial chunk's last workgroup of r rows is
// computed in the same static code on inputs padded with copies of its
// first row, each op's loop over its register tiles of rows (4, 6, 8 or 14
// rows by ISA level and op) stopped at the rows its users read, and a
// peeled last tile (64 = 10 x 6 + 4 at AVX2, 4 x 14 + 8 at AVX-512) run
// only where they reach it. This suite runs such kernels at every kind of
// N around those bounds (within one tile, at and past tile boundaries,
// into the last tile, full, a full chunk and a padded one), with an
// epilogue as the root (tanh(x @ w + b), written in place for the real rows
// only), the contraction as the root (x @ w, copied out of the padded
// slab), an argmax after it (i32), a weight read in panels (the taller
// tiles), and the examples on axis 1 in and out (staged), against the
// oracle's per-example loop; the padded slab equals each example run alone,
// bit for bit; and a slab whose padding would pass the scratch limit is not
// padded.
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

constexpr int64_t kBatch = 64;

/// `entry`'s one output at N = `n` (random inputs seeded `seed`) against the
/// oracle, within a relative 1e-5 and an absolute `absTolerance` (for sums
/// of hundreds of products, whose float32 rounding grows with their length,
/// where matchesOracle's bounds are for short sums).
void expectMatchesOracleWithin(CompiledProgram &program, llvm::StringRef entry,
                               int64_t n, uint64_t seed, double absTolerance) {
  SCOPED_TRACE("N = " + std::to_string(n));
  std::vector<oracle::Array> inputs =
      randomBatchedInputs(program, entry, n, seed);
  llvm::Expected<std::vector<oracle::Array>> expected =
      oracle::evaluatePerExample(program.exported(entry), inputs);
  ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
  std::vector<oracle::Array> actual;
  ASSERT_TRUE(runEntry(program, entry, inputs, n, actual));
  ASSERT_EQ(actual.size(), 1u);
  std::string why;
  EXPECT_TRUE(
      oracle::allClose((*expected)[0], actual[0], 1e-5, absTolerance, &why))
      << why;
}

class SlabChunking : public CompiledOnceSuite<SlabChunking> {
public:
  static inline const char *const kProgramSource = R"arr(
fn layer(x: f32[24], w: f32[24, 40], b: f32[40]) -> f32[40] {
  return tanh(x @ w + b);
}
fn project(x: f32[24], w: f32[24, 40]) -> f32[40] {
  return x @ w;
}
fn label(x: f32[24], w: f32[24, 40], b: f32[40]) -> i32 {
  return argmax(x @ w + b);
}
fn paneled(x: f32[512], w: f32[512, 40], b: f32[40]) -> f32[40] {
  return tanh(x @ w + b);
}
export layer0 = vmap(layer, in_axes=(0, none, none), batch=64);
export layer1 = vmap(layer, in_axes=(1, none, none), out_axes=1, batch=64);
export project0 = vmap(project, in_axes=(0, none), batch=64);
export label0 = vmap(label, in_axes=(0, none, none), batch=64);
export paneled0 = vmap(paneled, in_axes=(0, none, none), batch=64);
)arr";
};

// Within the first tile (1, 3), at and past tile boundaries of 4, 6, 8
// and 14 rows (4 to 9, 14, 15, 16, 17, 40), into the last tile (55 to 63:
// past 56 and 60), a full chunk (64), then a full chunk and a partial one
// of each kind.
const int64_t kSizes[] = {1,  3,  4,  5,  6,  7,  8,  9,  14, 15, 16, 17,
                          40, 55, 56, 57, 60, 61, 63, 64, 65, 79, 80, 191};

TEST_F(SlabChunking, EpilogueRoot) {
  expectMatchesOracleAtSizes(*program, "layer0", kSizes, 1000);
}
TEST_F(SlabChunking, EpilogueRootOnAxis1) {
  expectMatchesOracleAtSizes(*program, "layer1", kSizes, 2000);
}
TEST_F(SlabChunking, ContractionRoot) {
  expectMatchesOracleAtSizes(*program, "project0", kSizes, 3000);
}
TEST_F(SlabChunking, ArgmaxRootI32) {
  expectMatchesOracleAtSizes(*program, "label0", kSizes, 4000);
}
// With an absolute tolerance for the oracle's sums of 512 products.
TEST_F(SlabChunking, PanelRowTiles) {
  for (int64_t n : kSizes)
    expectMatchesOracleWithin(*program, "paneled0", n, 6000 + n, 1e-4);
}

// The padded slab's real rows are what each example gives alone (a slab of
// one row, computed one row at a time), bit for bit: the padding changes no
// result, and the register tiles sum in the same order as a single row.
TEST_F(SlabChunking, PaddedSlabEqualsOneByOne) {
  for (const char *entry : {"layer0", "project0"}) {
    const int64_t n = 40;
    std::vector<oracle::Array> inputs =
        randomBatchedInputs(*program, entry, n, 77);
    EXPECT_TRUE(equalsOneByOne(*program, entry, inputs, n, {24}));
  }
}

// An input so wide that its padded copy and the slab's intermediates would
// pass the 1 MiB of per-workgroup scratch (2048 floats a row: 64 rows of
// copy, 512 KiB, beside 256 KiB of hidden layer and the hidden layer's
// 256 KiB of tanh): the slab keeps its partial version instead of being
// padded, and compiles and runs as before.
class WideSlabChunking : public CompiledOnceSuite<WideSlabChunking> {
public:
  static inline const char *const kProgramSource = R"arr(
fn wide(x: f32[2048], w1: f32[2048, 1024], b1: f32[1024], w2: f32[1024, 10]) -> f32[10] {
  return tanh(x @ w1 + b1) @ w2;
}
export wide0 = vmap(wide, in_axes=(0, none, none, none), batch=64);
)arr";
};

// Against the oracle with an absolute tolerance for its sums of 2048 and
// 1024 products (outputs of magnitude ~20, float32 rounding ~1e-5 of that;
// matchesOracle's 1e-5 relative bound is for short sums).
TEST_F(WideSlabChunking, CompilesWithinTheScratchAndMatches) {
  for (int64_t n : {int64_t(5), int64_t(40), int64_t(64)})
    expectMatchesOracleWithin(*program, "wide0", n, 5000 + n, 1e-3);
}

} // namespace
