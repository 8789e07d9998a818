//===- ProgramsTest.cpp - programs batched at B in {1, 2, 7} --------------===//
//
// Each program is compiled with its batch size substituted for {B}, loaded,
// and run at several N (0, 1, B, 2B + 1, 3B + 2) on random inputs through
// the runtime; every export's outputs must equal the oracle's per-example
// loop over the unlowered source. The programs cover an unmapped operand
// (read through broadcasting, never copied), nested vmaps, reductions with
// axis=, argmin/argmax over all axes of a 2-D example, comparisons giving
// bool outputs, i32 arithmetic and outputs, and mapped axes that are not
// outermost.
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

struct Program {
  const char *name;
  const char *source;
};

const Program kPrograms[] = {
    // An unmapped operand broadcast against every example, reductions with
    // axis=, and an unmapped scalar.
    {"unmapped_and_axis_reductions", R"arr(
fn weighted(x: f32[3, 5], w: f32[5], s: f32) -> f32[3] {
  return sum(x * w, axis=1) * s;
}
fn colmax(x: f32[3, 5], w: f32[5], s: f32) -> f32[5] {
  return max(x + w, axis=0) - min(x, axis=-2);
}
fn total(x: f32[2, 3, 4]) -> f32[3] {
  return sum(x, axis=(0, 2)) + max(x, axis=(-1, 0));
}
fn meanish(x: f32[2, 3, 4]) -> f32 {
  return sum(x, axis=none) / 24.0;
}
export weighted_e = vmap(weighted, in_axes=(0, none, none), batch={B});
export colmax_e = vmap(colmax, in_axes=(1, none, none), batch={B});
export total_e = vmap(total, in_axes=2, out_axes=1, batch={B});
export meanish_e = vmap(meanish, batch={B});
)arr"},
    // Nested vmaps: inline, named, and two levels deep, with unmapped
    // operands at each level.
    {"nested_vmap", R"arr(
fn dot(a: f32[4], b: f32[4]) -> f32 {
  return sum(a * b);
}
fn row(a: f32[4], m: f32[6, 4]) -> f32[6] {
  return vmap(dot, in_axes=(none, 0))(a, m);
}
fn allpairs(a: f32[5, 4], b: f32[6, 4]) -> f32[5, 6] {
  return vmap(vmap(dot, in_axes=(none, 0)), in_axes=(0, none))(a, b);
}
fn cols = vmap(dot, in_axes=(1, none), out_axes=0);
fn proj(m: f32[4, 3], v: f32[4]) -> f32[3] {
  return tanh(cols(m, v));
}
export row_e = vmap(row, in_axes=(0, none), batch={B});
export allpairs_e = vmap(allpairs, in_axes=(0, 0), out_axes=2, batch={B});
export allpairs_shared = vmap(allpairs, in_axes=(none, 0), batch={B});
export proj_e = vmap(proj, in_axes=(2, 0), batch={B});
)arr"},
    // argmin/argmax over all axes of a 2-D example (flattened index), and
    // along one axis; i32 outputs.
    {"arg_reductions", R"arr(
fn amin(x: f32[3, 4]) -> i32 {
  return argmin(x);
}
fn amax(x: f32[3, 4]) -> i32 {
  return argmax(x * x);
}
fn amax_rows(x: f32[3, 4]) -> i32[3] {
  return argmax(x, axis=1);
}
fn amin_cols(x: i32[3, 4]) -> i32[4] {
  return argmin(x, axis=-2);
}
fn amin_int(x: i32[3, 4]) -> i32 {
  return argmin(x);
}
export amin_e = vmap(amin, batch={B});
export amax_e = vmap(amax, in_axes=1, batch={B});
export amax_rows_e = vmap(amax_rows, batch={B});
export amin_cols_e = vmap(amin_cols, in_axes=2, out_axes=1, batch={B});
export amin_int_e = vmap(amin_int, batch={B});
)arr"},
    // Comparisons giving bool outputs, on f32 and i32, with an unmapped
    // operand; bool passed through a function.
    {"comparisons_bool", R"arr(
fn gt(x: f32[5], y: f32[5]) -> bool[5] {
  return x > y;
}
fn le_thresh(a: i32[3], t: i32) -> bool[3] {
  return a <= t;
}
fn same(a: i32[2, 3], b: i32[3]) -> bool[2, 3] {
  return a == b;
}
fn pass(p: bool[5]) -> bool[5] {
  return p;
}
fn gt_then_pass(x: f32[5], y: f32[5]) -> bool[5] {
  return pass(x >= y);
}
fn ne_scalar(x: f32[4]) -> bool {
  return sum(x) != 0.0;
}
export gt_e = vmap(gt, in_axes=(0, none), batch={B});
export le_thresh_e = vmap(le_thresh, in_axes=(0, none), batch={B});
export same_e = vmap(same, in_axes=(1, none), out_axes=2, batch={B});
export gt_then_pass_e = vmap(gt_then_pass, in_axes=(none, 0), batch={B});
export ne_scalar_e = vmap(ne_scalar, batch={B});
)arr"},
    // i32 arithmetic and outputs: matmul, sums, truncating division,
    // negation, literals.
    {"i32_arith", R"arr(
fn affine(a: i32[4, 3], b: i32[3]) -> i32[4] {
  return a @ b + 1;
}
fn divs(a: i32[6], d: i32[6]) -> i32[6] {
  return (a * a - 3) / d;
}
fn colsum(a: i32[4, 3]) -> i32[3] {
  return -sum(a, axis=0) * 2;
}
fn gram(a: i32[4, 3], b: i32[3, 4]) -> i32[4, 4] {
  return a @ b * 2 + max(a, axis=1) - min(b, axis=0);
}
export affine_e = vmap(affine, in_axes=(0, none), batch={B});
export divs_e = vmap(divs, in_axes=(0, 0), batch={B});
export colsum_e = vmap(colsum, in_axes=1, batch={B});
export gram_e = vmap(gram, out_axes=-1, batch={B});
)arr"},
    // Elementwise f32 math (exp, log, sqrt, tanh, division) with a matrix
    // product of two mapped operands.
    {"f32_math", R"arr(
fn log_exp_plus_1(x: f32[6]) -> f32[6] {
  return log(exp(x) + 1.0);
}
fn norm(x: f32[6]) -> f32 {
  return sqrt(sum(x * x) + 1.0);
}
fn mm(a: f32[3, 4], b: f32[4, 2]) -> f32[3, 2] {
  return tanh(a @ b) / 2.0 - -a @ b;
}
export softplus_e = vmap(log_exp_plus_1, batch={B});
export norm_e = vmap(norm, batch={B});
export mm_e = vmap(mm, in_axes=(0, 2), out_axes=1, batch={B});
)arr"},
    // Edge cases of the entry signature: the identity, an output that is
    // an unmapped input broadcast to every example, a result computed once
    // (out_axes=none), a constant result, an unused mapped input, and a
    // mapped scalar example. (`return 7;` for an i32[2] result is rejected:
    // see test/Driver/literal-return.arr.)
    {"signature_edges", R"arr(
fn id(x: f32[3]) -> f32[3] {
  return x;
}
fn shared(x: f32[3], w: f32[2, 3]) -> f32[2, 3] {
  return w;
}
fn once(x: f32[3], w: f32[3]) -> f32[3] {
  return w * 2.0 + 1.0;
}
fn konst(x: i32[2]) -> i32[2] {
  return x * 0 + 7;
}
fn ignore_first(x: f32[4], y: f32[3]) -> f32 {
  return sum(y);
}
fn scale(a: f32, b: f32[3]) -> f32[3] {
  return b * a - a;
}
export id_e = vmap(id, batch={B});
export id_t = vmap(id, out_axes=1, batch={B});
export shared_e = vmap(shared, in_axes=(0, none), out_axes=1, batch={B});
export once_e = vmap(once, in_axes=(0, none), out_axes=none, batch={B});
export konst_e = vmap(konst, batch={B});
export ignore_first_e = vmap(ignore_first, batch={B});
export scale_e = vmap(scale, in_axes=(0, 1), batch={B});
)arr"},
};

