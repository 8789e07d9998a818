//===- BatchedChunksTest.cpp - full chunks run as one dispatch ------------===//
//
// Where a call's full chunks are independent (one per-chunk dispatch, after
// the once-per-call ones, that writes only mapped outputs bound in place),
// the runtime runs them as one dispatchChunks, with no barrier between
// chunks (Stats::batchedChunks counts them); everywhere else, chunk by
// chunk. Each entry below, at B = 4, is run at N in {2B - 1, 2B, 5B, 5B + 3}
// against the oracle's per-example loop, and the counter must say which
// path ran: floor(N / B) batched chunks when there are at least two, else
// none, and none for a batch axis that is not outermost (staged), a loop in
// the schedule, or a donated input. The launch count is the same either way.
// That batched chunks give each example's bits as a call of N = 1 does:
// ChunkingTest.cpp, ChunkedRunEqualsOneByOne.
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

constexpr int64_t kBatch = 4;

const char *const kSource = R"arr(
fn mlp(x: f32[8], w1: f32[8, 16], b1: f32[16], w2: f32[16, 4]) -> f32[4] {
  let h = tanh(x @ w1 + b1);
  return h @ w2;
}
# One dispatch per chunk, the examples on axis 0: batched.
export scores = vmap(mlp, in_axes=(0, none, none, none), batch=4);
# The examples on axis 1: each chunk is staged, so chunk by chunk.
export scores_t = vmap(mlp, in_axes=(1, none, none, none), batch=4);

fn sqdist(a: f32[8], b: f32[8]) -> f32 {
  let d = a - b;
  return sum(d * d);
}
fn nearest(q: f32[8], refs: f32[32, 8]) -> i32 {
  return argmin(vmap(sqdist, in_axes=(none, 0))(q, refs));
}
# A once-per-call dispatch (the references transposed), then one per chunk:
# batched after the first.
export nearest_b = vmap(nearest, in_axes=(0, none), batch=4);

fn rnn(x: f32[8], w: f32[8, 8]) -> f32[8] {
  for i in range(3) carry (h = x) {
    yield tanh(h @ w);
  }
  return h;
}
# A loop in the schedule: chunk by chunk.
export rnn_b = vmap(rnn, in_axes=(0, none), batch=4);

fn bump(x: f32[8], y: f32[8]) -> f32[8] {
  return x * 2.0 + y;
}
# A donated input: chunk by chunk.
export bump_d = vmap(bump, in_axes=(0, 0), donate=(0,), batch=4);
)arr";

class BatchedChunks : public CompiledOnceSuite<BatchedChunks> {
public:
  static inline const char *const kProgramSource = kSource;

protected:
  /// Runs `entry` at each N against the oracle and checks the chunks that
  /// ran batched and the launches.
  static void check(const char *entry, bool batches, uint64_t seed) {
    const Entry *e = nullptr;
    ASSERT_TRUE(program->executable->findEntry(entry, &e).ok());
    for (int64_t n : {2 * kBatch - 1, 2 * kBatch, 5 * kBatch, 5 * kBatch + 3}) {
      SCOPED_TRACE("N = " + std::to_string(n));
      Stats before = program->executable->stats();
      std::vector<oracle::Array> inputs =
          randomBatchedInputs(*program, entry, n, seed + uint64_t(n));
      EXPECT_TRUE(matchesOracle(*program, entry, inputs, n));
      Stats after = program->executable->stats();
      uint64_t full = uint64_t(n / kBatch);
      uint64_t expected = batches && full >= 2 ? full : 0;
      EXPECT_EQ(after.batchedChunks - before.batchedChunks, expected);
      EXPECT_EQ(after.launches - before.launches,
                launchesOfCall(e->info(), ceilDiv(uint64_t(n), kBatch)));
    }
  }
};

TEST_F(BatchedChunks, OneDispatchInPlace) { check("scores", true, 100); }
TEST_F(BatchedChunks, StagedAxisRunsChunkByChunk) {
  check("scores_t", false, 200);
}
TEST_F(BatchedChunks, AfterOncePerCallDispatch) {
  const Entry *e = nullptr;
  ASSERT_TRUE(program->executable->findEntry("nearest_b", &e).ok());
  // The schedule this test is about: a once-per-call dispatch first.
  ASSERT_GE(e->info().schedule.size(), 2u);
  EXPECT_TRUE(e->info().schedule.front().oncePerCall);
  check("nearest_b", true, 300);
}
TEST_F(BatchedChunks, LoopRunsChunkByChunk) { check("rnn_b", false, 400); }
TEST_F(BatchedChunks, DonatedInputRunsChunkByChunk) {
  check("bump_d", false, 500);
}

} // namespace
