//===- ThreadPoolTest.cpp - the CPU device's workers ----------------------===//

#include "vmapc/cpu/ThreadPool.h"
#include "AllocHook.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <vector>

using namespace vmapc::cpu;

namespace {

struct Counts {
  std::vector<std::atomic<int>> hits;
  explicit Counts(size_t n) : hits(n) {}
  static void add(void *self, uint64_t i) {
    static_cast<Counts *>(self)->hits[i].fetch_add(1);
  }
};

std::unique_ptr<ThreadPool> makePool(unsigned threads) {
  std::unique_ptr<ThreadPool> pool;
  vmapc::Status s = ThreadPool::create(threads, 1 << 20, &pool);
  EXPECT_TRUE(s.ok()) << s.message();
  return pool;
}

TEST(ThreadPoolTest, EveryIndexRunsExactlyOnce) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    auto pool = makePool(threads);
    ASSERT_EQ(pool->numThreads(), threads);
    for (uint64_t count : {uint64_t(1), uint64_t(7), uint64_t(1000)}) {
      Counts counts(count);
      pool->run(count, &Counts::add, &counts, /*callerHelps=*/count % 2 == 0);
      for (uint64_t i = 0; i < count; ++i)
        EXPECT_EQ(counts.hits[i].load(), 1) << "index " << i << " of " << count
                                            << " on " << threads << " threads";
    }
  }
}

TEST(ThreadPoolTest, BackToBackJobsDoNotMix) {
  // Many short jobs in a row, each checking it only sees its own indices:
  // a worker late from one job must not run indices of the next with the
  // previous job's function.
  auto pool = makePool(4);
  struct Job {
    uint64_t id;
    std::atomic<uint64_t> sum{0};
    std::atomic<int> wrong{0};
    static void run(void *self, uint64_t i) {
      auto *job = static_cast<Job *>(self);
      job->sum.fetch_add(i + 1);
      (void)job->id;
    }
  };
  for (uint64_t id = 0; id < 2000; ++id) {
    Job job;
    job.id = id;
    uint64_t count = 1 + id % 17;
    pool->run(count, &Job::run, &job, /*callerHelps=*/id % 3 != 0);
    ASSERT_EQ(job.sum.load(), count * (count + 1) / 2) << "job " << id;
  }
}

TEST(ThreadPoolTest, UsesItsThreadsAndOnlyThose) {
  auto pool = makePool(2);
  std::mutex mutex;
  std::set<std::thread::id> seen;
  struct Context {
    std::mutex *mutex;
    std::set<std::thread::id> *seen;
  } context{&mutex, &seen};
  // Each index waits a little, so that both workers take some.
  pool->run(
      64,
      [](void *c, uint64_t) {
        auto *ctx = static_cast<Context *>(c);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::lock_guard<std::mutex> lock(*ctx->mutex);
        ctx->seen->insert(std::this_thread::get_id());
      },
      &context, /*callerHelps=*/false);
  EXPECT_EQ(seen.size(), 2u)
      << "without the caller's help, a pool of 2 threads still runs on 2: "
         "the helper and the stand-in";
  EXPECT_EQ(seen.count(std::this_thread::get_id()), 0u)
      << "without the caller's help, workgroups run on the workers";
  seen.clear();
  pool->run(
      64,
      [](void *c, uint64_t) {
        auto *ctx = static_cast<Context *>(c);
        std::this_thread::sleep_for(std::chrono::microseconds(200));
        std::lock_guard<std::mutex> lock(*ctx->mutex);
        ctx->seen->insert(std::this_thread::get_id());
      },
      &context, /*callerHelps=*/true);
  EXPECT_EQ(seen.size(), 2u) << "the caller and the worker";
  EXPECT_EQ(seen.count(std::this_thread::get_id()), 1u);
}

TEST(ThreadPoolTest, OneThreadRunsOnTheCaller) {
  auto pool = makePool(1);
  std::thread::id ran;
  pool->run(
      1,
      [](void *c, uint64_t) {
        *static_cast<std::thread::id *>(c) = std::this_thread::get_id();
      },
      &ran, /*callerHelps=*/true);
  EXPECT_EQ(ran, std::this_thread::get_id());
  pool->run(
      1,
      [](void *c, uint64_t) {
        *static_cast<std::thread::id *>(c) = std::this_thread::get_id();
      },
      &ran, /*callerHelps=*/false);
  EXPECT_NE(ran, std::this_thread::get_id())
      << "a dispatch the caller cannot help runs on the pool's worker";
}

TEST(ThreadPoolTest, RunAllocatesNothing) {
  auto pool = makePool(2);
  Counts counts(100);
  pool->run(100, &Counts::add, &counts, true); // Warm.
  vmapc_test::startCountingAllocations();
  for (int i = 0; i < 100; ++i)
    pool->run(100, &Counts::add, &counts, i % 2 == 0);
  EXPECT_EQ(vmapc_test::stopCountingAllocations(), 0u);
  EXPECT_EQ(counts.hits[0].load(), 101);
}

TEST(ThreadPoolTest, ZeroThreadsIsAnError) {
  std::unique_ptr<ThreadPool> pool;
  EXPECT_FALSE(ThreadPool::create(0, 1 << 20, &pool).ok());
  EXPECT_EQ(pool, nullptr);
}

TEST(ThreadPoolTest, HardwareThreadsIsPositive) {
  EXPECT_GE(hardwareThreads(), 1u);
}

} // namespace
