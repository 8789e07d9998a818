//===- TestUtil.h - Helpers shared by the runtime tests ---------*- C++ -*-===//
//
// Files, pipes and environment variables for tests, and makeTestArtifact:
// the manifest (kernels, entries and their schedules) of the stand-in code
// objects of TestKernels.h, built with ArtifactBuilder.h.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_TESTUTIL_H
#define VMAPC_TEST_TESTUTIL_H

#include "ArtifactBuilder.h"
#include "TestKernels.h"
#include "vmapc/ArtifactFormat.h"
#include "vmapc/Status.h"

#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace vmapc_test {

inline std::string readFileBytes(const std::string &path) {
  std::string bytes;
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return bytes;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.append(buf, n);
  std::fclose(f);
  return bytes;
}

inline void writeFileBytes(const std::string &path, const std::string &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return;
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

/// A fresh path in the temp directory, unique per process and call.
inline std::string tempPath(const std::string &suffix) {
  static int counter = 0;
  const char *dir = std::getenv("TMPDIR");
  return std::string(dir ? dir : "/tmp") + "/vmapc-rt-test-" +
         std::to_string(getpid()) + "-" + std::to_string(counter++) + suffix;
}

/// Calls `read(path)` on a FIFO at a fresh path into which another thread
/// writes `bytes` (then closes it): a file with no size, like a pipe from
/// another process. Returns what `read` returns.
template <typename ReadFn>
vmapc::Status readThroughPipe(const std::string &bytes, ReadFn read) {
  std::string path = tempPath(".fifo");
  if (mkfifo(path.c_str(), 0600) != 0)
    return vmapc::Status::error(vmapc::StatusCode::kInternal, "mkfifo");
  // A reader that stops early closes the pipe: the writer sees EPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  std::thread writer([&] {
    int fd = open(path.c_str(), O_WRONLY);
    size_t done = 0;
    while (fd >= 0 && done < bytes.size()) {
      ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0)
        break;
      done += size_t(n);
    }
    if (fd >= 0)
      close(fd);
  });
  vmapc::Status s = read(path);
  writer.join();
  std::remove(path.c_str());
  return s;
}

/// The kernels of TestKernels.h, in makeTestArtifact's order.
enum TestKernel : uint32_t {
  kAffine,
  kAxis1,
  kReduceRows,
  kReduceTotal,
  kProbe,
  kSquare,
  kAccumulate,
  kCount,
  kWhoami,
  kThreadId,
  kEmptyTotal,
  kRendezvous,
  kStackBytes,
};

/// The code object of TestKernels.cpp for ISA `level`: the CPU features
/// it needs are those the compiler writes ("sse2" for the baseline, else
/// the level itself).
inline vmapc::CodeObject testCodeObject(const std::string &level,
                                        std::string bytes) {
  return cpuCodeObject(level, {level == "x86-64" ? std::string("sse2") : level},
                       std::move(bytes));
}

inline std::string testKernelBytes() {
  return readFileBytes(VMAPC_TEST_KERNELS);
}

/// TestKernels.cpp built for each level, lowest first.
inline std::vector<vmapc::CodeObject> testCodeObjects() {
  return {testCodeObject("x86-64", testKernelBytes()),
          testCodeObject("x86-64-v3", readFileBytes(VMAPC_TEST_KERNELS_V3)),
          testCodeObject("x86-64-v4", readFileBytes(VMAPC_TEST_KERNELS_V4))};
}