struct Case {
  const Program *program;
  int64_t batch;
};

void PrintTo(const Case &c, std::ostream *os) {
  *os << c.program->name << " with B = " << c.batch;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return std::string(info.param.program->name) + "_B" +
         std::to_string(info.param.batch);
}

std::vector<Case> allCases() {
  std::vector<Case> cases;
  for (const Program &p : kPrograms)
    for (int64_t b : {1, 2, 7})
      cases.push_back({&p, b});
  return cases;
}

class BatchedPrograms : public ::testing::TestWithParam<Case> {};

TEST_P(BatchedPrograms, EveryExportMatchesTheOracleAtSeveralN) {
  const Case &c = GetParam();
  std::string source =
      substitute(c.program->source, "B", std::to_string(c.batch));
  CompiledProgram program;
  ASSERT_TRUE(compileProgram(source, program));
  ASSERT_GE(program.executable->numEntries(), 1u);
  const int64_t b = c.batch;
  for (size_t e = 0; e < program.executable->numEntries(); ++e) {
    const Entry &entry = program.executable->entry(e);
    EXPECT_EQ(entry.batchSize(), uint64_t(b)) << entry.name();
    uint64_t launchesBefore = program.executable->stats().launches;
    uint64_t expectedLaunches = 0;
    for (int64_t n : {int64_t(0), int64_t(1), b, 2 * b + 1, 3 * b + 2}) {
      SCOPED_TRACE(entry.name() + " at N = " + std::to_string(n));
      std::vector<oracle::Array> inputs =
          randomBatchedInputs(program, entry.name(), n, 1000 * e + 17 * n + 3);
      ASSERT_EQ(inputs.size(), entry.numInputs());
      EXPECT_TRUE(matchesOracle(program, entry.name(), inputs, n));
      // ceil(N / B) walks of the schedule; with N = 0, one walk when an
      // output is unmapped (it is computed once on all-zero staging;
      // Runtime.h). Each walk launches every dispatch of the schedule but
      // those run once per call, which the first walk launches.
      bool unmappedOutput = false;
      for (const ArgInfo &out : entry.info().outputs)
        unmappedOutput |= !out.isMapped();
      expectedLaunches += launchesOfCall(
          entry.info(), n == 0 && unmappedOutput ? 1 : ceilDiv(n, b));
    }
    EXPECT_EQ(program.executable->stats().launches - launchesBefore,
              expectedLaunches)
        << entry.name();
  }
  EXPECT_EQ(program.executable->stats().allocations, 1u);
}

