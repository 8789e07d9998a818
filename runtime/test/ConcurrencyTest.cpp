//===- ConcurrencyTest.cpp - what may run at once, and worker threads -----===//
//
// Runtime.h's promises: a device shared by executables on several threads
// (their dispatches take the device's pool one at a time), one executable
// one call at a time (a second call meanwhile is kUnavailable), worker
// stacks sized from the kernels' scratch, and a thread that cannot start
// says why. CI also runs these under ThreadSanitizer (the runtime built
// alone, .ci/run).
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"
#include "vmapc/Runtime.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace vmapc;
using namespace vmapc_test;

/// Aborts the process (the test cannot stop a hung thread) unless
/// `disarm` is called within `seconds`.
class Watchdog {
public:
  Watchdog(const char *what, int seconds) {
    thread = std::thread([this, what, seconds] {
      std::unique_lock<std::mutex> lock(mutex);
      if (!done.wait_for(lock, std::chrono::seconds(seconds),
                         [this] { return disarmed; })) {
        std::fprintf(stderr, "%s: no progress in %d s (deadlock?)\n", what,
                     seconds);
        std::abort();
      }
    });
  }
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      disarmed = true;
    }
    done.notify_all();
    thread.join();
  }

private:
  std::mutex mutex;
  std::condition_variable done;
  bool disarmed = false;
  std::thread thread;
};

/// Runs `affine` (y = 2 x + c) and `twostep` (y = 6 x^2 + 36, several
/// dispatches through the arena, one per loop trip) on `n` examples made
/// from `seed`, and checks every value. Returns the number of wrong values.
int runAndCheck(Executable &e, int64_t n, uint32_t seed) {
  std::vector<float> x(n * 4), c(4), y(n * 4, -1), t(n * 4, -1);
  for (float &v : x) {
    seed = seed * 1664525u + 1013904223u;
    v = float(int32_t(seed >> 20) % 64) / 8;
  }
  for (int i = 0; i < 4; ++i)
    c[i] = float(seed % 7) + float(i);
  Status s = e.run("affine",
                   {HostArray{x.data(), DType::F32, {n, 4}},
                    HostArray{c.data(), DType::F32, {4}}},
                   {MutableHostArray{y.data(), DType::F32, {n, 4}}});
  if (!s.ok())
    return ADD_FAILURE() << s.message(), 1;
  s = e.run("twostep", {HostArray{x.data(), DType::F32, {n, 4}}},
            {MutableHostArray{t.data(), DType::F32, {n, 4}}});
  if (!s.ok())
    return ADD_FAILURE() << s.message(), 1;
  int wrong = 0;
  for (int64_t i = 0; i < n * 4; ++i) {
    wrong += y[i] != 2 * x[i] + c[i % 4];
    wrong += t[i] != 6 * x[i] * x[i] + 36;
  }
  return wrong;
}

// T threads x E executables of one device x K calls, each with its own
// inputs and sizes (partial chunks, several chunks), each result checked.
TEST(Concurrency, ExecutablesOfOneDeviceRunOnSeveralThreadsAtOnce) {
  constexpr int kThreads = 4, kPerThread = 2, kCalls = 60;
  Device cpu = openCpu("cpu:threads=3");
  std::string bytes = serialize(makeTestArtifact());
  std::vector<std::unique_ptr<Executable>> exes(kThreads * kPerThread);
  for (auto &e : exes)
    ASSERT_TRUE(
        Executable::loadBytes(cpu, bytes.data(), bytes.size(), &e).ok());
  Watchdog watchdog("ExecutablesOfOneDeviceRunOnSeveralThreadsAtOnce", 120);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < kCalls; ++k) {
        Executable &e = *exes[t * kPerThread + k % kPerThread];
        int64_t n = 1 + (t * 7 + k * 5) % (5 * kTestB);
        wrong += runAndCheck(e, n, uint32_t(1000 * t + k));
      }
    });
  for (std::thread &t : threads)
    t.join();
  EXPECT_EQ(wrong.load(), 0);
  uint64_t calls = 0;
  for (auto &e : exes)
    calls += e->stats().calls;
  EXPECT_EQ(calls, uint64_t(2 * kThreads * kCalls));
}

