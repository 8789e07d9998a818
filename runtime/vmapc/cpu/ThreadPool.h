//===- ThreadPool.h - the CPU device's workers ------------------*- C++ -*-===//
//
// The threads of the CPU device, made once when it is opened, that run the
// workgroups of one dispatch at a time. A pool of K threads is the calling
// thread, K - 1 helpers and one stand-in: `run` hands out the workgroup
// indices 0..count-1 through an atomic counter (each index runs exactly
// once) to K threads and returns when all have run; it allocates nothing
// and creates no thread, and with K = 1 it wakes nobody.
//
// Workers are POSIX threads with a stack of at least `stackBytes`, so that a
// kernel's per-workgroup scratch (on its stack) always fits. The calling
// thread helps where its stack may hold the scratch (`callerHelps`); a
// dispatch whose scratch it may not hold runs on the helpers and, when it
// has more workgroups than they are, the stand-in, which takes the caller's
// place, so that such a dispatch still runs on K threads (it ran on K - 1
// before: no speed-up from 2 threads).
// Helpers spin briefly after a dispatch, since schedules launch dispatches
// back to back, then sleep on a condition variable. The stand-in spins only
// until the next dispatch starts and sleeps through those the caller helps,
// and a caller that waits for the stand-in sleeps (unless the process has
// more cores than K, or the dispatch fewer workgroups than K), so that no
// more than K threads compete for K cores while a dispatch runs.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CPU_THREADPOOL_H
#define VMAPC_CPU_THREADPOOL_H

#include "vmapc/Status.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace vmapc {
namespace cpu {

class ThreadPool {
public:
  /// The work of one dispatch: `fn(context, index)` for every index.
  using WorkFn = void (*)(void *context, uint64_t index);

  /// A pool of `threads` (>= 1) threads: the caller, threads - 1 helpers
  /// and a stand-in, workers with `stackBytes` of stack each. Errors:
  /// kInvalidArgument for 0 threads, kResourceExhausted when a thread cannot be
  /// created (the message says which, with what stack, and why:
  /// pthread_create's error).
  static Status create(unsigned threads, size_t stackBytes,
                       std::unique_ptr<ThreadPool> *out);
  ~ThreadPool();
  ThreadPool(const ThreadPool &) = delete;
  ThreadPool &operator=(const ThreadPool &) = delete;

  /// The threads that run a dispatch: the caller and the workers.
  unsigned numThreads() const { return threads; }
  /// Each worker's stack, in bytes (at least what `create` was asked for).
  size_t stackBytes() const { return workerStackBytes; }

  /// Runs fn(context, i) for i in [0, count) on numThreads() threads: the
  /// caller and the helpers if `callerHelps`, else the helpers and the
  /// stand-in; waits for all of them. Calls must not overlap (one dispatch
  /// at a time).
  void run(uint64_t count, WorkFn fn, void *context, bool callerHelps);

private:
  ThreadPool() = default;
  static void *workerMain(void *self);
  void work(unsigned id);
  /// Runs indices of the current job until none is left.
  uint64_t drain(WorkFn fn, void *context, uint64_t count);

  unsigned threads = 1;
  /// Fewer threads than the process's hardware threads: a caller waiting
  /// for the workers may spin on a core of its own.
  bool spareCore = false;
  size_t workerStackBytes = 0;
  std::vector<unsigned long> workers; // pthread_t
  /// Workers with an id below this take part in the current job.
  unsigned allowed = 0;
  /// The id of the worker being started (~0u once it has read it).
  std::atomic<unsigned> starting{~0u};
  std::mutex mutex;
  /// `wake` wakes sleeping helpers, `wakeStandIn` the stand-in (the last
  /// worker), `finished` a caller waiting for the last workgroup.
  std::condition_variable wake, wakeStandIn, finished;
  // The current job; `generation` changes when a new one starts.
  std::atomic<uint64_t> generation{0};
  std::atomic<uint64_t> next{0};
  std::atomic<uint64_t> done{0};
  /// Workers that hold the current job's parameters.
  std::atomic<unsigned> active{0};
  uint64_t count = 0;
  WorkFn fn = nullptr;
  void *context = nullptr;
  bool stopping = false;
};

/// The number of hardware threads this process may run on (its CPU
/// affinity mask), at least 1.
unsigned hardwareThreads();

} // namespace cpu
} // namespace vmapc

#endif // VMAPC_CPU_THREADPOOL_H