INSTANTIATE_TEST_SUITE_P(E2e, BatchedPrograms, ::testing::ValuesIn(allCases()),
                         caseName);

// The manifest says what the source says: dtypes, per-example shapes and
// where the batch axis sits.
TEST(Manifest, DTypesShapesAndAxes) {
  CompiledProgram program;
  ASSERT_TRUE(
      compileProgram(substitute(kPrograms[3].source, "B", "7"), program));
  const Entry *e = nullptr;
  ASSERT_TRUE(program.executable->findEntry("same_e", &e).ok());
  ASSERT_EQ(e->numInputs(), 2u);
  EXPECT_EQ(e->info().inputs[0].name, "a");
  EXPECT_EQ(e->info().inputs[0].dtype, DType::I32);
  EXPECT_EQ(e->info().inputs[0].shape, std::vector<int64_t>({2, 3}));
  EXPECT_EQ(e->info().inputs[0].mappedAxis, 1);
  EXPECT_EQ(e->info().inputs[1].mappedAxis, kNoAxis);
  EXPECT_EQ(e->info().outputs[0].dtype, DType::Bool);
  EXPECT_EQ(e->info().outputs[0].shape, std::vector<int64_t>({2, 3}));
  EXPECT_EQ(e->info().outputs[0].mappedAxis, 2);
  EXPECT_EQ(vmapc::batchedShape(e->info().outputs[0], 5),
            std::vector<int64_t>({2, 3, 5}));
}

