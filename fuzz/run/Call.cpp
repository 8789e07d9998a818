//===- Call.cpp - artifact_run_fuzzer: the call the kernels check ---------===//

#include "Call.h"

#include <mutex>

namespace vmapc_run_fuzzer {

Counts counts;
Call *current = nullptr;

/// Reports a broken promise and aborts. Workgroups run on several threads:
/// the first to fail aborts, any other waits here, so that libFuzzer saves
/// the input once.
[[noreturn]] void fail(const std::string &what) {
  static std::mutex failing;
  failing.lock();
  std::fprintf(stderr, "artifact_run_fuzzer: %s\n", what.c_str());
  std::abort();
}

static uint64_t product(const std::vector<int64_t> &dims, size_t from,
                        size_t to) {
  uint64_t p = 1;
  for (size_t i = from; i < to; ++i)
    p *= uint64_t(dims[i]);
  return p;
}

Layout layoutOf(const ArgInfo &arg) {
  Layout l;
  l.mapped = arg.isMapped();
  size_t axis = l.mapped ? size_t(arg.mappedAxis) : 0;
  l.outer = product(arg.shape, 0, axis);
  l.innerBytes =
      dtypeBytes(arg.dtype) * product(arg.shape, axis, arg.shape.size());
  l.exampleBytes = uint64_t(exampleBytes(arg));
  l.staging = arg.stagingOffset;
  return l;
}

bool verbose() {
  static const bool on = std::getenv("VMAPC_FUZZ_VERBOSE") != nullptr;
  return on;
}

static void printArg(const char *kind, const ArgInfo &a) {
  std::fprintf(stderr, "  %s %s: dtype %d shape [", kind, a.name.c_str(),
               int(a.dtype));
  for (size_t i = 0; i < a.shape.size(); ++i)
    std::fprintf(stderr, "%s%lld", i ? ", " : "", (long long)a.shape[i]);
  std::fprintf(stderr, "] axis %d staging %lld\n", a.mappedAxis,
               a.hasStaging() ? (long long)a.stagingOffset : -1LL);
}

void printEntry(const Artifact &a, const EntryInfo &e) {
  std::fprintf(stderr, "entry %s: B %u arena %llu%s\n", e.name.c_str(),
               e.batchSize, (unsigned long long)e.arenaBytes,
               e.padsPartialChunks ? " pads" : "");
  for (const ArgInfo &arg : e.inputs)
    printArg("input", arg);
  for (const ArgInfo &arg : e.outputs)
    printArg("output", arg);
  std::fprintf(stderr, "%s", describeSchedule(e.schedule, a.kernels).c_str());
}

} // namespace vmapc_run_fuzzer
