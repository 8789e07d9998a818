//===- dpsgd_digits.cpp - DP-SGD softmax regression through the runtime ---===//
//
// Trains softmax regression (W: 10 x 64, b: 10) on rows 0-999 of the UCI
// digits (pixels as given, 0-16) with DP-SGD, and reports the accuracy on
// rows 1000-1796. examples/dpsgd_digits.arr, compiled by the build into a
// .vmapc artifact, computes each example's cross-entropy gradient clipped to
// L2 norm C = 1 (W and b together) and its loss; this host, which links only
// the vmapc runtime, does the rest of DP-SGD:
//
//   for each of 30 epochs, the training rows shuffled, in batches of 256
//   (the last one 232):
//     G = sum of the batch's clipped per-example gradients
//     W, b -= lr * (G + N(0, sigma^2 C^2 I)) / |batch|,  lr = 0.5
//
// from W = 0, b = 0. Everything random (the shuffles and the noise) comes
// from one xoshiro256** generator with a fixed seed (--seed), and the normals
// from Box-Muller, so a run gives the same figures on every platform.
// sigma is the noise multiplier (--sigma, default 0: plain clipped SGD);
// this program does no privacy accounting.
//
//   ./build/examples/dpsgd_digits [--sigma S] [--epochs E] [--seed N]
//       [--artifact FILE.vmapc] [--data DIGITS.csv] [--min-accuracy A]
//
// --min-accuracy A makes it exit 1 when the test accuracy is below A (a
// fraction): CTest runs it at sigma = 0 with A = 0.90 as a check of the
// whole pipeline (front end, vmap, plan, code, runtime) on a real program.
//
//===----------------------------------------------------------------------===//

#include "vmapc/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

constexpr int kPixels = 64;
constexpr int kClasses = 10;
constexpr int kTrainRows = 1000;
constexpr int kBatch = 256;
constexpr double kLearningRate = 0.5;
constexpr double kClipNorm = 1.0; // C; the .arr clips to 1.

struct Digits {
  std::vector<float> pixels; ///< rows x 64, row-major.
  std::vector<int32_t> labels;
  size_t rows() const { return labels.size(); }
};

/// Reads the UCI digits CSV: 64 pixel values then the label, per line.
bool readDigits(const std::string &path, Digits &digits) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "dpsgd_digits: cannot open '%s'\n", path.c_str());
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
    if (row.size() != kPixels + 1 || row.back() < 0 ||
        row.back() >= kClasses) {
      std::fprintf(stderr,
                   "dpsgd_digits: '%s': a row is not 64 pixels and a label "
                   "0-9\n",
                   path.c_str());
      return false;
    }
    digits.pixels.insert(digits.pixels.end(), row.begin(), row.end() - 1);
    digits.labels.push_back(static_cast<int32_t>(row.back()));
  }
  return true;
}

/// xoshiro256** seeded through splitmix64: the same stream everywhere
/// (unlike std::shuffle and std::normal_distribution, whose algorithms the
/// standard leaves to the library).
class Rng {
public:
  explicit Rng(uint64_t seed) {
    for (uint64_t &word : s) {
      seed += 0x9e3779b97f4a7c15ull;
      uint64_t z = seed;
      z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
      z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
      word = z ^ (z >> 31);
    }
  }
  uint64_t next() {
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }
  /// Uniform in (0, 1]: 53 random bits.
  double uniform() { return ((next() >> 11) + 1) * 0x1.0p-53; }
  /// Uniform integer in [0, n) (n > 0), by rejection (no modulo bias).
  uint64_t below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
      x = next();
    while (x >= limit);
    return x % n;
  }
  /// A standard normal (Box-Muller; the second value is kept for next time).
  double normal() {
    if (hasSpare) {
      hasSpare = false;
      return spare;
    }
    double r = std::sqrt(-2.0 * std::log(uniform()));
    double t = 6.283185307179586 * uniform(); // 2 pi
    spare = r * std::sin(t);
    hasSpare = true;
    return r * std::cos(t);
  }

private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s[4];
  double spare = 0;
  bool hasSpare = false;
};

struct Options {
  double sigma = 0.0;
  int epochs = 30;
  uint64_t seed = 20261203;
  double minAccuracy = -1; ///< < 0: no check.
  std::string artifact = VMAPC_DPSGD_ARTIFACT;
  std::string data = VMAPC_DPSGD_DATA;
};

