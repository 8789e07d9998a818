//===- MachineRates.h - memcpy bandwidth and FMA peak ----------*- C++ -*-===//
//
// The two yardsticks the bench divides by, measured in the bench's own process
// next to the programs it times (never hard-coded: the machines differ and are
// shared):
//
// - memcpy bandwidth: `bytes` copied from one buffer to another, counted as
//   2 * bytes of traffic (read + write), in GB/s (1e9 bytes per second). On
//   one thread (one std::memcpy) and on T threads (the buffer split into T
//   contiguous parts of 64-byte-aligned size, one per thread, started
//   together; the time is until the last part is done).
// - FMA peak: independent chains of fused multiply-adds on the widest vector
//   registers the CPU has (AVX-512F, else AVX2+FMA, else SSE2 multiply+add),
//   each compiled with a per-function target attribute and chosen at run time
//   with __builtin_cpu_supports, so one binary runs everywhere. Counted as
//   2 flops per lane per FMA (per multiply+add pair on SSE2), in GFLOP/s
//   (1e9 flops per second), per thread and for T threads running at once.
//   Twelve independent accumulators hide an FMA latency of up to 6 cycles on
//   two ports (Intel since Skylake: 4 cycles, 2 ports; AMD Zen 4: 4, 2).
//
// The memcpy figure is a median over `repeats` copies (after one untimed
// copy that faults the pages in); the FMA figure is the best of `repeats`
// runs of about `seconds` each (a peak: interference only lowers it).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_BENCH_MACHINERATES_H
#define VMAPC_BENCH_MACHINERATES_H

#include <cstdint>
#include <string>
#include <vector>

namespace vmapc::bench {

/// CPUs this process may run on (sched_getaffinity; `taskset` lowers it),
/// at least 1.
unsigned availableCpus();

struct MemcpyRate {
  uint64_t bytes = 0;    ///< Bytes copied per copy (traffic is twice it).
  unsigned threads = 1;  ///< Threads sharing one copy.
  double medianGBps = 0; ///< 2 * bytes / median seconds / 1e9.
  double bestGBps = 0;   ///< 2 * bytes / min seconds / 1e9.
  std::vector<double> secondsPerCopy;
};

/// Copies `bytes` (> 0) `repeats` (>= 1) times on `threads` (>= 1) threads.
/// Returns false and sets `error` if the buffers cannot be allocated.
bool measureMemcpy(uint64_t bytes, unsigned threads, unsigned repeats,
                   MemcpyRate *out, std::string *error);

struct FmaPeak {
  std::string isa;       ///< "avx512f", "avx2+fma" or "sse2".
  unsigned lanes = 0;    ///< f32 lanes per vector register.
  unsigned threads = 1;  ///< Threads running the chains at once.
  double bestGflops = 0; ///< Best run: flops of all threads / wall time.
  double medianGflops = 0;
};

/// Runs the FMA chains on `threads` (>= 1) threads at once, `repeats`
/// (>= 1) times, each run about `seconds` long (calibrated on one thread
/// first). `isa` empty picks the widest the CPU supports; "avx512f",
/// "avx2+fma" or "sse2" force one (false and `error` if the CPU lacks it).
bool measureFmaPeak(const std::string &isa, unsigned threads, unsigned repeats,
                    double seconds, FmaPeak *out, std::string *error);

/// The ISAs measureFmaPeak can use on this CPU, widest first.
std::vector<std::string> supportedFmaIsas();

} // namespace vmapc::bench

#endif // VMAPC_BENCH_MACHINERATES_H