// No input mapped (in_axes=none): N comes from the output's batch axis.
// Every example is the same; at N = B the oracle's per-example loop gives
// it, and at other N every row must equal that example.
TEST(NoMappedInput, NComesFromTheOutput) {
  CompiledProgram program;
  ASSERT_TRUE(compileProgram(R"arr(
fn f(w: f32[2, 3], v: f32[3]) -> f32[2] {
  return tanh(w @ v) + 0.5;
}
export e = vmap(f, in_axes=none, batch=3);
)arr",
                             program));
  std::vector<oracle::Array> inputs = randomBatchedInputs(program, "e", 3, 11);
  ASSERT_EQ(inputs.size(), 2u);
  ASSERT_TRUE(matchesOracle(program, "e", inputs, 3));
  auto expected = oracle::evaluatePerExample(program.exported("e"), inputs);
  ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
  for (int64_t n : {1, 7}) {
    std::vector<oracle::Array> outputs;
    ASSERT_TRUE(runEntry(program, "e", inputs, n, outputs));
    ASSERT_EQ(outputs[0].rank(), 2);
    ASSERT_EQ(outputs[0].shape[0], n);
    oracle::Array row = oracle::sliceAxis((*expected)[0], 0, 0);
    for (int64_t i = 0; i < n; ++i) {
      std::string why;
      EXPECT_TRUE(oracle::allClose(row, oracle::sliceAxis(outputs[0], 0, i),
                                   1e-5, 1e-6, &why))
          << "N = " << n << ", example " << i << ": " << why;
    }
  }
}

// The harness can fail: a program compiled from one source and compared
// with the oracle of another (x + 1 against x + 2) is reported, with the
// element that differs.
TEST(Harness, DetectsAWrongAnswer) {
  const char *plusOne = R"arr(
fn f(x: f32[3]) -> f32[3] {
  return x + 1.0;
}
export e = vmap(f, batch=2);
)arr";
  CompiledProgram program;
  ASSERT_TRUE(compileProgram(plusOne, program));
  std::vector<oracle::Array> inputs = randomBatchedInputs(program, "e", 3, 1);
  ASSERT_TRUE(matchesOracle(program, "e", inputs, 3));
  std::string plusTwo = plusOne;
  plusTwo.replace(plusTwo.find("1.0"), 3, "2.0");
  std::string diagnostics;
  program.reference =
      importSource(*program.context, plusTwo, "other.arr", diagnostics);
  ASSERT_TRUE(program.reference) << diagnostics;
  ::testing::AssertionResult wrong = matchesOracle(program, "e", inputs, 3);
  EXPECT_FALSE(wrong);
  EXPECT_NE(std::string(wrong.message()).find("element 0"), std::string::npos)
      << wrong.message();
}

// An i32 division in a chunk that the runtime pads (N not a multiple of B)
// must not trap: the check runs in a child process, so that a SIGFPE fails
// this test only.
/// Runs divs_e at N = 1 with B = 2 and says whether the answer is [[3, -3]].
bool divisionInAPaddedChunkIsRight() {
  CompiledProgram program;
  if (!compileProgram(R"arr(
fn divs(a: i32[2], d: i32[2]) -> i32[2] {
  return a / d;
}
export divs_e = vmap(divs, in_axes=(0, 0), batch=2);
)arr",
                      program))
    return false;
  std::vector<oracle::Array> inputs = {
      oracle::Array(oracle::DType::I32, {1, 2}, {7, -7}),
      oracle::Array(oracle::DType::I32, {1, 2}, {2, 2})};
  std::vector<oracle::Array> outputs;
  return runEntry(program, "divs_e", inputs, 1, outputs) &&
         outputs[0].values == std::vector<double>({3, -3});
}

// Once a bug: padding lanes were zeros, and i32 division by them raised
// SIGFPE. Padding lanes now repeat the last example, and the lowering of
// i32 division never traps.
TEST(PaddedChunks, I32DivisionDoesNotTrap) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(std::exit(divisionInAPaddedChunkIsRight() ? 0 : 1),
              ::testing::ExitedWithCode(0), "");
}

} // namespace
