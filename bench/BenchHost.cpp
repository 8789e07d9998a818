//===- BenchHost.cpp - vmapc-bench: time one entry through the runtime ----===//
//
//   vmapc-bench [ARTIFACT.vmapc] [--entry NAME]
//               [--input X.npy]... | [--num-examples N [--seed S]]
//               [--output Y.npy]... [--device STRING] [--runs K]
//               [--warmup W] [--warmup-seconds S] [--max-seconds T]
//               [--min-runs M] [--memcpy-bytes BYTES] [--memcpy-repeats R]
//               [--fma-peak] [--fma-seconds T] [--threads P]
//
// Times one entry of a compiled artifact through the runtime (the only
// library this program links) and prints ONE line of JSON on stdout for
// bench/run.py. Everything it measures is measured in this process:
//
// - The entry: the inputs are the .npy files given with --input (in manifest
//   order; bench/run.py writes them so that numpy, JAX and vmapc see the same
//   data), or, with --num-examples N, deterministic random arrays of each
//   input's dtype and batched shape (f32 uniform in [-1, 1), i32 in
//   [0, 1000), bool 0/1; splitmix64 seeded with --seed and the input's
//   index; never all zeros). W untimed warm-up calls (default 2), and more
//   until they have taken S seconds (--warmup-seconds, default 0; a 2 ms
//   kNN call on this project's 2-core machines runs 1.5-2.5x slower for
//   its first ~50 calls), then K timed calls (default 20) of
//   `Executable::run` over all N examples. With --max-seconds T, fewer timed
//   calls are made when K calls would take longer than T by the fastest
//   warm-up call, but at least M (--min-runs, default 3; the warm-up also
//   stops after a call longer than T / 2).
//   Outputs are filled with a marker (f32 NaN, i32 0x7f7f7f7f,
//   bool 2) before the warm-up, so an element no call writes shows up in the
//   outputs written with --output (those of the last timed call).
// - --memcpy-bytes BYTES: std::memcpy of BYTES on one thread and on P threads
//   (MachineRates.h), median GB/s with read + write counted.
// - --fma-peak: independent FMA chains on the widest vectors the CPU has, on
//   one thread and on P threads at once (MachineRates.h), best GFLOP/s.
//   P is --threads, default the CPUs this process may run on.
//
// JSON keys: "times_s" (every timed call, seconds), "median_s", "min_s",
// "runs", "warmup", "warmup_s", "cpu_s" (user + system CPU seconds of the
// process during the timed calls, all threads) and "cpu_per_wall" (cpu_s /
// the sum of times_s: about 1 for one busy thread on an idle machine),
// "threads" (threads of the process after the timed calls) and
// "thread_ticks" (CPU ticks, 1/sysconf(_SC_CLK_TCK) s, that each thread ran
// during the timed calls, largest first; both from /proc/self/task, empty
// without /proc), "launches_per_call", "batch", "num_examples",
// "input_bytes" / "output_bytes" (of all N examples as passed), "plan" (the
// manifest's arena, lower bound, naive sum and in-place count, and
// "staging_bytes": B examples of each input and output with a staging slot),
// "arena_bytes" (the runtime's allocation), "peak_rss_mib", and "memcpy" /
// "fma" objects when asked for.
//
// Exit status: 0 on success; 2 when `vmapc::Device::open` refuses --device
// (the status message is printed on stderr and in the JSON line as
// {"device_refused": ...}); 1 for any other error (bad arguments, files,
// artifacts, shapes; a runtime status), with a message on stderr.
//
// No timing is asserted anywhere; bench/run.py compares the outputs with
// numpy and JAX.
//
//===----------------------------------------------------------------------===//

#include "MachineRates.h"

#include "vmapc/Npy.h"
#include "vmapc/Runtime.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <dirent.h>
#include <sys/resource.h>

