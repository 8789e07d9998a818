//===- ThreadsTest.cpp - 1 and K threads give the same bits ---------------===//
//
// Each bench program (bench/programs/*.arr) compiled once at the best ISA
// level this CPU has, loaded on `cpu:threads=1` and on `cpu:threads=4`, and
// run on the same random inputs at N = 2B + 3 (two full chunks and a partial
// one): every output is bitwise identical. A workgroup computes the same
// examples with the same instructions whichever thread runs it, and no
// reduction is split across workgroups.
//
//===----------------------------------------------------------------------===//

#include "test/e2e/E2eHarness.h"

#include <cstring>
#include <fstream>
#include <sstream>

using namespace vmapc;
using namespace vmapc::e2e;

namespace {

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Bitwise equality of two oracle arrays (NaNs compare by their bits too).
bool sameBits(const oracle::Array &a, const oracle::Array &b) {
  return a.dtype == b.dtype && a.shape == b.shape &&
         a.values.size() == b.values.size() &&
         std::memcmp(a.values.data(), b.values.data(),
                     a.values.size() * sizeof(double)) == 0;
}

class ThreadCounts : public ::testing::TestWithParam<const char *> {};

TEST_P(ThreadCounts, OneAndFourThreadsGiveTheSameBits) {
  std::string source =
      readFile(std::string(VMAPC_E2E_BENCH_PROGRAMS) + "/" + GetParam());
  ASSERT_FALSE(source.empty()) << "cannot read " << GetParam();
  DeviceConfig one = DeviceConfig::fromEnvironment();
  if (one.isaLevel.empty())
    one.isaLevel = hostIsaLevels().back();
  one.threads = 1;
  CompiledProgram program;
  ASSERT_TRUE(compileProgram(source, program, one));
  DeviceConfig four = one;
  four.threads = 4;
  Device device;
  ASSERT_TRUE(Device::open(four.device(), &device).ok());
  std::unique_ptr<Executable> onFour;
  Status status = Executable::loadBytes(device, program.artifact.data(),
                                        program.artifact.size(), &onFour);
  ASSERT_TRUE(status.ok()) << status.message();

  for (size_t e = 0; e < program.executable->numEntries(); ++e) {
    const Entry &entry = program.executable->entry(e);
    int64_t n = 2 * int64_t(entry.batchSize()) + 3;
    std::vector<oracle::Array> inputs =
        randomBatchedInputs(program, entry.name(), n, 17 + e);
    ASSERT_EQ(inputs.size(), entry.numInputs());
    std::vector<oracle::Array> expected, actual;
    ASSERT_TRUE(runEntry(program, entry.name(), inputs, n, expected));
    std::swap(program.executable, onFour);
    ::testing::AssertionResult ran =
        runEntry(program, entry.name(), inputs, n, actual);
    std::swap(program.executable, onFour);
    ASSERT_TRUE(ran);
    ASSERT_EQ(expected.size(), actual.size());
    for (size_t i = 0; i < expected.size(); ++i)
      EXPECT_TRUE(sameBits(expected[i], actual[i]))
          << GetParam() << " entry " << entry.name() << " output " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(
    BenchPrograms, ThreadCounts,
    ::testing::Values("attention_128x64.arr", "chain_4096.arr",
                      "layernorm_768.arr", "mlp_64_32_10.arr",
                      "mlp_256_256_10.arr", "rnn_loop.arr", "softmax_1000.arr"),
    [](const ::testing::TestParamInfo<const char *> &info) {
      std::string name = info.param;
      name = name.substr(0, name.find('.'));
      for (char &c : name)
        if (c == '-')
          c = '_';
      return name;
    });

} // namespace