bool parseOptions(int argc, char **argv, Options &opts) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](const char *name) -> const char * {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "dpsgd_digits: %s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    auto number = [&](const char *name, double lo, double &out) {
      const char *v = value(name);
      if (!v)
        return false;
      char *end = nullptr;
      out = std::strtod(v, &end);
      if (end == v || *end || !std::isfinite(out) || out < lo) {
        std::fprintf(stderr, "dpsgd_digits: %s: bad value '%s'\n", name, v);
        return false;
      }
      return true;
    };
    double d = 0;
    if (arg == "--sigma") {
      if (!number("--sigma", 0, opts.sigma))
        return false;
    } else if (arg == "--epochs") {
      if (!number("--epochs", 0, d) || d != std::floor(d) || d > 1e6)
        return false;
      opts.epochs = static_cast<int>(d);
    } else if (arg == "--seed") {
      if (!number("--seed", 0, d) || d != std::floor(d) || d > 9e15)
        return false;
      opts.seed = static_cast<uint64_t>(d);
    } else if (arg == "--min-accuracy") {
      if (!number("--min-accuracy", 0, opts.minAccuracy))
        return false;
    } else if (arg == "--artifact") {
      const char *v = value("--artifact");
      if (!v)
        return false;
      opts.artifact = v;
    } else if (arg == "--data") {
      const char *v = value("--data");
      if (!v)
        return false;
      opts.data = v;
    } else {
      std::fprintf(stderr,
                   "usage: dpsgd_digits [--sigma S] [--epochs E] [--seed N] "
                   "[--artifact FILE.vmapc] [--data DIGITS.csv] "
                   "[--min-accuracy A]\n");
      return false;
    }
  }
  return true;
}