namespace {

using vmapc::bench::availableCpus;

int fail(const std::string &message) {
  std::fprintf(stderr, "vmapc-bench: error: %s\n", message.c_str());
  return 1;
}

void usage(std::FILE *to) {
  std::fprintf(
      to,
      "usage: vmapc-bench [ARTIFACT.vmapc] [--entry NAME]\n"
      "                   [--input X.npy]... | [--num-examples N [--seed S]]\n"
      "                   [--output Y.npy]... [--device STRING] [--runs K]\n"
      "                   [--warmup W] [--warmup-seconds S] [--max-seconds T]\n"
      "                   [--min-runs M]\n"
      "                   [--memcpy-bytes BYTES] [--memcpy-repeats R]\n"
      "                   [--fma-peak] [--fma-seconds T] [--threads P]\n"
      "Times ARTIFACT's entry through the vmapc runtime (K timed calls after "
      "W warm-up\ncalls, defaults 20 and 2), and/or a memcpy of BYTES and the "
      "FMA peak, and\nprints one line of JSON. See bench/README.md.\n");
}

//===----------------------------------------------------------------------===//
// One line of JSON, written by hand (this program links only the runtime).
//===----------------------------------------------------------------------===//

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
  }
  return out + "\"";
}

std::string jsonNumber(double x) {
  if (!std::isfinite(x))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", x);
  return buf;
}

/// Collects "key": value pairs of one JSON object.
class JsonObject {
public:
  JsonObject &raw(const std::string &key, const std::string &value) {
    text += (text.empty() ? "" : ", ") + jsonString(key) + ": " + value;
    return *this;
  }
  JsonObject &str(const std::string &key, const std::string &value) {
    return raw(key, jsonString(value));
  }
  JsonObject &num(const std::string &key, double value) {
    return raw(key, jsonNumber(value));
  }
  JsonObject &integer(const std::string &key, uint64_t value) {
    return raw(key, std::to_string(value));
  }
  JsonObject &numbers(const std::string &key, const std::vector<double> &v) {
    std::string list = "[";
    for (size_t i = 0; i < v.size(); ++i)
      list += (i ? ", " : "") + jsonNumber(v[i]);
    return raw(key, list + "]");
  }
  std::string done() const { return "{" + text + "}"; }

private:
  std::string text;
};

//===----------------------------------------------------------------------===//
// Arguments.
//===----------------------------------------------------------------------===//

struct Options {
  std::string artifact;
  std::string entry;
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  int64_t numExamples = -1; ///< -1: not given.
  uint64_t seed = 0;
  std::string device = "cpu";
  long runs = 20;
  long warmup = 2;
  double warmupSeconds = 0; ///< Warm up for at least this long too.
  double maxSeconds = 0;    ///< 0: no cap.
  long minRuns = 3;
  uint64_t memcpyBytes = 0;
  long memcpyRepeats = 20;
  bool fmaPeak = false;
  double fmaSeconds = 0.2;
  long threads = 0; ///< 0: availableCpus().
};

bool parseInt(const std::string &text, long long min, long long *out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (*end != '\0' || errno != 0 || value < min)
    return false;
  *out = value;
  return true;
}

bool parseSeconds(const std::string &text, double *out) {
  if (text.empty())
    return false;
  char *end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (*end != '\0' || !std::isfinite(value) || value < 0)
    return false;
  *out = value;
  return true;
}