// A call on an executable while another call of it runs on another thread
// is refused with kUnavailable and touches nothing; the first one finishes
// as if alone. The kernel `rendezvous` holds the first call inside the
// runtime until the test lets it go.
TEST(Concurrency, SameExecutableFromTwoThreadsIsUnavailable) {
  Device cpu = openCpu("cpu:threads=2");
  std::string bytes = serialize(makeTestArtifact());
  std::unique_ptr<Executable> e;
  ASSERT_TRUE(Executable::loadBytes(cpu, bytes.data(), bytes.size(), &e).ok());
  int toKernel[2], fromKernel[2];
  ASSERT_EQ(pipe(toKernel), 0);
  ASSERT_EQ(pipe(fromKernel), 0);
  Watchdog watchdog("SameExecutableFromTwoThreadsIsUnavailable", 60);
  int32_t fds[2] = {toKernel[0], fromKernel[1]};
  int32_t got = 0;
  Status first;
  std::thread holder([&] {
    first = e->run("rendezvous", {HostArray{fds, DType::I32, {2}}},
                   {MutableHostArray{&got, DType::I32, {}}});
  });
  char byte = 0;
  ASSERT_EQ(read(fromKernel[0], &byte, 1), 1); // the first call is inside
  float y[4] = {7, 7, 7, 7};
  float x[4] = {1, 2, 3, 4}, c[4] = {};
  for (int attempt = 0; attempt < 3; ++attempt) {
    Status s = e->run(
        "affine",
        {HostArray{x, DType::F32, {1, 4}}, HostArray{c, DType::F32, {4}}},
        {MutableHostArray{y, DType::F32, {1, 4}}});
    EXPECT_EQ(s.code(), StatusCode::kUnavailable);
    EXPECT_EQ(s.message(),
              "entry 'affine': this executable is running a call on another "
              "thread (an executable runs one call at a time: load one per "
              "thread, or hold a lock around its calls)");
  }
  EXPECT_EQ(y[0], 7); // untouched
  byte = 42;
  ASSERT_EQ(write(toKernel[1], &byte, 1), 1);
  holder.join();
  EXPECT_TRUE(first.ok()) << first.message();
  EXPECT_EQ(got, 42);
  // Free again.
  ASSERT_TRUE(
      e->run("affine",
             {HostArray{x, DType::F32, {1, 4}}, HostArray{c, DType::F32, {4}}},
             {MutableHostArray{y, DType::F32, {1, 4}}})
          .ok());
  EXPECT_EQ(y[3], 8);
  for (int fd : {toKernel[0], toKernel[1], fromKernel[0], fromKernel[1]})
    close(fd);
  EXPECT_EQ(e->stats().calls, 2u);
}

/// The stack of the worker that runs entry `stack`.
uint64_t workerStack(Executable &e) {
  int32_t bytes[2] = {};
  Status s = e.run("stack", {}, {MutableHostArray{bytes, DType::I32, {2}}});
  EXPECT_TRUE(s.ok()) << s.message();
  return uint64_t(uint32_t(bytes[0])) | uint64_t(uint32_t(bytes[1])) << 32;
}

// Workers start with room for the compiler's default scratch (1 MiB) and
// their frames; an executable whose kernels need more restarts them with
// bigger stacks, which the other executables of the device use too.
TEST(Concurrency, WorkerStacksAreSizedFromTheKernelsScratch) {
  Device cpu = openCpu("cpu:threads=2");
  Artifact a = makeTestArtifact();
  // Scratch over 256 KiB: the kernel runs on a worker, not the caller.
  a.kernels[kStackBytes].scratchBytes = 512 << 10;
  std::string small = serialize(a);
  a.kernels[kStackBytes].scratchBytes = 8 << 20;
  std::string large = serialize(a);
  std::unique_ptr<Executable> e1, e2;
  ASSERT_TRUE(Executable::loadBytes(cpu, small.data(), small.size(), &e1).ok());
  uint64_t before = workerStack(*e1);
  EXPECT_GE(before, uint64_t(2) << 20);
  EXPECT_LT(before, uint64_t(8) << 20) << "no 64 MiB stacks by default";
  ASSERT_TRUE(Executable::loadBytes(cpu, large.data(), large.size(), &e2).ok());
  EXPECT_GE(workerStack(*e2), uint64_t(9) << 20);
  EXPECT_GE(workerStack(*e1), uint64_t(9) << 20);
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define VMAPC_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define VMAPC_SANITIZED 1
#endif
#endif

// Under an address-space limit the workers still start (no 72 MiB stacks:
// 63 workers take some 130 MiB), and past it the error says which thread,
// with what stack, and why. A child process each (the limit is the
// process's).
TEST(ConcurrencyDeathTest, ThreadStartUnderAnAddressSpaceLimit) {
#ifdef VMAPC_SANITIZED
  GTEST_SKIP() << "sanitizers reserve terabytes of address space";
#else
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto openUnder = [](rlim_t bytes, const char *spec) {
    rlimit limit = {bytes, bytes};
    if (setrlimit(RLIMIT_AS, &limit) != 0)
      std::_Exit(3);
    Device d;
    Status s = Device::open(spec, &d);
    std::fprintf(stderr, "%s\n", s.ok() ? "opened" : s.message().c_str());
    std::_Exit(s.ok() ? 0 : 1);
  };
  EXPECT_EXIT(openUnder(rlim_t(1) << 30, "cpu:threads=64"),
              ::testing::ExitedWithCode(0), "opened");
  EXPECT_EXIT(openUnder(rlim_t(1) << 30, "cpu:threads=1024"),
              ::testing::ExitedWithCode(1),
              "cannot start worker thread [0-9]+ of 1024 \\(stack of 2048 "
              "KiB\\): Resource temporarily unavailable \\(address space or "
              "thread limit: ulimit -v, ulimit -u; fewer threads with "
              "cpu:threads=K\\)");
#endif
}

} // namespace
