//===- ThreadPool.cpp - the CPU device's workers --------------------------===//

#include "vmapc/cpu/ThreadPool.h"

#include <cerrno>
#include <cstring>
#include <pthread.h>
#include <sched.h>
#include <thread>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace vmapc {
namespace cpu {

static void cpuRelax() {
#if defined(__x86_64__)
  _mm_pause();
#endif
}

/// One step of a spin-wait: a pause, and every 256 steps a yield, so that a
/// thread the scheduler put on the same CPU as the spinner (the one it waits
/// for) runs instead of waiting out the spin: with both on one CPU of two,
/// the kNN's calls took 3x as long (1.2 -> 3-4 ms) until the load balancer
/// moved one. A yield with nothing else to run returns at once.
static void spinStep(int spin) {
  cpuRelax();
  if ((spin & 255) == 255)
    sched_yield();
}

unsigned hardwareThreads() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return unsigned(count);
  }
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

Status ThreadPool::create(unsigned threads, size_t stackBytes,
                          std::unique_ptr<ThreadPool> *out) {
  if (threads == 0)
    return Status::error(StatusCode::kInvalidArgument,
                         "a thread pool needs at least one thread");
  std::unique_ptr<ThreadPool> pool(new ThreadPool());
  pool->threads = threads;
  pool->spareCore = threads < hardwareThreads();
  // threads - 1 helpers and the stand-in (the last).
  unsigned numWorkers = threads;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0)
    return Status::error(StatusCode::kResourceExhausted,
                         "cannot initialise thread attributes");
  if (stackBytes < size_t(PTHREAD_STACK_MIN))
    stackBytes = size_t(PTHREAD_STACK_MIN);
  pool->workerStackBytes = stackBytes;
  if (pthread_attr_setstacksize(&attr, stackBytes) != 0) {
    pthread_attr_destroy(&attr);
    return Status::error(StatusCode::kResourceExhausted,
                         "cannot give worker threads a stack of " +
                             std::to_string(stackBytes) + " bytes");
  }
  pool->workers.reserve(numWorkers);
  for (unsigned i = 0; i < numWorkers; ++i) {
    pthread_t thread;
    // The worker reads its id from `starting`, then clears it.
    pool->starting.store(i, std::memory_order_release);
    int error =
        pthread_create(&thread, &attr, &ThreadPool::workerMain, pool.get());
    if (error != 0) {
      pthread_attr_destroy(&attr);
      // The workers already started stop as `pool` goes.
      return Status::error(
          StatusCode::kResourceExhausted,
          "cannot start worker thread " + std::to_string(i + 1) + " of " +
              std::to_string(numWorkers) + " (stack of " +
              std::to_string(stackBytes >> 10) +
              " KiB): " + std::strerror(error) +
              (error == EAGAIN ? " (address space or thread limit: ulimit "
                                 "-v, ulimit -u; fewer threads with "
                                 "cpu:threads=K)"
                               : ""));
    }
    pool->workers.push_back(static_cast<unsigned long>(thread));
    // Wait until the worker has read its id.
    while (pool->starting.load(std::memory_order_acquire) != ~0u)
      cpuRelax();
  }
  pthread_attr_destroy(&attr);
  *out = std::move(pool);
  return Status();
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex);
    stopping = true;
    generation.fetch_add(1, std::memory_order_release);
  }
  wake.notify_all();
  wakeStandIn.notify_all();
  for (unsigned long thread : workers)
    pthread_join(static_cast<pthread_t>(thread), nullptr);
}

void *ThreadPool::workerMain(void *self) {
  auto *pool = static_cast<ThreadPool *>(self);
  unsigned id = pool->starting.load(std::memory_order_acquire);
  pool->starting.store(~0u, std::memory_order_release);
  pool->work(id);
  return nullptr;
}

uint64_t ThreadPool::drain(WorkFn jobFn, void *jobContext, uint64_t jobCount) {
  uint64_t ran = 0;
  for (uint64_t i = next.fetch_add(1, std::memory_order_relaxed); i < jobCount;
       i = next.fetch_add(1, std::memory_order_relaxed)) {
    jobFn(jobContext, i);
    ++ran;
  }
  return ran;
}

