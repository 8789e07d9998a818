//===- MachineRates.cpp - memcpy bandwidth and FMA peak of this machine ---===//

#include "MachineRates.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>

#include <sched.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define VMAPC_BENCH_X86 1
#endif

namespace vmapc::bench {
namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Runs fn(i) on `threads` threads started together; returns the seconds
/// from the start signal until the last thread is done. Creating the threads
/// is not timed: each waits for the signal after saying it is ready.
double runTogether(unsigned threads, const std::function<void(unsigned)> &fn) {
  if (threads == 1) {
    auto start = Clock::now();
    fn(0);
    return std::chrono::duration<double>(Clock::now() - start).count();
  }
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  std::vector<Clock::time_point> ends(threads);
  std::vector<std::thread> pool;
  pool.reserve(threads);
  for (unsigned i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire))
        std::this_thread::yield();
      fn(i);
      ends[i] = Clock::now();
    });
  while (ready.load() != threads)
    std::this_thread::yield();
  auto start = Clock::now();
  go.store(true, std::memory_order_release);
  for (std::thread &t : pool)
    t.join();
  auto last = *std::max_element(ends.begin(), ends.end());
  return std::chrono::duration<double>(last - start).count();
}

/// A 64-byte-aligned block freed on scope exit.
struct AlignedBlock {
  void *ptr = nullptr;
  ~AlignedBlock() { std::free(ptr); }
};

//===----------------------------------------------------------------------===//
// FMA chains. Each kernel runs `iterations` steps of kChains independent
// accumulators a = a * m + c (m slightly below 1, so values stay near
// c / (1 - m) and never reach denormals or infinities) and returns a sum of
// the accumulators so the work cannot be removed.
//===----------------------------------------------------------------------===//

constexpr int kChains = 12;

#ifdef VMAPC_BENCH_X86
__attribute__((target("avx512f"))) float chainsAvx512(uint64_t iterations) {
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-6f);
  __m512 a[kChains];
  for (int k = 0; k < kChains; ++k)
    a[k] = _mm512_set1_ps(1.0f + 1e-3f * static_cast<float>(k));
  for (uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < kChains; ++k)
      a[k] = _mm512_fmadd_ps(a[k], m, c);
  }
  __m512 s = a[0];
  for (int k = 1; k < kChains; ++k)
    s = _mm512_add_ps(s, a[k]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, s);
  float sum = 0;
  for (float x : lanes)
    sum += x;
  return sum;
}

__attribute__((target("avx2,fma"))) float chainsAvx2(uint64_t iterations) {
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-6f);
  __m256 a[kChains];
  for (int k = 0; k < kChains; ++k)
    a[k] = _mm256_set1_ps(1.0f + 1e-3f * static_cast<float>(k));
  for (uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < kChains; ++k)
      a[k] = _mm256_fmadd_ps(a[k], m, c);
  }
  __m256 s = a[0];
  for (int k = 1; k < kChains; ++k)
    s = _mm256_add_ps(s, a[k]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, s);
  float sum = 0;
  for (float x : lanes)
    sum += x;
  return sum;
}

float chainsSse2(uint64_t iterations) {
  const __m128 m = _mm_set1_ps(0.999999f), c = _mm_set1_ps(1e-6f);
  __m128 a[kChains];
  for (int k = 0; k < kChains; ++k)
    a[k] = _mm_set1_ps(1.0f + 1e-3f * static_cast<float>(k));
  for (uint64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 12
    for (int k = 0; k < kChains; ++k)
      a[k] = _mm_add_ps(_mm_mul_ps(a[k], m), c);
  }
  __m128 s = a[0];
  for (int k = 1; k < kChains; ++k)
    s = _mm_add_ps(s, a[k]);
  alignas(16) float lanes[4];
  _mm_store_ps(lanes, s);
  return lanes[0] + lanes[1] + lanes[2] + lanes[3];
}
#else
// Not x86: scalar multiply+add chains stand in (labelled "scalar").
float chainsScalar(uint64_t iterations) {
  float a[kChains];
  for (int k = 0; k < kChains; ++k)
    a[k] = 1.0f + 1e-3f * static_cast<float>(k);
  for (uint64_t i = 0; i < iterations; ++i)
    for (int k = 0; k < kChains; ++k)
      a[k] = a[k] * 0.999999f + 1e-6f;
  float sum = 0;
  for (float x : a)
    sum += x;
  return sum;
}
#endif

struct FmaKernel {
  const char *isa;
  unsigned lanes;
  float (*run)(uint64_t);
};

