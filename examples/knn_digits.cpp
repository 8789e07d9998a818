//===- knn_digits.cpp - 1-nearest-neighbour digits through the runtime ----===//
//
// The main job: classify the 797 UCI handwritten digits of rows 1000-1796
// by their nearest neighbour (squared Euclidean distance, lowest index wins
// ties) among rows 0-999, with examples/knn_digits.arr compiled by the build
// into a .vmapc artifact. Links only the vmapc runtime.
//
//   ./build/examples/knn_digits [ARTIFACT.vmapc] [DIGITS.csv]
//
//===----------------------------------------------------------------------===//

#include "vmapc/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kPixels = 64;
constexpr int kReferences = 1000;

struct Digits {
  std::vector<float> pixels; ///< rows x 64, row-major.
  std::vector<int> labels;
  size_t rows() const { return labels.size(); }
};

/// Reads the UCI digits CSV: 64 pixel values then the label, per line.
bool readDigits(const std::string &path, Digits &digits) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "knn_digits: cannot open '%s'\n", path.c_str());
    return false;
  }
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    std::stringstream fields(line);
    std::string field;
    std::vector<float> row;
    while (std::getline(fields, field, ','))
      row.push_back(std::stof(field));
    if (row.size() != kPixels + 1) {
      std::fprintf(stderr, "knn_digits: '%s': a row has %zu fields, not 65\n",
                   path.c_str(), row.size());
      return false;
    }
    digits.pixels.insert(digits.pixels.end(), row.begin(), row.end() - 1);
    digits.labels.push_back(static_cast<int>(row.back()));
  }
  return true;
}

int fail(const vmapc::Status &status) {
  std::fprintf(stderr, "knn_digits: %s\n", status.message().c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  std::string artifactPath = argc > 1 ? argv[1] : VMAPC_KNN_ARTIFACT;
  std::string dataPath = argc > 2 ? argv[2] : VMAPC_KNN_DATA;

  Digits digits;
  if (!readDigits(dataPath, digits))
    return 1;
  if (digits.rows() <= kReferences) {
    std::fprintf(stderr, "knn_digits: need more than %d rows\n", kReferences);
    return 1;
  }
  const int64_t numQueries = static_cast<int64_t>(digits.rows()) - kReferences;

  vmapc::Device device;
  vmapc::Status status = vmapc::Device::open("cpu", &device);
  if (!status.ok())
    return fail(status);
  std::unique_ptr<vmapc::Executable> executable;
  status = vmapc::Executable::loadFile(device, artifactPath, &executable);
  if (!status.ok())
    return fail(status);
  const vmapc::Entry *classify = nullptr;
  if (!(status = executable->findEntry("classify", &classify)).ok())
    return fail(status);

  const float *refs = digits.pixels.data();
  const float *queries = refs + kReferences * kPixels;
  std::vector<int32_t> nearest(numQueries);
  vmapc::HostArray inputs[] = {
      {queries, vmapc::DType::F32, vmapc::Shape{numQueries, kPixels}},
      {refs, vmapc::DType::F32, vmapc::Shape{kReferences, kPixels}}};
  vmapc::MutableHostArray outputs[] = {
      {nearest.data(), vmapc::DType::I32, vmapc::Shape{numQueries}}};

  std::vector<double> seconds;
  for (int run = 0; run < 10; ++run) {
    auto start = std::chrono::steady_clock::now();
    status = executable->run(*classify, {inputs, 2}, {outputs, 1});
    auto stop = std::chrono::steady_clock::now();
    if (!status.ok())
      return fail(status);
    seconds.push_back(std::chrono::duration<double>(stop - start).count());
  }
  std::sort(seconds.begin(), seconds.end());

  int correct = 0;
  for (int64_t i = 0; i < numQueries; ++i)
    correct += digits.labels[nearest[i]] == digits.labels[kReferences + i];

  const vmapc::EntryInfo &info = classify->info();
  vmapc::Stats stats = executable->stats();
  std::printf("knn_digits: %lld queries, %d references, batch %u\n",
              static_cast<long long>(numQueries), kReferences, info.batchSize);
  std::printf("correct:     %d of %lld\n", correct,
              static_cast<long long>(numQueries));
  std::printf("accuracy:    %.2f%%\n", 100.0 * correct / numQueries);
  std::printf("arena:       %llu bytes (lower bound %llu bytes, %.3fx; naive "
              "sum %llu bytes)\n",
              static_cast<unsigned long long>(info.arenaBytes),
              static_cast<unsigned long long>(info.lowerBoundBytes),
              info.lowerBoundBytes
                  ? static_cast<double>(info.arenaBytes) / info.lowerBoundBytes
                  : 1.0,
              static_cast<unsigned long long>(info.naiveSumBytes));
  std::printf("runtime:     %llu allocation(s), %llu launches over %llu "
              "calls\n",
              static_cast<unsigned long long>(stats.allocations),
              static_cast<unsigned long long>(stats.launches),
              static_cast<unsigned long long>(stats.calls));
  std::printf("median time: %.6f s over 10 runs\n",
              seconds[seconds.size() / 2]);
  return 0;
}