/// Parses argv into `o`; on error returns false with `error` set.
bool parseArgs(int argc, char **argv, Options *o, bool *help,
               std::string *error) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      *help = true;
      return true;
    }
    if (arg == "--fma-peak") {
      o->fmaPeak = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      std::string value;
      size_t eq = arg.find('=');
      bool inlineValue = eq != std::string::npos;
      if (inlineValue) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
      }
      static const char *const kValueOptions[] = {
          "--entry",       "--input",          "--output",
          "--device",      "--num-examples",   "--seed",
          "--runs",        "--warmup",         "--min-runs",
          "--threads",     "--memcpy-bytes",   "--max-seconds",
          "--fma-seconds", "--memcpy-repeats", "--warmup-seconds"};
      if (std::find(std::begin(kValueOptions), std::end(kValueOptions), arg) ==
          std::end(kValueOptions)) {
        *error = "unknown option '" + arg + "' (--help lists them)";
        return false;
      }
      if (!inlineValue) {
        if (i + 1 >= argc) {
          *error = "option '" + arg + "' needs a value";
          return false;
        }
        value = argv[++i];
      }
      long long n = 0;
      auto wantInt = [&](long long min, const char *what) {
        if (parseInt(value, min, &n))
          return true;
        *error = "option '" + arg + "' wants " + what + ", got '" + value + "'";
        return false;
      };
      auto wantSeconds = [&](double *out) {
        if (parseSeconds(value, out))
          return true;
        *error = "option '" + arg + "' wants seconds >= 0, got '" + value + "'";
        return false;
      };
      if (arg == "--entry") {
        o->entry = value;
      } else if (arg == "--input") {
        o->inputs.push_back(value);
      } else if (arg == "--output") {
        o->outputs.push_back(value);
      } else if (arg == "--device") {
        o->device = value;
      } else if (arg == "--num-examples") {
        if (!wantInt(0, "an integer >= 0"))
          return false;
        o->numExamples = n;
      } else if (arg == "--seed") {
        if (!wantInt(0, "an integer >= 0"))
          return false;
        o->seed = static_cast<uint64_t>(n);
      } else if (arg == "--runs") {
        if (!wantInt(1, "an integer >= 1"))
          return false;
        o->runs = static_cast<long>(n);
      } else if (arg == "--warmup") {
        if (!wantInt(0, "an integer >= 0"))
          return false;
        o->warmup = static_cast<long>(n);
      } else if (arg == "--min-runs") {
        if (!wantInt(1, "an integer >= 1"))
          return false;
        o->minRuns = static_cast<long>(n);
      } else if (arg == "--memcpy-bytes") {
        if (!wantInt(1, "a byte count >= 1"))
          return false;
        o->memcpyBytes = static_cast<uint64_t>(n);
      } else if (arg == "--memcpy-repeats") {
        if (!wantInt(1, "an integer >= 1"))
          return false;
        o->memcpyRepeats = static_cast<long>(n);
      } else if (arg == "--threads") {
        if (!wantInt(1, "an integer >= 1"))
          return false;
        o->threads = static_cast<long>(n);
      } else if (arg == "--warmup-seconds") {
        if (!wantSeconds(&o->warmupSeconds))
          return false;
      } else if (arg == "--max-seconds") {
        if (!wantSeconds(&o->maxSeconds))
          return false;
      } else if (arg == "--fma-seconds") {
        if (!wantSeconds(&o->fmaSeconds))
          return false;
      }
      continue;
    }
    if (!o->artifact.empty()) {
      *error = "unexpected argument '" + arg + "' (one artifact only)";
      return false;
    }
    o->artifact = arg;
  }
  if (o->artifact.empty()) {
    if (!o->fmaPeak && o->memcpyBytes == 0) {
      *error = "nothing to measure: give an artifact, --memcpy-bytes or "
               "--fma-peak";
      return false;
    }
    if (!o->inputs.empty() || !o->outputs.empty() || o->numExamples >= 0 ||
        !o->entry.empty()) {
      *error = "--entry, --input, --output and --num-examples need an "
               "artifact";
      return false;
    }
  } else if (o->inputs.empty() == (o->numExamples < 0)) {
    *error = "give the inputs either as --input files or as --num-examples N "
             "(random), not both";
    return false;
  }
  if (o->minRuns > o->runs)
    o->minRuns = o->runs;
  return true;
}

//===----------------------------------------------------------------------===//
// Inputs and outputs.
//===----------------------------------------------------------------------===//

uint64_t splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Fills `a` with deterministic random values (see the file comment).
void fillRandom(vmapc::NpyArray *a, uint64_t seed) {
  uint64_t state = seed;
  int64_t count = a->numElements();
  unsigned char *bytes = a->data.data();
  for (int64_t i = 0; i < count; ++i) {
    uint64_t r = splitmix64(&state);
    switch (a->dtype) {
    case vmapc::DType::F32: {
      // 24 random bits -> [0, 1) -> [-1, 1).
      float x = static_cast<float>(r >> 40) * (1.0f / 16777216.0f) * 2 - 1;
      std::memcpy(bytes + 4 * i, &x, 4);
      break;
    }
    case vmapc::DType::I32: {
      int32_t x = static_cast<int32_t>(r % 1000);
      std::memcpy(bytes + 4 * i, &x, 4);
      break;
    }
    case vmapc::DType::Bool:
      bytes[i] = static_cast<unsigned char>(r & 1);
      break;
    }
  }
}

