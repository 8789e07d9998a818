//===- knn_bench.cpp - time a compiled 1-NN digits classifier -------------===//
//
//   vmapc-knn-bench ARTIFACT.vmapc [RUNS] [--runs K] [--data digits.csv(.gz)]
//                   [--entry NAME]
//
// Loads a .vmapc artifact of examples/knn_digits.arr (or a variant with
// another batch size), reads the UCI digits (rows 0-999 are the references,
// rows 1000-1796 the 797 queries), and runs the entry on all queries RUNS
// times (default 20). Every run's answers are compared with a plain C++ 1-NN
// loop (squared Euclidean distance, lowest index wins ties); any difference
// exits with status 1 before anything is printed as a time. Prints the median
// and minimum wall time of one run over all queries, the labels it gets right,
// the process's peak RSS and the runtime's arena, and a last line
// `RESULT key=value ...` for scripts (bench/knn_digits.py).
//
// No timing is asserted: the numbers are whatever the machine gives.
//
//===----------------------------------------------------------------------===//

#include "vmapc/Runtime.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <sys/resource.h>

#ifdef VMAPC_BENCH_HAVE_ZLIB
#include <zlib.h>
#endif

#ifndef VMAPC_BENCH_DEFAULT_DATA
#define VMAPC_BENCH_DEFAULT_DATA ""
#endif

namespace {

constexpr int kPixels = 64;
constexpr int kRows = 1797;
constexpr int kRefs = 1000;
constexpr int kQueries = kRows - kRefs; // 797

int fail(const std::string &message) {
  std::fprintf(stderr, "vmapc-knn-bench: error: %s\n", message.c_str());
  return 1;
}

/// Reads the whole file at `path`, gunzipping it when zlib is available (zlib
/// reads an uncompressed file unchanged).
bool readText(const std::string &path, std::string *out, std::string *error) {
#ifdef VMAPC_BENCH_HAVE_ZLIB
  gzFile file = gzopen(path.c_str(), "rb");
  if (!file) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  char buffer[1 << 16];
  int n;
  while ((n = gzread(file, buffer, sizeof buffer)) > 0)
    out->append(buffer, static_cast<size_t>(n));
  int errnum = 0;
  const char *message = gzerror(file, &errnum);
  bool ok = n == 0 && errnum == Z_OK;
  if (!ok)
    *error = "cannot read '" + path + "': " + message;
  gzclose(file);
  return ok;
#else
  if (path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0) {
    *error = "'" + path +
             "' is gzip-compressed and this build has no zlib; pass the "
             "decompressed csv (the build writes build/bench/digits.csv)";
    return false;
  }
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    *error = "cannot open '" + path + "'";
    return false;
  }
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file)) > 0)
    out->append(buffer, n);
  bool ok = !std::ferror(file);
  if (!ok)
    *error = "cannot read '" + path + "'";
  std::fclose(file);
  return ok;
#endif
}

/// Parses the digits csv: kRows lines of 64 pixels and a label, integers.
bool parseDigits(const std::string &text, std::vector<float> *pixels,
                 std::vector<int32_t> *labels, std::string *error) {
  pixels->clear();
  labels->clear();
  const char *p = text.c_str();
  int line = 0;
  while (*p) {
    if (*p == '\n' || *p == '\r') {
      ++p;
      continue;
    }
    ++line;
    for (int column = 0; column <= kPixels; ++column) {
      char *end = nullptr;
      long value = std::strtol(p, &end, 10);
      if (end == p || value < 0 || value > 16) {
        *error = "line " + std::to_string(line) + ", column " +
                 std::to_string(column + 1) + ": expected an integer in 0-16";
        return false;
      }
      p = end;
      if (column < kPixels) {
        if (*p != ',') {
          *error = "line " + std::to_string(line) + ": expected 65 values";
          return false;
        }
        ++p;
        pixels->push_back(static_cast<float>(value));
      } else {
        if (*p != '\n' && *p != '\r' && *p != '\0') {
          *error = "line " + std::to_string(line) + ": expected 65 values";
          return false;
        }
        labels->push_back(static_cast<int32_t>(value));
      }
    }
  }
  if (line != kRows) {
    *error = "expected " + std::to_string(kRows) + " rows, got " +
             std::to_string(line);
    return false;
  }
  return true;
}

