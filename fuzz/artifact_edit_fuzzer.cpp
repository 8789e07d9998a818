//===- artifact_edit_fuzzer.cpp - libFuzzer: edited real artifacts --------===//
//
// The trust model's tamperer (docs/runtime.md): takes an artifact the
// compiler wrote, edits bytes of its header and manifest, recomputes the
// checksum, loads it on a CPU device of 2 threads and runs every entry on
// the same inputs as the unedited artifact. The promise checked: an edit
// the loader takes (status ok) changes no result bit, because every field
// that matters is the code's (descriptors, the schedule's digest) or is
// validated; any other edit is refused with a status. A crash, a sanitizer
// report, a hang or an ok run with other outputs is a finding.
//
// The artifacts: every loadable .vmapc in $VMAPC_FUZZ_ARTIFACTS (a
// directory), else in the build's seed directory, which holds programs of
// the tree compiled by vmapc (fuzz/CMakeLists.txt). The input: byte 0
// picks the artifact; then 3-byte edits (u16 offset into header + manifest,
// modulo its size; u8 value xor-ed in), at most 8.
//
//===----------------------------------------------------------------------===//

#include "vmapc/ArtifactFormat.h"
#include "vmapc/ArtifactReader.h"
#include "vmapc/Runtime.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <memory>
#include <string>
#include <vector>

using namespace vmapc;

namespace {

/// Inputs that would allocate more than this (an arena edited larger) are
/// skipped: they are refused or not by the memory limit, not the checks.
constexpr uint64_t kMaxArenaBytes = 64 << 20;
constexpr int kMaxEdits = 8;

/// One entry's arrays: inputs from a fixed sequence, outputs and the
/// unedited artifact's results.
struct Call {
  std::vector<std::vector<unsigned char>> in, out, reference;
  std::vector<HostArray> inputs;
  std::vector<MutableHostArray> outputs;
};

struct Subject {
  std::string bytes;
  uint64_t editable = 0; // header + manifest bytes
  std::vector<Call> calls;
};

std::vector<Subject> subjects;
Device cpu;

struct Counts {
  uint64_t inputs = 0, loaded = 0, runs = 0, refusedRuns = 0;
  ~Counts() {
    if (std::getenv("VMAPC_FUZZ_STATS"))
      std::fprintf(stderr,
                   "artifact_edit_fuzzer: %llu inputs, %llu edited artifacts "
                   "loaded, %llu runs gave the unedited results, %llu runs "
                   "refused\n",
                   (unsigned long long)inputs, (unsigned long long)loaded,
                   (unsigned long long)runs, (unsigned long long)refusedRuns);
  }
} counts;

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "artifact_edit_fuzzer: %s\n", what.c_str());
  std::abort();
}

/// The arrays of `entry` for N = 2B + 1 examples (two chunks and a
/// partial one), inputs filled from `seed`.
Call makeCall(const EntryInfo &entry, uint32_t seed) {
  Call c;
  int64_t n = 2 * int64_t(entry.batchSize) + 1;
  auto shapeOf = [&](const ArgInfo &a) { return batchedShape(a, n); };
  for (const ArgInfo &a : entry.inputs) {
    std::vector<int64_t> s = shapeOf(a);
    std::optional<uint64_t> bytes = arrayBytes(a.dtype, s.data(), s.size());
    std::vector<unsigned char> data(bytes.value_or(0));
    for (size_t i = 0; i < data.size(); ++i) {
      seed = seed * 1664525u + 1013904223u;
      // Small values of every dtype: bools 0/1, ints and floats in range.
      data[i] = a.dtype == DType::Bool ? (seed >> 31) : (seed >> 24) & 0x3f;
    }
    c.in.push_back(std::move(data));
  }
  for (const ArgInfo &a : entry.outputs) {
    std::vector<int64_t> s = shapeOf(a);
    std::optional<uint64_t> bytes = arrayBytes(a.dtype, s.data(), s.size());
    c.out.emplace_back(bytes.value_or(0), 0xa5);
  }
  for (size_t i = 0; i < entry.inputs.size(); ++i)
    c.inputs.push_back(HostArray{c.in[i].data(), entry.inputs[i].dtype,
                                 shapeOf(entry.inputs[i])});
  for (size_t i = 0; i < entry.outputs.size(); ++i)
    c.outputs.push_back(MutableHostArray{
        c.out[i].data(), entry.outputs[i].dtype, shapeOf(entry.outputs[i])});
  return c;
}