int fail(const vmapc::Status &status) {
  std::fprintf(stderr, "dpsgd_digits: %s\n", status.message().c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  Options opts;
  if (!parseOptions(argc, argv, opts))
    return 2;

  Digits digits;
  if (!readDigits(opts.data, digits))
    return 1;
  if (digits.rows() <= kTrainRows) {
    std::fprintf(stderr, "dpsgd_digits: need more than %d rows\n",
                 kTrainRows);
    return 1;
  }
  const int64_t numTest = static_cast<int64_t>(digits.rows()) - kTrainRows;

  vmapc::Device device;
  vmapc::Status status = vmapc::Device::open("cpu", &device);
  if (!status.ok())
    return fail(status);
  std::unique_ptr<vmapc::Executable> executable;
  status = vmapc::Executable::loadFile(device, opts.artifact, &executable);
  if (!status.ok())
    return fail(status);
  const vmapc::Entry *grads = nullptr;
  if (!(status = executable->findEntry("per_example_grads", &grads)).ok())
    return fail(status);

  // The parameters (f32, as the entry takes them) and the batch's staging.
  std::vector<float> w(kClasses * kPixels, 0.0f), b(kClasses, 0.0f);
  std::vector<float> x(kBatch * kPixels);
  std::vector<int32_t> y(kBatch);
  std::vector<float> gw(kBatch * kClasses * kPixels), gb(kBatch * kClasses);
  std::vector<float> loss(kBatch);
  std::vector<double> sumW(kClasses * kPixels), sumB(kClasses);

  Rng rng(opts.seed);
  std::vector<int> order(kTrainRows);
  for (int i = 0; i < kTrainRows; ++i)
    order[i] = i;

  std::printf("dpsgd_digits: %d training rows, %lld test rows, batch %d, "
              "%d epochs, lr %.2f, C %.1f, sigma %g, seed %llu\n",
              kTrainRows, static_cast<long long>(numTest), kBatch,
              opts.epochs, kLearningRate, kClipNorm, opts.sigma,
              static_cast<unsigned long long>(opts.seed));

  double runSeconds = 0;
  int steps = 0;
  int64_t clipped = 0, seen = 0;
  for (int epoch = 1; epoch <= opts.epochs; ++epoch) {
    for (int i = kTrainRows - 1; i > 0; --i) // Fisher-Yates
      std::swap(order[i], order[rng.below(i + 1)]);
    double lossSum = 0;
    for (int start = 0; start < kTrainRows; start += kBatch) {
      const int n = std::min(kBatch, kTrainRows - start);
      for (int k = 0; k < n; ++k) {
        const int row = order[start + k];
        std::memcpy(&x[k * kPixels], &digits.pixels[row * kPixels],
                    kPixels * sizeof(float));
        y[k] = digits.labels[row];
      }
      vmapc::HostArray inputs[] = {
          {w.data(), vmapc::DType::F32, vmapc::Shape{kClasses, kPixels}},
          {b.data(), vmapc::DType::F32, vmapc::Shape{kClasses}},
          {x.data(), vmapc::DType::F32, vmapc::Shape{n, kPixels}},
          {y.data(), vmapc::DType::I32, vmapc::Shape{n}}};
      vmapc::MutableHostArray outputs[] = {
          {gw.data(), vmapc::DType::F32, vmapc::Shape{n, kClasses, kPixels}},
          {gb.data(), vmapc::DType::F32, vmapc::Shape{n, kClasses}},
          {loss.data(), vmapc::DType::F32, vmapc::Shape{n}}};
      auto t0 = std::chrono::steady_clock::now();
      status = executable->run(*grads, {inputs, 4}, {outputs, 3});
      runSeconds += std::chrono::duration<double>(
                        std::chrono::steady_clock::now() - t0)
                        .count();
      if (!status.ok())
        return fail(status);

      // Sum the clipped gradients (in double), count the clipped ones.
      std::fill(sumW.begin(), sumW.end(), 0.0);
      std::fill(sumB.begin(), sumB.end(), 0.0);
      for (int k = 0; k < n; ++k) {
        const float *gwk = &gw[k * kClasses * kPixels];
        const float *gbk = &gb[k * kClasses];
        double sq = 0;
        for (int j = 0; j < kClasses * kPixels; ++j) {
          sumW[j] += gwk[j];
          sq += double(gwk[j]) * gwk[j];
        }
        for (int j = 0; j < kClasses; ++j) {
          sumB[j] += gbk[j];
          sq += double(gbk[j]) * gbk[j];
        }
        // A clipped gradient has norm C (to f32 round-off).
        clipped += sq > 0.999 * kClipNorm * kClipNorm;
        lossSum += loss[k];
      }
      seen += n;
      // Noise N(0, sigma^2 C^2 I) on the sum, then the step.
      const double noise = opts.sigma * kClipNorm;
      for (int j = 0; j < kClasses * kPixels; ++j)
        w[j] -= static_cast<float>(
            kLearningRate * (sumW[j] + noise * rng.normal()) / n);
      for (int j = 0; j < kClasses; ++j)
        b[j] -= static_cast<float>(
            kLearningRate * (sumB[j] + noise * rng.normal()) / n);
      ++steps;
    }
    if (epoch == 1 || epoch % 5 == 0 || epoch == opts.epochs)
      std::printf("epoch %2d:    mean training loss %.4f (before each "
                  "step)\n",
                  epoch, lossSum / kTrainRows);
  }

  // Test accuracy: argmax of W x + b on rows 1000-1796 (lowest class on
  // ties), on the host in double.
  int correct = 0;
  for (int64_t i = 0; i < numTest; ++i) {
    const float *xi = &digits.pixels[(kTrainRows + i) * kPixels];
    int best = 0;
    double bestLogit = -INFINITY;
    for (int c = 0; c < kClasses; ++c) {
      double logit = b[c];
      for (int j = 0; j < kPixels; ++j)
        logit += double(w[c * kPixels + j]) * xi[j];
      if (logit > bestLogit) {
        bestLogit = logit;
        best = c;
      }
    }
    correct += best == digits.labels[kTrainRows + i];
  }
  const double accuracy = static_cast<double>(correct) / numTest;

  const vmapc::EntryInfo &info = grads->info();
  vmapc::Stats stats = executable->stats();
  std::printf("clipped:     %lld of %lld per-example gradients (norm above "
              "C, scaled to C)\n",
              static_cast<long long>(clipped), static_cast<long long>(seen));
  std::printf("correct:     %d of %lld\n", correct,
              static_cast<long long>(numTest));
  std::printf("accuracy:    %.2f%% (sigma %g)\n", 100.0 * accuracy,
              opts.sigma);
  std::printf("arena:       %llu bytes (lower bound %llu bytes, %.3fx; naive "
              "sum %llu bytes; %u in-place write(s))\n",
              static_cast<unsigned long long>(info.arenaBytes),
              static_cast<unsigned long long>(info.lowerBoundBytes),
              info.lowerBoundBytes
                  ? static_cast<double>(info.arenaBytes) / info.lowerBoundBytes
                  : 1.0,
              static_cast<unsigned long long>(info.naiveSumBytes),
              info.inPlaceCount);
  std::printf("runtime:     %llu allocation(s), %llu launches over %llu "
              "calls (%d steps)\n",
              static_cast<unsigned long long>(stats.allocations),
              static_cast<unsigned long long>(stats.launches),
              static_cast<unsigned long long>(stats.calls), steps);
  std::printf("time:        %.4f s in the entry's %llu calls\n", runSeconds,
              static_cast<unsigned long long>(stats.calls));
  if (opts.minAccuracy >= 0 && accuracy < opts.minAccuracy) {
    std::fprintf(stderr,
                 "dpsgd_digits: FAILED: accuracy %.4f is below %.4f\n",
                 accuracy, opts.minAccuracy);
    return 1;
  }
  return 0;
}
