//===- KnnDigitsTest.cpp - examples/knn_digits.arr on the real digits -----===//
//
// The main job end to end: examples/knn_digits.arr compiled in memory,
// classifying the 797 UCI digits of rows 1000-1796 by their nearest
// neighbour among rows 0-999, through the runtime (4 launches of B = 256,
// the last one padded). Every answer must equal the oracle's per-example
// loop over the same source, and 767 of 797 labels are right (numpy's exact
// argmin gives the same 767).
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

#include <fstream>
#include <sstream>

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

constexpr int kPixels = 64;
constexpr int kReferences = 1000;
constexpr int kQueries = 797;

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// Reads the decompressed UCI digits CSV: 64 pixels and a label per line.
bool readDigits(const std::string &path, std::vector<double> &pixels,
                std::vector<int> &labels) {
  std::ifstream in(path);
  if (!in)
    return false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    std::stringstream fields(line);
    std::string field;
    std::vector<double> row;
    while (std::getline(fields, field, ','))
      row.push_back(std::stod(field));
    if (row.size() != kPixels + 1)
      return false;
    pixels.insert(pixels.end(), row.begin(), row.end() - 1);
    labels.push_back(static_cast<int>(row.back()));
  }
  return true;
}

TEST(KnnDigits, AllAnswersMatchTheOracleAnd767AreCorrect) {
  std::string source = readFile(VMAPC_E2E_KNN_SOURCE);
  ASSERT_FALSE(source.empty()) << "cannot read " << VMAPC_E2E_KNN_SOURCE;
  std::vector<double> pixels;
  std::vector<int> labels;
  ASSERT_TRUE(readDigits(VMAPC_E2E_DIGITS, pixels, labels))
      << "cannot read " << VMAPC_E2E_DIGITS;
  ASSERT_EQ(labels.size(), size_t(kReferences + kQueries));

  CompiledProgram program;
  ASSERT_TRUE(compileProgram(source, program));
  const Entry *classify = nullptr;
  ASSERT_TRUE(program.executable->findEntry("classify", &classify).ok());
  EXPECT_EQ(classify->batchSize(), 256u);
  // The references transposed (64 x 1000 f32) and the staging slots of the
  // queries and the answers; the distances never reach memory.
  EXPECT_EQ(classify->info().arenaBytes, 322560u);

  std::vector<double> refPixels(pixels.begin(),
                                pixels.begin() + kReferences * kPixels);
  std::vector<double> queryPixels(pixels.begin() + kReferences * kPixels,
                                  pixels.end());
  std::vector<oracle::Array> inputs = {
      oracle::Array(oracle::DType::F32, {kQueries, kPixels}, queryPixels),
      oracle::Array(oracle::DType::F32, {kReferences, kPixels}, refPixels)};

  // The runtime's answers.
  std::vector<oracle::Array> outputs;
  ASSERT_TRUE(runEntry(program, "classify", inputs, kQueries, outputs));
  ASSERT_EQ(outputs.size(), 1u);
  const oracle::Array &nearest = outputs[0];
  ASSERT_EQ(nearest.dtype, oracle::DType::I32);
  ASSERT_EQ(nearest.numElements(), kQueries);

  // The oracle's per-example loop on the unlowered source.
  auto expected =
      oracle::evaluatePerExample(program.exported("classify"), inputs);
  ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
  int mismatches = 0;
  for (int i = 0; i < kQueries; ++i)
    if ((*expected)[0].values[i] != nearest.values[i] && mismatches++ < 10)
      ADD_FAILURE() << "query " << i << ": runtime says reference "
                    << nearest.values[i] << ", oracle says "
                    << (*expected)[0].values[i];
  EXPECT_EQ(mismatches, 0);

  int correct = 0;
  for (int i = 0; i < kQueries; ++i) {
    int ref = static_cast<int>(nearest.values[i]);
    ASSERT_GE(ref, 0);
    ASSERT_LT(ref, kReferences);
    correct += labels[ref] == labels[kReferences + i];
  }
  EXPECT_EQ(correct, 767);

  Stats stats = program.executable->stats();
  EXPECT_EQ(stats.allocations, 1u);
  // ceil(797 / 256) walks of a schedule of 2 dispatches, the references'
  // transpose in the first only (it reads only the unmapped references).
  ASSERT_EQ(classify->info().schedule.size(), 2u);
  EXPECT_TRUE(classify->info().schedule[0].oncePerCall);
  EXPECT_FALSE(classify->info().schedule[1].oncePerCall);
  EXPECT_EQ(launchesOfCall(classify->info(), 4), 1u + 4u);
  EXPECT_EQ(stats.launches, 1u + 4u);
  EXPECT_EQ(stats.examples, uint64_t(kQueries));
}

} // namespace
