//===- TestUtil.h - Helpers shared by the runtime tests ---------*- C++ -*-===//

#ifndef VMAPC_TEST_TESTUTIL_H
#define VMAPC_TEST_TESTUTIL_H

#include "TestKernels.h"
#include "vmapc/ArtifactFormat.h"

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

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

inline vmapc::ArgInfo arg(const std::string &name, vmapc::DType dtype,
                          std::vector<int64_t> shape, int32_t axis,
                          uint64_t staging = vmapc::kNoStaging) {
  vmapc::ArgInfo a;
  a.name = name;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.mappedAxis = axis;
  a.stagingOffset = staging;
  return a;
}

/// The manifest of the kernels in TestKernels.h around `code`.
inline vmapc::Artifact makeTestArtifact(const std::string &code) {
  using vmapc::DType;
  using vmapc::kNoAxis;
  vmapc::Artifact a;
  a.cpuFeatures = {"sse2"};
  a.code = code;

  vmapc::EntryInfo affine;
  affine.name = "affine";
  affine.symbol = "rt_affine";
  affine.batchSize = kTestB;
  affine.arenaBytes = 512;
  affine.lowerBoundBytes = 128;
  affine.naiveSumBytes = 640;
  affine.inPlaceCount = 1;
  affine.inputs = {arg("x", DType::F32, {4}, 0, 0),
                   arg("c", DType::F32, {4}, kNoAxis)};
  affine.outputs = {arg("y", DType::F32, {4}, 0, 256)};
  a.entries.push_back(affine);

  vmapc::EntryInfo axis1;
  axis1.name = "axis1";
  axis1.symbol = "rt_axis1";
  axis1.batchSize = kTestB;
  axis1.arenaBytes = 256;
  axis1.inputs = {arg("x", DType::I32, {2, 3}, 1, 0)};
  axis1.outputs = {arg("y", DType::I32, {2, 3}, 2, 128)};
  a.entries.push_back(axis1);

  vmapc::EntryInfo reduce;
  reduce.name = "reduce";
  reduce.symbol = "rt_reduce";
  reduce.batchSize = kTestB;
  reduce.arenaBytes = 256;
  reduce.inputs = {arg("x", DType::F32, {3}, 0, 0),
                   arg("s", DType::F32, {}, kNoAxis)};
  reduce.outputs = {arg("y", DType::F32, {}, 0, 64),
                    arg("pos", DType::Bool, {}, 0, 128),
                    arg("total", DType::F32, {}, kNoAxis)};
  a.entries.push_back(reduce);

  vmapc::EntryInfo probe;
  probe.name = "probe";
  probe.symbol = "rt_probe";
  probe.batchSize = kTestB;
  probe.arenaBytes = 256;
  probe.inputs = {arg("x", DType::F32, {2}, 0, 0),
                  arg("c", DType::F32, {3}, kNoAxis)};
  probe.outputs = {arg("y", DType::F32, {2}, 0, 64),
                   arg("addrs", DType::I32, {6}, kNoAxis)};
  a.entries.push_back(probe);
  return a;
}

inline std::string testKernelBytes() {
  return readFileBytes(VMAPC_TEST_KERNELS);
}

} // namespace vmapc_test

#endif