/// The manifest of the kernels and entries in TestKernels.h around `code`.
inline vmapc::Artifact
makeTestArtifact(std::vector<vmapc::CodeObject> code = testCodeObjects()) {
  using vmapc::DType;
  using vmapc::kNoAxis;
  constexpr uint64_t B = kTestB;
  vmapc::Artifact a;
  a.codeObjects = std::move(code);
  a.kernels = {
      kernel("affine", {B * 16, 16, B * 16}, "rrw", 1, -1),
      kernel("axis1", {2 * B * 12, 2 * 3 * B * 4}, "rw", 1, -2, 2),
      kernel("reduce_rows", {B * 12, 4, B * 4, B}, "rrbw", 1, -1),
      kernel("reduce_total", {4, 4}, "rw", 0, 1),
      kernel("probe", {B * 8, 12, 32, B * 8, 24}, "rrrww", 1, 1),
      kernel("square", {B * 16, B * 16}, "rw", 1, -1),
      kernel("accumulate", {B * 16, B * 16}, "rb", 3, -2),
      kernel("count", {B * 4, 4}, "wb", 1, -1),
      kernel("whoami", {4}, "w", 0, 1),
      kernel("thread_id", {8}, "w", 0, 1),
      kernel("empty_total", {0, 0, 8, 0, 4}, "rrrrw", 0, 1),
      kernel("rendezvous", {8, 4}, "rw", 0, 1),
      kernel("stack_bytes", {8}, "w", 0, 1),
  };

  auto entry = [](const char *name, uint64_t arenaBytes) {
    vmapc::EntryInfo e;
    e.name = name;
    e.batchSize = kTestB;
    e.arenaBytes = arenaBytes;
    return e;
  };
  vmapc::EntryInfo affine = entry("affine", 512);
  affine.lowerBoundBytes = 128;
  affine.naiveSumBytes = 640;
  affine.inPlaceCount = 1;
  affine.inputs = {arg("x", DType::F32, {4}, 0, 0),
                   arg("c", DType::F32, {4}, kNoAxis)};
  affine.outputs = {arg("y", DType::F32, {4}, 0, 256)};
  affine.schedule = {
      dispatch(kAffine, {inputBinding(0), inputBinding(1), outputBinding(0)},
               {numExamples()})};
  a.entries.push_back(affine);

  vmapc::EntryInfo axis1 = entry("axis1", 256);
  axis1.inputs = {arg("x", DType::I32, {2, 3}, 1, 0)};
  axis1.outputs = {arg("y", DType::I32, {2, 3}, 2, 128)};
  axis1.schedule = {
      dispatch(kAxis1, {inputBinding(0), outputBinding(0)}, {numExamples()})};
  a.entries.push_back(axis1);

  vmapc::EntryInfo reduce = entry("reduce", 256);
  reduce.inputs = {arg("x", DType::F32, {3}, 0, 0),
                   arg("s", DType::F32, {}, kNoAxis)};
  reduce.outputs = {arg("y", DType::F32, {}, 0, 64),
                    arg("pos", DType::Bool, {}, 0, 128),
                    arg("total", DType::F32, {}, kNoAxis)};
  reduce.schedule = {
      dispatch(kReduceRows,
               {inputBinding(0), inputBinding(1), outputBinding(0),
                outputBinding(1)},
               {numExamples()}),
      dispatch(kReduceTotal, {inputBinding(1), outputBinding(2)})};
  a.entries.push_back(reduce);

  vmapc::EntryInfo probe = entry("probe", 256);
  probe.inputs = {arg("x", DType::F32, {2}, 0, 0),
                  arg("c", DType::F32, {3}, kNoAxis)};
  probe.outputs = {arg("y", DType::F32, {2}, 0, 64),
                   arg("addrs", DType::I32, {6}, kNoAxis)};
  probe.schedule = {
      dispatch(kProbe,
               {inputBinding(0), inputBinding(1), arenaBinding(128),
                outputBinding(0), outputBinding(1)},
               {numExamples()})};
  a.entries.push_back(probe);

  // Two dispatches through the arena bytes [128, 192), the second in two
  // nested loops that read both loop indices.
  vmapc::EntryInfo twostep = entry("twostep", 256);
  twostep.inputs = {arg("x", DType::F32, {4}, 0, 0)};
  twostep.outputs = {arg("y", DType::F32, {4}, 0, 64)};
  twostep.alignedLowerBoundBytes = 192;
  twostep.arenaAlignment = 64;
  twostep.schedule = {
      dispatch(kSquare, {inputBinding(0), arenaBinding(128)}, {numExamples()}),
      loop(2, 2), loop(3, 1),
      dispatch(kAccumulate, {arenaBinding(128), outputBinding(0)},
               {numExamples(), loopIndex(0), loopIndex(1)})};
  a.entries.push_back(twostep);

  vmapc::EntryInfo count = entry("count", 256);
  count.outputs = {arg("seen", DType::I32, {}, 0, 0),
                   arg("overrun", DType::I32, {}, kNoAxis)};
  count.schedule = {
      dispatch(kCount, {outputBinding(0), outputBinding(1)}, {numExamples()})};
  a.entries.push_back(count);

  vmapc::EntryInfo whoami = entry("whoami", 0);
  whoami.outputs = {arg("level", DType::I32, {}, kNoAxis)};
  whoami.schedule = {dispatch(kWhoami, {outputBinding(0)})};
  a.entries.push_back(whoami);

  vmapc::EntryInfo where = entry("where", 0);
  where.outputs = {arg("tid", DType::I32, {2}, kNoAxis)};
  where.schedule = {dispatch(kThreadId, {outputBinding(0)})};
  a.entries.push_back(where);

  vmapc::EntryInfo empty = entry("empty", 256);
  empty.inputs = {arg("x", DType::F32, {0}, 0, 0),
                  arg("big", DType::F32, {kEmptyRows, 0}, 1, 0),
                  arg("c", DType::F32, {2}, kNoAxis)};
  empty.outputs = {arg("y", DType::F32, {3, 0}, 0, 0),
                   arg("total", DType::F32, {}, kNoAxis)};
  empty.schedule = {
      dispatch(kEmptyTotal, {inputBinding(0), inputBinding(1), inputBinding(2),
                             outputBinding(0), outputBinding(1)})};
  a.entries.push_back(empty);

  vmapc::EntryInfo rendezvous = entry("rendezvous", 0);
  rendezvous.inputs = {arg("fds", DType::I32, {2}, kNoAxis)};
  rendezvous.outputs = {arg("got", DType::I32, {}, kNoAxis)};
  rendezvous.schedule = {
      dispatch(kRendezvous, {inputBinding(0), outputBinding(0)})};
  a.entries.push_back(rendezvous);

  vmapc::EntryInfo stack = entry("stack", 0);
  stack.outputs = {arg("bytes", DType::I32, {2}, kNoAxis)};
  stack.schedule = {dispatch(kStackBytes, {outputBinding(0)})};
  a.entries.push_back(stack);

  // affine with y computed in x's buffer: x donated to y (the kernel reads
  // and writes each element at one index, so it may run in place).
  vmapc::EntryInfo donate = entry("donate", 512);
  donate.inputs = {arg("x", DType::F32, {4}, 0, 0),
                   arg("c", DType::F32, {4}, kNoAxis)};
  donate.outputs = {arg("y", DType::F32, {4}, 0, 0)};
  donate.outputs[0].donatedFrom = 0;
  donate.schedule = {
      dispatch(kAffine, {inputBinding(0), inputBinding(1), inputBinding(0)},
               {numExamples()})};
  a.entries.push_back(donate);
  sealEntryDescriptors(a);
  return a;
}

/// Sets (or, with null, unsets) an environment variable for a scope, and
/// restores what it was.
class ScopedEnv {
public:
  ScopedEnv(const char *name, const char *value) : name(name) {
    if (const char *old = std::getenv(name))
      saved = old, hadValue = true;
    if (value)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (hadValue)
      setenv(name, saved.c_str(), 1);
    else
      unsetenv(name);
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

private:
  const char *name;
  std::string saved;
  bool hadValue = false;
};

} // namespace vmapc_test

#endif