/// Loads `bytes` and computes its results, or returns false.
bool addSubject(const std::string &path) {
  Subject s;
  HostBuffer file;
  if (!readArtifactFile(path, &file).ok())
    return false;
  s.bytes.assign(reinterpret_cast<const char *>(file.data()), file.size());
  std::unique_ptr<Executable> exe;
  if (!Executable::loadBytes(cpu, s.bytes.data(), s.bytes.size(), &exe).ok())
    return false; // a synthetic seed (stand-in code), or a CUDA-only one
  uint64_t manifestBytes;
  std::memcpy(&manifestBytes, s.bytes.data() + 24, 8);
  s.editable = kHeaderBytes + manifestBytes;
  for (size_t e = 0; e < exe->numEntries(); ++e) {
    Call c = makeCall(exe->entry(e).info(), uint32_t(e + 1));
    Status st = exe->run(exe->entry(e), c.inputs, c.outputs);
    if (!st.ok()) {
      std::fprintf(stderr, "artifact_edit_fuzzer: %s: %s\n", path.c_str(),
                   st.message().c_str());
      return false;
    }
    c.reference = c.out;
    s.calls.push_back(std::move(c));
  }
  subjects.push_back(std::move(s));
  return true;
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  // One ISA level for the unedited and the edited runs (levels may differ in
  // the last bits; docs/runtime.md), the one every x86-64 CPU runs.
  if (!Device::open("cpu:threads=2,isa=x86-64", &cpu).ok())
    std::exit(1);
  const char *dir = std::getenv("VMAPC_FUZZ_ARTIFACTS");
  std::string root = dir ? dir : VMAPC_FUZZ_ARTIFACT_DIR;
  std::vector<std::string> paths;
  if (DIR *d = opendir(root.c_str())) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 6 && name.compare(name.size() - 6, 6, ".vmapc") == 0)
        paths.push_back(root + "/" + name);
    }
    closedir(d);
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string &p : paths)
    addSubject(p);
  if (subjects.empty()) {
    std::fprintf(stderr,
                 "artifact_edit_fuzzer: no loadable artifact in '%s' (set "
                 "VMAPC_FUZZ_ARTIFACTS to a directory of .vmapc files)\n",
                 root.c_str());
    std::exit(1);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 4)
    return 0;
  ++counts.inputs;
  Subject &s = subjects[data[0] % subjects.size()];
  std::string bytes = s.bytes;
  for (size_t i = 1; i + 3 <= size && i < 1 + 3 * kMaxEdits; i += 3) {
    uint64_t at = (uint64_t(data[i]) | uint64_t(data[i + 1]) << 8) % s.editable;
    bytes[at] = char(bytes[at] ^ data[i + 2]);
  }
  uint64_t sum = fnv1a64(bytes.data(), bytes.size() - kChecksumBytes);
  std::memcpy(&bytes[bytes.size() - kChecksumBytes], &sum, 8);
  // Skip what only the memory limit would refuse.
  Artifact parsed;
  if (!parseArtifact(bytes.data(), bytes.size(), &parsed).ok())
    return 0;
  for (const EntryInfo &e : parsed.entries)
    if (e.arenaBytes > kMaxArenaBytes || e.batchSize > 4096)
      return 0;
  std::unique_ptr<Executable> exe;
  if (!Executable::loadBytes(cpu, bytes.data(), bytes.size(), &exe).ok())
    return 0;
  ++counts.loaded;
  if (exe->numEntries() != s.calls.size())
    fail("an edited artifact loaded with another number of entries");
  for (size_t e = 0; e < s.calls.size(); ++e) {
    Call &c = s.calls[e];
    for (auto &o : c.out)
      std::fill(o.begin(), o.end(), 0xa5);
    Status st = exe->run(exe->entry(e), c.inputs, c.outputs);
    if (!st.ok()) {
      ++counts.refusedRuns;
      continue;
    }
    ++counts.runs;
    for (size_t o = 0; o < c.out.size(); ++o)
      if (c.out[o] != c.reference[o])
        fail("entry '" + exe->entry(e).info().name + "' output #" +
             std::to_string(o) +
             ": an edited artifact loaded and ran with status ok, with "
             "other results than the unedited one");
  }
  return 0;
}
