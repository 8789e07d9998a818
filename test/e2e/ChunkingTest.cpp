//===- ChunkingTest.cpp - one program at B = 4, run at N != B -------------===//
//
// An MLP-like chain (`@`, a bias, tanh, `@`, then sum or argmax) exported at
// B = 4 with the mapped input on axis 0, on axis 1, and with out axis 1; run
// at N in {0, 1, B-1, B, 2B+3} through the runtime's chunking (in place,
// padded last chunk, staging for a non-outermost axis), against the oracle's
// per-example loop. Also the runtime's statistics: one arena allocation at
// load, none per call, ceil(N / B) walks of the schedule per call.
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

constexpr int64_t kBatch = 4;

const char *const kMlpSource = R"arr(
# One example: x (8 features) -> 16 hidden (tanh) -> 4 scores.
fn mlp(x: f32[8], w1: f32[8, 16], b1: f32[16], w2: f32[16, 4]) -> f32[4] {
  let h = tanh(x @ w1 + b1);
  return h @ w2;
}
fn total(x: f32[8], w1: f32[8, 16], b1: f32[16], w2: f32[16, 4]) -> f32 {
  return sum(mlp(x, w1, b1, w2));
}
fn label(x: f32[8], w1: f32[8, 16], b1: f32[16], w2: f32[16, 4]) -> i32 {
  return argmax(mlp(x, w1, b1, w2));
}
# Examples on axis 0 (x: [N, 8]) and out axis 0 ([N, 4]).
export scores = vmap(mlp, in_axes=(0, none, none, none), batch=4);
# Examples on axis 1 (x: [8, N]), out axis 0.
export scores_t = vmap(mlp, in_axes=(1, none, none, none), batch=4);
# Examples on axis 1 in and out ([4, N]).
export scores_tt = vmap(mlp, in_axes=(1, none, none, none), out_axes=1, batch=4);
# Examples on axis 0 in, out axis 1 ([4, N]).
export scores_ot = vmap(mlp, in_axes=(0, none, none, none), out_axes=1, batch=4);
# Reductions after the chain.
export totals = vmap(total, in_axes=(0, none, none, none), batch=4);
export labels = vmap(label, in_axes=(-1, none, none, none), batch=4);
)arr";

class MlpChunking : public CompiledOnceSuite<MlpChunking> {
public:
  static inline const char *const kProgramSource = kMlpSource;
};

const int64_t kSizes[] = {0, 1, kBatch - 1, kBatch, 2 * kBatch + 3};

TEST_F(MlpChunking, Manifest) {
  const Entry *e = nullptr;
  ASSERT_TRUE(program->executable->findEntry("scores_t", &e).ok());
  EXPECT_EQ(e->batchSize(), 4u);
  ASSERT_EQ(e->numInputs(), 4u);
  EXPECT_EQ(e->info().inputs[0].mappedAxis, 1);
  EXPECT_EQ(e->info().inputs[0].shape, std::vector<int64_t>({8}));
  EXPECT_EQ(e->info().inputs[1].mappedAxis, kNoAxis);
  EXPECT_EQ(e->info().outputs[0].mappedAxis, 0);
  ASSERT_TRUE(program->executable->findEntry("scores_tt", &e).ok());
  EXPECT_EQ(e->info().outputs[0].mappedAxis, 1);
  EXPECT_EQ(e->info().outputs[0].shape, std::vector<int64_t>({4}));
  ASSERT_TRUE(program->executable->findEntry("labels", &e).ok());
  // in_axes=-1 on a rank-1 example is axis 1 of the batched [8, N] input.
  EXPECT_EQ(e->info().inputs[0].mappedAxis, 1);
  EXPECT_EQ(e->info().outputs[0].dtype, DType::I32);
}

TEST_F(MlpChunking, InAxis0OutAxis0) {
  expectMatchesOracleAtSizes(*program, "scores", kSizes, 100);
}
TEST_F(MlpChunking, InAxis1OutAxis0) {
  expectMatchesOracleAtSizes(*program, "scores_t", kSizes, 200);
}
TEST_F(MlpChunking, InAxis1OutAxis1) {
  expectMatchesOracleAtSizes(*program, "scores_tt", kSizes, 300);
}
TEST_F(MlpChunking, InAxis0OutAxis1) {
  expectMatchesOracleAtSizes(*program, "scores_ot", kSizes, 400);
}
TEST_F(MlpChunking, SumAfterChain) {
  expectMatchesOracleAtSizes(*program, "totals", kSizes, 500);
}
TEST_F(MlpChunking, ArgmaxAfterChainI32) {
  expectMatchesOracleAtSizes(*program, "labels", kSizes, 600);
}