/// The plain 1-NN loop: for each query, the index of the reference at the
/// least squared Euclidean distance, the lowest index on ties. Pixels are
/// small integers, so int64 arithmetic gives the exact distances.
std::vector<int32_t> nearestReference(const float *queries, int numQueries,
                                      const float *refs, int numRefs) {
  std::vector<int32_t> out(numQueries);
  for (int i = 0; i < numQueries; ++i) {
    const float *q = queries + static_cast<size_t>(i) * kPixels;
    int64_t best = INT64_MAX;
    int32_t bestIndex = -1;
    for (int j = 0; j < numRefs; ++j) {
      const float *r = refs + static_cast<size_t>(j) * kPixels;
      int64_t d = 0;
      for (int k = 0; k < kPixels; ++k) {
        int64_t diff = static_cast<int64_t>(q[k]) - static_cast<int64_t>(r[k]);
        d += diff * diff;
      }
      if (d < best) {
        best = d;
        bestIndex = j;
      }
    }
    out[i] = bestIndex;
  }
  return out;
}

double peakRssMiB() {
  struct rusage usage;
  std::memset(&usage, 0, sizeof usage);
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0; // ru_maxrss is KiB
}

bool parsePositive(const char *text, long *out) {
  char *end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < 1)
    return false;
  *out = value;
  return true;
}

void usage() {
  std::fprintf(stderr,
               "usage: vmapc-knn-bench ARTIFACT.vmapc [RUNS] [--runs K] "
               "[--data FILE] [--entry NAME]\n"
               "  RUNS/K: timed runs over all 797 queries (default 20)\n"
               "  FILE: digits.csv or digits.csv.gz (default %s)\n"
               "  NAME: the entry to run (default: classify)\n",
               VMAPC_BENCH_DEFAULT_DATA[0] ? VMAPC_BENCH_DEFAULT_DATA
                                           : "none built in");
}

} // namespace