/// Writes a marker no correct program output is likely to equal everywhere.
void fillMarker(vmapc::NpyArray *a) {
  int64_t count = a->numElements();
  unsigned char *bytes = a->data.data();
  for (int64_t i = 0; i < count; ++i) {
    switch (a->dtype) {
    case vmapc::DType::F32: {
      float x = std::numeric_limits<float>::quiet_NaN();
      std::memcpy(bytes + 4 * i, &x, 4);
      break;
    }
    case vmapc::DType::I32: {
      int32_t x = 0x7f7f7f7f;
      std::memcpy(bytes + 4 * i, &x, 4);
      break;
    }
    case vmapc::DType::Bool:
      bytes[i] = 2;
      break;
    }
  }
}

double cpuSeconds() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

double peakRssMiB() {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0; // KiB on Linux
}

/// CPU ticks (user + system, 1/sysconf(_SC_CLK_TCK) s) of each thread of
/// this process, from /proc/self/task/TID/stat; empty where /proc is absent.
std::map<std::string, uint64_t> threadTicks() {
  std::map<std::string, uint64_t> ticks;
  DIR *dir = opendir("/proc/self/task");
  if (!dir)
    return ticks;
  while (dirent *e = readdir(dir)) {
    if (e->d_name[0] == '.')
      continue;
    std::string path = std::string("/proc/self/task/") + e->d_name + "/stat";
    std::FILE *f = std::fopen(path.c_str(), "r");
    if (!f)
      continue;
    char buf[1024];
    size_t len = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[len] = '\0';
    // Fields after the ")" that closes the command name: state is field 3;
    // utime and stime are fields 14 and 15.
    const char *p = std::strrchr(buf, ')');
    if (!p)
      continue;
    unsigned long long utime = 0, stime = 0;
    if (std::sscanf(p + 1,
                    " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
                    &utime, &stime) == 2)
      ticks[e->d_name] = utime + stime;
  }
  closedir(dir);
  return ticks;
}