// N = 0: the run succeeds, the outputs are empty ([0, 4] and [4, 0]), and no
// launch happens.
TEST_F(MlpChunking, ZeroExamplesGiveEmptyOutputs) {
  uint64_t launchesBefore = program->executable->stats().launches;
  for (const char *entry : {"scores", "scores_tt"}) {
    std::vector<oracle::Array> inputs =
        randomBatchedInputs(*program, entry, 0, 7);
    std::vector<oracle::Array> outputs;
    ASSERT_TRUE(runEntry(*program, entry, inputs, 0, outputs));
    ASSERT_EQ(outputs.size(), 1u);
    EXPECT_EQ(outputs[0].numElements(), 0);
    EXPECT_EQ(outputs[0].rank(), 2);
  }
  EXPECT_EQ(program->executable->stats().launches, launchesBefore);
}

// A chunked run equals running each example alone (N = 1), bit for bit: the
// padding of the last chunk does not leak into the real examples, and full
// chunks run as one job compute what they compute one at a time.
TEST_F(MlpChunking, ChunkedRunEqualsOneByOne) {
  const int64_t n = 2 * kBatch + 3;
  std::vector<oracle::Array> inputs =
      randomBatchedInputs(*program, "scores", n, 77);
  std::vector<oracle::Array> all;
  Stats before = program->executable->stats();
  ASSERT_TRUE(runEntry(*program, "scores", inputs, n, all));
  // Its two full chunks ran as one job (docs/runtime.md, "Chunks without
  // barriers"), the partial one on its own.
  EXPECT_EQ(program->executable->stats().batchedChunks - before.batchedChunks,
            2u);
  EXPECT_TRUE(equalsOneByOne(*program, "scores", inputs, n, {8}));
}

// Statistics: one arena allocation after load, none per call; each call
// walks the schedule ceil(N / B) times, launching each dispatch once.
TEST(RuntimeStats, OneAllocationAndCeilNOverBLaunches) {
  CompiledProgram program;
  ASSERT_TRUE(compileProgram(kMlpSource, program));
  Stats atLoad = program.executable->stats();
  EXPECT_EQ(atLoad.allocations, 1u);
  EXPECT_EQ(atLoad.calls, 0u);
  EXPECT_EQ(atLoad.launches, 0u);
  uint64_t maxArena = 0;
  for (size_t i = 0; i < program.executable->numEntries(); ++i)
    maxArena =
        std::max(maxArena, program.executable->entry(i).info().arenaBytes);
  EXPECT_GE(atLoad.arenaBytes, maxArena);

  const int64_t sizes[] = {1, 4, 11, 0, 9};
  uint64_t launches = 0, examples = 0;
  for (int run = 0; run < 5; ++run) {
    int64_t n = sizes[run];
    const char *entry = run % 2 ? "scores_t" : "scores";
    std::vector<oracle::Array> inputs =
        randomBatchedInputs(program, entry, n, 900 + run);
    std::vector<oracle::Array> outputs;
    ASSERT_TRUE(runEntry(program, entry, inputs, n, outputs));
    const Entry *e = nullptr;
    ASSERT_TRUE(program.executable->findEntry(entry, &e).ok());
    launches += launchesOfCall(e->info(), ceilDiv(n, kBatch));
    examples += n;
    Stats s = program.executable->stats();
    EXPECT_EQ(s.allocations, 1u) << "after run " << run;
    EXPECT_EQ(s.arenaBytes, atLoad.arenaBytes) << "after run " << run;
    EXPECT_EQ(s.launches, launches)
        << "after run " << run << " (N = " << n << ")";
    EXPECT_EQ(s.calls, uint64_t(run + 1));
    EXPECT_EQ(s.examples, examples);
  }
  // The MLP is one dispatch.
  EXPECT_EQ(launches, 1u + 1u + 3u + 0u + 3u);
}

// A failed run (wrong shape) changes no counter and allocates nothing.
TEST(RuntimeStats, FailedRunCountsNothing) {
  CompiledProgram program;
  ASSERT_TRUE(compileProgram(kMlpSource, program));
  std::vector<oracle::Array> inputs =
      randomBatchedInputs(program, "scores", 3, 5);
  inputs[0] = oracle::Array::filled(oracle::DType::F32, {3, 7}, 1.0);
  std::vector<oracle::Array> outputs;
  ::testing::AssertionResult ran =
      runEntry(program, "scores", inputs, 3, outputs);
  EXPECT_FALSE(ran);
  EXPECT_NE(std::string(ran.message()).find("input 'x'"), std::string::npos)
      << ran.message();
  Stats s = program.executable->stats();
  EXPECT_EQ(s.allocations, 1u);
  EXPECT_EQ(s.calls, 0u);
  EXPECT_EQ(s.launches, 0u);
}

} // namespace