std::vector<FmaKernel> supportedKernels() {
  std::vector<FmaKernel> kernels;
#ifdef VMAPC_BENCH_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f"))
    kernels.push_back({"avx512f", 16, chainsAvx512});
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
    kernels.push_back({"avx2+fma", 8, chainsAvx2});
  kernels.push_back({"sse2", 4, chainsSse2});
#else
  kernels.push_back({"scalar", 1, chainsScalar});
#endif
  return kernels;
}

volatile float fmaSink; // Keeps the chains' results alive.

} // namespace

unsigned availableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int count = CPU_COUNT(&set);
    if (count > 0)
      return static_cast<unsigned>(count);
  }
  unsigned hw = std::thread::hardware_concurrency();
  return hw ? hw : 1;
}

bool measureMemcpy(uint64_t bytes, unsigned threads, unsigned repeats,
                   MemcpyRate *out, std::string *error) {
  AlignedBlock src, dst;
  if (bytes == 0 || posix_memalign(&src.ptr, 64, bytes) != 0 ||
      posix_memalign(&dst.ptr, 64, bytes) != 0) {
    *error = "cannot allocate two buffers of " + std::to_string(bytes) +
             " bytes for the memcpy measurement";
    return false;
  }
  // Non-zero source bytes; the destination is written once so that every
  // page is mapped before the first timed copy.
  auto *s = static_cast<unsigned char *>(src.ptr);
  for (uint64_t i = 0; i < bytes; ++i)
    s[i] = static_cast<unsigned char>(i * 131 + 7);
  std::memset(dst.ptr, 1, bytes);

  // Part i covers [i * part, min(bytes, (i + 1) * part)), part a multiple of
  // 64 bytes.
  uint64_t part = (bytes + threads - 1) / threads;
  part = (part + 63) / 64 * 64;
  auto copyPart = [&](unsigned i) {
    uint64_t begin = std::min<uint64_t>(bytes, i * part);
    uint64_t end = std::min<uint64_t>(bytes, begin + part);
    std::memcpy(static_cast<char *>(dst.ptr) + begin,
                static_cast<const char *>(src.ptr) + begin, end - begin);
  };
  runTogether(threads, copyPart); // untimed
  out->bytes = bytes;
  out->threads = threads;
  out->secondsPerCopy.clear();
  for (unsigned r = 0; r < repeats; ++r)
    out->secondsPerCopy.push_back(runTogether(threads, copyPart));
  double med = median(out->secondsPerCopy);
  double best =
      *std::min_element(out->secondsPerCopy.begin(), out->secondsPerCopy.end());
  out->medianGBps = 2.0 * static_cast<double>(bytes) / med / 1e9;
  out->bestGBps = 2.0 * static_cast<double>(bytes) / best / 1e9;
  return true;
}

std::vector<std::string> supportedFmaIsas() {
  std::vector<std::string> names;
  for (const FmaKernel &k : supportedKernels())
    names.push_back(k.isa);
  return names;
}

bool measureFmaPeak(const std::string &isa, unsigned threads, unsigned repeats,
                    double seconds, FmaPeak *out, std::string *error) {
  std::vector<FmaKernel> kernels = supportedKernels();
  const FmaKernel *kernel = &kernels.front();
  if (!isa.empty()) {
    kernel = nullptr;
    for (const FmaKernel &k : kernels)
      if (isa == k.isa)
        kernel = &k;
    if (!kernel) {
      *error = "this CPU cannot run the '" + isa + "' FMA chains";
      return false;
    }
  }
  // Calibrate: double the iterations until one run takes a tenth of
  // `seconds`, then scale.
  uint64_t iterations = 1 << 12;
  for (;;) {
    auto start = Clock::now();
    fmaSink = kernel->run(iterations);
    double t = std::chrono::duration<double>(Clock::now() - start).count();
    if (t >= seconds / 10 || iterations >= (uint64_t{1} << 40)) {
      iterations = static_cast<uint64_t>(static_cast<double>(iterations) *
                                         seconds / std::max(t, 1e-9));
      break;
    }
    iterations *= 2;
  }
  iterations = std::max<uint64_t>(iterations, 1);
  double flopsPerThread =
      2.0 * kChains * kernel->lanes * static_cast<double>(iterations);
  std::vector<double> gflops;
  std::vector<float> sinks(threads);
  for (unsigned r = 0; r < repeats; ++r) {
    double t = runTogether(
        threads, [&](unsigned i) { sinks[i] = kernel->run(iterations); });
    gflops.push_back(flopsPerThread * threads / t / 1e9);
  }
  for (float x : sinks)
    fmaSink = x;
  out->isa = kernel->isa;
  out->lanes = kernel->lanes;
  out->threads = threads;
  out->bestGflops = *std::max_element(gflops.begin(), gflops.end());
  out->medianGflops = median(gflops);
  return true;
}

} // namespace vmapc::bench