/// The CPU ticks each thread ran between two threadTicks() snapshots,
/// largest first, zeros dropped.
std::vector<double> tickDeltas(const std::map<std::string, uint64_t> &before,
                               const std::map<std::string, uint64_t> &after) {
  std::vector<double> deltas;
  for (const auto &[tid, t] : after) {
    auto it = before.find(tid);
    uint64_t d = t - (it == before.end() ? 0 : std::min(t, it->second));
    if (d)
      deltas.push_back(static_cast<double>(d));
  }
  std::sort(deltas.rbegin(), deltas.rend());
  return deltas;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

//===----------------------------------------------------------------------===//
// The entry.
//===----------------------------------------------------------------------===//

/// Loads, runs and times the entry; adds its keys to `json`. Returns the
/// exit status (0, 1 or 2, see the file comment).
int timeEntry(const Options &o, JsonObject *json) {
  using Clock = std::chrono::steady_clock;
  vmapc::Device device;
  vmapc::Status status = vmapc::Device::open(o.device, &device);
  if (!status.ok()) {
    std::fprintf(stderr, "vmapc-bench: device '%s' refused: %s\n",
                 o.device.c_str(), status.message().c_str());
    json->str("device", o.device).str("device_refused", status.message());
    return 2;
  }
  std::unique_ptr<vmapc::Executable> exe;
  status = vmapc::Executable::loadFile(device, o.artifact, &exe);
  if (!status.ok())
    return fail(status.message());
  const vmapc::Entry *entry = nullptr;
  if (o.entry.empty()) {
    if (exe->numEntries() != 1)
      return fail("the artifact has " + std::to_string(exe->numEntries()) +
                  " entries; choose one with --entry");
    entry = &exe->entry(0);
  } else {
    status = exe->findEntry(o.entry, &entry);
    if (!status.ok())
      return fail(status.message());
  }
  const vmapc::EntryInfo &info = entry->info();

  // Inputs: read, or random for N examples.
  std::vector<vmapc::NpyArray> inputs(info.inputs.size());
  int64_t n = o.numExamples;
  if (!o.inputs.empty()) {
    if (o.inputs.size() != info.inputs.size())
      return fail("entry '" + info.name + "' takes " +
                  std::to_string(info.inputs.size()) +
                  (info.inputs.size() == 1 ? " input" : " inputs") + ", got " +
                  std::to_string(o.inputs.size()) + " --input files");
    for (size_t i = 0; i < inputs.size(); ++i) {
      status = vmapc::readNpy(o.inputs[i], &inputs[i]);
      if (!status.ok())
        return fail(status.message());
      const vmapc::ArgInfo &arg = info.inputs[i];
      // N from the first mapped input; the runtime checks the rest.
      if (n < 0 && arg.isMapped() &&
          inputs[i].shape.size() == arg.shape.size() + 1)
        n = inputs[i].shape[arg.mappedAxis];
    }
    if (n < 0)
      n = 0;
  } else {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const vmapc::ArgInfo &arg = info.inputs[i];
      status = vmapc::NpyArray::zeros(arg.dtype, vmapc::batchedShape(arg, n),
                                      &inputs[i]);
      if (!status.ok())
        return fail("input '" + arg.name + "': " + status.message());
      fillRandom(&inputs[i], o.seed * 1000003 + i + 1);
    }
  }
  if (!o.outputs.empty() && o.outputs.size() != info.outputs.size())
    return fail("entry '" + info.name + "' has " +
                std::to_string(info.outputs.size()) +
                (info.outputs.size() == 1 ? " output" : " outputs") + ", got " +
                std::to_string(o.outputs.size()) + " --output files");
  std::vector<vmapc::NpyArray> outputs(info.outputs.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    const vmapc::ArgInfo &arg = info.outputs[i];
    status = vmapc::NpyArray::zeros(arg.dtype, vmapc::batchedShape(arg, n),
                                    &outputs[i]);
    if (!status.ok())
      return fail("output '" + arg.name + "': " + status.message());
    fillMarker(&outputs[i]);
  }
  std::vector<vmapc::HostArray> in;
  std::vector<vmapc::MutableHostArray> out;
  uint64_t inputBytes = 0, outputBytes = 0;
  for (const vmapc::NpyArray &a : inputs) {
    in.push_back(a.view());
    inputBytes += a.data.size();
  }
  for (vmapc::NpyArray &a : outputs) {
    out.push_back(a.mutableView());
    outputBytes += a.data.size();
  }

  auto call = [&](double *seconds) {
    auto start = Clock::now();
    vmapc::Status s = exe->run(*entry, in, out);
    *seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return s;
  };
  std::vector<double> warmupTimes;
  double warmedUp = 0;
  for (long w = 0; w < o.warmup || warmedUp < o.warmupSeconds; ++w) {
    double t;
    status = call(&t);
    if (!status.ok())
      return fail(status.message());
    warmupTimes.push_back(t);
    warmedUp += t;
    if (o.maxSeconds > 0 && t > o.maxSeconds / 2)
      break; // one slow call is warm-up enough
  }
  long runs = o.runs;
  bool capped = false;
  if (o.maxSeconds > 0 && !warmupTimes.empty()) {
    double t = *std::min_element(warmupTimes.begin(), warmupTimes.end());
    if (t * static_cast<double>(runs) > o.maxSeconds) {
      runs = std::max(o.minRuns, static_cast<long>(o.maxSeconds / t));
      capped = runs < o.runs;
    }
  }
  uint64_t launchesBefore = exe->stats().launches;
  std::vector<double> times;
  std::map<std::string, uint64_t> ticksBefore = threadTicks();
  double cpuStart = cpuSeconds();
  for (long r = 0; r < runs; ++r) {
    double t;
    status = call(&t);
    if (!status.ok())
      return fail(status.message());
    times.push_back(t);
  }
  double cpu = cpuSeconds() - cpuStart;
  std::map<std::string, uint64_t> ticksAfter = threadTicks();
  std::vector<double> ticks = tickDeltas(ticksBefore, ticksAfter);
  uint64_t launches = exe->stats().launches - launchesBefore;
  for (size_t i = 0; i < o.outputs.size(); ++i) {
    status = vmapc::writeNpy(o.outputs[i], outputs[i].dtype, outputs[i].shape,
                             outputs[i].data.data());
    if (!status.ok())
      return fail(status.message());
  }

  double wall = 0;
  for (double t : times)
    wall += t;
  uint64_t stagingBytes = 0;
  for (const auto *args : {&info.inputs, &info.outputs})
    for (const vmapc::ArgInfo &arg : *args)
      if (arg.hasStaging() && vmapc::exampleBytes(arg) > 0)
        stagingBytes +=
            static_cast<uint64_t>(vmapc::exampleBytes(arg)) * info.batchSize;
  JsonObject plan;
  plan.integer("arena_bytes", info.arenaBytes)
      .integer("lower_bound_bytes", info.lowerBoundBytes)
      .integer("naive_sum_bytes", info.naiveSumBytes)
      .integer("in_place", info.inPlaceCount)
      .integer("staging_bytes", stagingBytes);
  json->str("artifact", o.artifact)
      .str("entry", info.name)
      .str("device", o.device)
      .integer("batch", entry->batchSize())
      .integer("num_examples", static_cast<uint64_t>(n))
      .integer("runs", times.size())
      .raw("capped", capped ? "true" : "false")
      .integer("warmup", warmupTimes.size())
      .numbers("warmup_s", warmupTimes)
      .numbers("times_s", times)
      .num("median_s", median(times))
      .num("min_s", *std::min_element(times.begin(), times.end()))
      .num("cpu_s", cpu)
      .num("cpu_per_wall", wall > 0 ? cpu / wall : 0)
      .integer("threads", ticksAfter.size())
      .numbers("thread_ticks", ticks)
      .num("launches_per_call",
           static_cast<double>(launches) / static_cast<double>(times.size()))
      .integer("input_bytes", inputBytes)
      .integer("output_bytes", outputBytes)
      .raw("plan", plan.done())
      .integer("arena_bytes", exe->stats().arenaBytes);
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  Options o;
  bool help = false;
  std::string error;
  if (argc == 1) {
    usage(stderr);
    return fail("nothing to measure: give an artifact, --memcpy-bytes or "
                "--fma-peak");
  }
  if (!parseArgs(argc, argv, &o, &help, &error))
    return fail(error);
  if (help) {
    usage(stdout);
    return 0;
  }
  unsigned threads =
      o.threads > 0 ? static_cast<unsigned>(o.threads) : availableCpus();

  JsonObject json;
  if (!o.artifact.empty()) {
    int rc = timeEntry(o, &json);
    if (rc == 2)
      std::printf("%s\n", json.done().c_str());
    if (rc != 0)
      return rc;
  }
  if (o.memcpyBytes > 0) {
    JsonObject m;
    m.integer("bytes", o.memcpyBytes);
    for (unsigned t : {1u, threads}) {
      vmapc::bench::MemcpyRate rate;
      if (!vmapc::bench::measureMemcpy(o.memcpyBytes, t,
                                       static_cast<unsigned>(o.memcpyRepeats),
                                       &rate, &error))
        return fail(error);
      std::string key = t == 1 ? "one_thread" : "all_threads";
      JsonObject r;
      r.integer("threads", t)
          .num("median_gbps", rate.medianGBps)
          .num("best_gbps", rate.bestGBps)
          .num("median_s", median(rate.secondsPerCopy));
      m.raw(key, r.done());
      if (threads == 1) {
        m.raw("all_threads", r.done());
        break;
      }
    }
    json.raw("memcpy", m.done());
  }
  if (o.fmaPeak) {
    JsonObject f;
    std::string isa;
    unsigned lanes = 0;
    for (unsigned t : {1u, threads}) {
      vmapc::bench::FmaPeak peak;
      if (!vmapc::bench::measureFmaPeak("", t, 3, o.fmaSeconds, &peak, &error))
        return fail(error);
      isa = peak.isa;
      lanes = peak.lanes;
      JsonObject r;
      r.integer("threads", t)
          .num("best_gflops", peak.bestGflops)
          .num("median_gflops", peak.medianGflops);
      f.raw(t == 1 ? "one_thread" : "all_threads", r.done());
      if (threads == 1) {
        f.raw("all_threads", r.done());
        break;
      }
    }
    f.str("isa", isa).integer("lanes", lanes);
    json.raw("fma", f.done());
  }
  json.num("peak_rss_mib", peakRssMiB()).integer("cpus", availableCpus());
  std::printf("%s\n", json.done().c_str());
  return 0;
}