void ThreadPool::work(unsigned id) {
  // The stand-in takes part only in dispatches the caller cannot help. It
  // spins only right after one of them (the next dispatch is often the same
  // kernel for the next chunk) and sleeps once a dispatch that the caller
  // helps has started, so that it never spins beside the caller.
  const bool standIn = id + 1 == threads;
  uint64_t seen = 0;
  bool ranLast = false;
  while (true) {
    uint64_t now;
    if (standIn) {
      for (int spin = 0; ranLast && spin < 20000 &&
                         generation.load(std::memory_order_acquire) == seen;
           ++spin)
        spinStep(spin);
      std::unique_lock<std::mutex> lock(mutex);
      wakeStandIn.wait(lock, [&] {
        return stopping ||
               (generation.load(std::memory_order_acquire) != seen &&
                id < allowed);
      });
      now = generation.load(std::memory_order_acquire);
    } else {
      // Wait for a new job: spin a while (dispatches come back to back),
      // then sleep.
      now = generation.load(std::memory_order_acquire);
      for (int spin = 0; now == seen && spin < 20000; ++spin) {
        spinStep(spin);
        now = generation.load(std::memory_order_acquire);
      }
      if (now == seen) {
        std::unique_lock<std::mutex> lock(mutex);
        wake.wait(lock, [&] {
          return generation.load(std::memory_order_acquire) != seen;
        });
        now = generation.load(std::memory_order_acquire);
      }
    }
    seen = now;
    WorkFn jobFn;
    void *jobContext;
    uint64_t jobCount;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (stopping)
        return;
      ranLast = id < allowed;
      if (!ranLast)
        continue;
      jobFn = fn;
      jobContext = context;
      jobCount = count;
      active.fetch_add(1, std::memory_order_relaxed);
    }
    uint64_t ran = drain(jobFn, jobContext, jobCount);
    bool last =
        ran && done.fetch_add(ran, std::memory_order_acq_rel) + ran == jobCount;
    // Leave the job only now: the next one waits for every worker holding
    // this one's parameters to be gone before it resets the counters.
    active.fetch_sub(1, std::memory_order_release);
    if (last) {
      std::lock_guard<std::mutex> lock(mutex);
      finished.notify_all();
    }
  }
}

void ThreadPool::run(uint64_t n, WorkFn work, void *ctx, bool callerHelps) {
  if (n == 0)
    return;
  // Workers with an id below `helpers` take part: the helpers, and the
  // stand-in (id threads - 1) when the caller does not help and the
  // helpers are fewer than the workgroups.
  bool standIn = !callerHelps && n > threads - 1;
  unsigned helpers = standIn ? threads : threads - 1;
  // Fewer workgroups than threads leave a core idle for a waiting caller.
  bool idleCore = spareCore || n < threads;
  // Workers still leaving the previous job hold its parameters; start the
  // new one when they are gone.
  while (true) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (active.load(std::memory_order_acquire) == 0) {
        fn = work;
        context = ctx;
        count = n;
        allowed = helpers;
        next.store(0, std::memory_order_relaxed);
        done.store(0, std::memory_order_relaxed);
        if (helpers)
          generation.fetch_add(1, std::memory_order_release);
        break;
      }
    }
    cpuRelax();
  }
  if (threads > 1)
    wake.notify_all();
  if (callerHelps) {
    uint64_t ran = drain(work, ctx, n);
    if (ran)
      done.fetch_add(ran, std::memory_order_acq_rel);
    // Wait for the helpers: spin first (short dispatches), then sleep.
    for (int spin = 0; spin < 200000; ++spin) {
      if (done.load(std::memory_order_acquire) == n)
        return;
      spinStep(spin);
    }
  } else {
    if (standIn)
      wakeStandIn.notify_one();
    // The caller of a dispatch it does not help leaves its core to the
    // stand-in and sleeps, unless a core is idle for its spin (a sleep
    // costs a wake-up, tens of microseconds, per dispatch).
    for (int spin = 0; idleCore && spin < 200000; ++spin) {
      if (done.load(std::memory_order_acquire) == n)
        return;
      spinStep(spin);
    }
  }
  std::unique_lock<std::mutex> lock(mutex);
  finished.wait(lock,
                [&] { return done.load(std::memory_order_acquire) == n; });
}

} // namespace cpu
} // namespace vmapc