int main(int argc, char **argv) {
  std::string artifactPath;
  std::string dataPath = VMAPC_BENCH_DEFAULT_DATA;
  std::string entryName = "classify";
  long runs = 20;
  bool runsGiven = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      usage();
      return 0;
    }
    if ((arg == "--runs" || arg == "--data" || arg == "--entry") &&
        i + 1 < argc) {
      const char *value = argv[++i];
      if (arg == "--data") {
        dataPath = value;
      } else if (arg == "--entry") {
        entryName = value;
      } else if (!parsePositive(value, &runs)) {
        return fail(std::string("--runs wants a positive integer, got '") +
                    value + "'");
      }
      continue;
    }
    if (!arg.empty() && arg[0] == '-') {
      usage();
      return fail("unknown option '" + arg + "'");
    }
    if (artifactPath.empty()) {
      artifactPath = arg;
    } else if (!runsGiven) {
      if (!parsePositive(argv[i], &runs))
        return fail("RUNS wants a positive integer, got '" + arg + "'");
      runsGiven = true;
    } else {
      usage();
      return fail("unexpected argument '" + arg + "'");
    }
  }
  if (artifactPath.empty()) {
    usage();
    return fail("give the .vmapc artifact to run");
  }
  if (dataPath.empty())
    return fail("give the digits data with --data FILE");

  // The data.
  std::string text, error;
  std::vector<float> pixels;
  std::vector<int32_t> labels;
  if (!readText(dataPath, &text, &error))
    return fail(error);
  if (!parseDigits(text, &pixels, &labels, &error))
    return fail(dataPath + ": " + error);
  std::string().swap(text);
  const float *refs = pixels.data();
  const float *queries = pixels.data() + static_cast<size_t>(kRefs) * kPixels;
  std::vector<int32_t> expected =
      nearestReference(queries, kQueries, refs, kRefs);

  // The artifact.
  vmapc::Device device;
  vmapc::Status status = vmapc::Device::open("cpu", &device);
  if (!status.ok())
    return fail(status.message());
  std::unique_ptr<vmapc::Executable> exe;
  status = vmapc::Executable::loadFile(device, artifactPath, &exe);
  if (!status.ok())
    return fail(status.message());
  const vmapc::Entry *entry = nullptr;
  status = exe->findEntry(entryName, &entry);
  if (!status.ok())
    return fail(status.message());
  const vmapc::EntryInfo &info = entry->info();
  // The signature of examples/knn_digits.arr: (q: f32[64] mapped at 0,
  // refs: f32[1000, 64] unmapped) -> i32 mapped at 0.
  bool signatureOk =
      info.inputs.size() == 2 && info.outputs.size() == 1 &&
      info.inputs[0].dtype == vmapc::DType::F32 &&
      info.inputs[0].shape == std::vector<int64_t>{kPixels} &&
      info.inputs[0].mappedAxis == 0 &&
      info.inputs[1].dtype == vmapc::DType::F32 &&
      info.inputs[1].shape == std::vector<int64_t>{kRefs, kPixels} &&
      !info.inputs[1].isMapped() &&
      info.outputs[0].dtype == vmapc::DType::I32 &&
      info.outputs[0].shape.empty() && info.outputs[0].mappedAxis == 0;
  if (!signatureOk)
    return fail("entry '" + entryName +
                "' does not have the signature of examples/knn_digits.arr "
                "(q: f32[64] mapped at 0, refs: f32[1000, 64] shared) -> i32");

  vmapc::HostArray q{queries, vmapc::DType::F32, {kQueries, kPixels}};
  vmapc::HostArray r{refs, vmapc::DType::F32, {kRefs, kPixels}};
  std::vector<int32_t> got(kQueries);
  vmapc::MutableHostArray out{got.data(), vmapc::DType::I32, {kQueries}};
  double baseRss = peakRssMiB();

  // One untimed warm-up run (page faults in the arena and the code), checked
  // like the others.
  std::vector<double> seconds;
  for (long run = -1; run < runs; ++run) {
    std::fill(got.begin(), got.end(), -1);
    auto start = std::chrono::steady_clock::now();
    status = exe->run(*entry, {q, r}, {out});
    auto stop = std::chrono::steady_clock::now();
    if (!status.ok())
      return fail(status.message());
    for (int i = 0; i < kQueries; ++i)
      if (got[i] != expected[i])
        return fail((run < 0 ? std::string("warm-up run")
                             : "run " + std::to_string(run + 1)) +
                    ": query " + std::to_string(i) + " (row " +
                    std::to_string(kRefs + i) + "): nearest reference " +
                    std::to_string(got[i]) + ", the plain loop says " +
                    std::to_string(expected[i]) +
                    "; no time reported for wrong answers");
    if (run >= 0)
      seconds.push_back(std::chrono::duration<double>(stop - start).count());
  }

  int correct = 0;
  for (int i = 0; i < kQueries; ++i)
    correct += labels[expected[i]] == labels[kRefs + i];
  std::vector<double> sorted = seconds;
  std::sort(sorted.begin(), sorted.end());
  size_t n = sorted.size();
  double median =
      n % 2 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  double best = sorted.front();
  vmapc::Stats stats = exe->stats();
  double rss = peakRssMiB();

  std::printf("artifact  %s (entry %s, batch %u)\n", artifactPath.c_str(),
              entryName.c_str(), entry->batchSize());
  std::printf("queries   %d x %d runs (+1 warm-up), %" PRIu64
              " launches per run\n",
              kQueries, static_cast<int>(runs),
              stats.launches / static_cast<uint64_t>(runs + 1));
  std::printf("time      median %.6f s, min %.6f s per run of %d queries\n",
              median, best, kQueries);
  std::printf("answers   %d/%d agree with the plain C++ 1-NN loop on every "
              "run; %d/%d labels correct\n",
              kQueries, kQueries, correct, kQueries);
  std::printf("memory    peak RSS %.1f MiB (%.1f MiB before the first run); "
              "arena %" PRIu64 " bytes\n",
              rss, baseRss, stats.arenaBytes);
  std::printf("plan      arena %" PRIu64 " bytes, lower bound %" PRIu64
              " bytes, naive sum %" PRIu64 " bytes, %u in-place\n",
              info.arenaBytes, info.lowerBoundBytes, info.naiveSumBytes,
              info.inPlaceCount);
  std::printf("RESULT batch=%u runs=%ld median_s=%.9f min_s=%.9f agree=%d "
              "correct=%d queries=%d peak_rss_mib=%.3f base_rss_mib=%.3f "
              "arena_bytes=%" PRIu64 " plan_arena=%" PRIu64
              " plan_lower_bound=%" PRIu64 " plan_naive_sum=%" PRIu64
              " plan_in_place=%u launches_per_run=%" PRIu64 "\n",
              entry->batchSize(), runs, median, best, kQueries, correct,
              kQueries, rss, baseRss, stats.arenaBytes, info.arenaBytes,
              info.lowerBoundBytes, info.naiveSumBytes, info.inPlaceCount,
              stats.launches / static_cast<uint64_t>(runs + 1));
  return 0;
}
