//===- FakeCudaTestKernels.cpp - hand-written emulated kernels ------------===//
//
// See FakeCudaTestKernels.h. The kernels call what the compiler's kernels
// call after build-emulated-kernels.py's rewrite: the shim's special
// registers, vmapc_emu_barrier (a site number per call site) and
// vmapc_emu_shfl, and vmapc_emu_shared for the dynamic shared memory.
//
//===----------------------------------------------------------------------===//

#include "FakeCudaTestKernels.h"
#include "FakeCudaEmulation.h"

#include <cstdint>
#include <cstring>

extern "C" {
uint32_t vmapc_emu_tid_x(void);
uint32_t vmapc_emu_ntid_x(void);
uint32_t vmapc_emu_ctaid_x(void);
uint32_t vmapc_emu_ctaid_y(void);
uint32_t vmapc_emu_nctaid_x(void);
uint32_t vmapc_emu_nctaid_y(void);
uint32_t vmapc_emu_laneid(void);
void vmapc_emu_barrier(uint32_t id, uint32_t site);
uint32_t vmapc_emu_shfl(uint32_t mode, uint32_t mask, uint32_t value,
                        uint32_t b, uint32_t c, uint32_t *valid);
extern unsigned char vmapc_emu_shared[];
}

namespace {

template <typename T> T *param(const uint64_t *params, int i) {
  return reinterpret_cast<T *>(static_cast<uintptr_t>(params[i]));
}

void blockSum(const uint64_t *params) {
  auto *out = param<int32_t>(params, 0);
  auto *shared = reinterpret_cast<int32_t *>(vmapc_emu_shared);
  uint32_t tid = vmapc_emu_tid_x(), n = vmapc_emu_ntid_x();
  uint32_t block =
      vmapc_emu_ctaid_x() + vmapc_emu_nctaid_x() * vmapc_emu_ctaid_y();
  uint32_t blocks = vmapc_emu_nctaid_x() * vmapc_emu_nctaid_y();
  int32_t value = int32_t(tid + 1000 * block);
  shared[tid] = value;
  vmapc_emu_barrier(0, 1);
  if (tid == 0) {
    int32_t sum = 0;
    for (uint32_t i = 0; i < n; ++i)
      sum += shared[i];
    out[block] = sum;
  }
  int32_t v = value;
  for (uint32_t by = 16; by > 0; by /= 2)
    v += int32_t(
        vmapc_emu_shfl(VMAPC_EMU_SHFL_BFLY, ~0u, uint32_t(v), by, 31, nullptr));
  uint32_t warps = n / 32;
  if (vmapc_emu_laneid() == 0)
    out[blocks + block * warps + tid / 32] = v;
}

void shuffleModes(const uint64_t *params) {
  auto *out = param<uint32_t>(params, 0);
  uint32_t lane = vmapc_emu_laneid(), value = 10 * lane;
  uint32_t *row = out + lane * 10;
  const uint32_t modes[5][3] = {
      {VMAPC_EMU_SHFL_UP, 1, 0},
      {VMAPC_EMU_SHFL_DOWN, 1, 31},
      {VMAPC_EMU_SHFL_IDX, 5, 31},
      {VMAPC_EMU_SHFL_BFLY, 3, 31},
      // Segments of 8 lanes: segmask 0x18 (c bits 8-12), clamp 7.
      {VMAPC_EMU_SHFL_DOWN, 1, (0x18u << 8) | 7},
  };
  for (int k = 0; k < 5; ++k)
    row[2 * k] = vmapc_emu_shfl(modes[k][0], ~0u, value, modes[k][1],
                                modes[k][2], &row[2 * k + 1]);
}

void divergentBarrier(const uint64_t *) {
  if (vmapc_emu_tid_x() % 2)
    vmapc_emu_barrier(0, 1);
  else
    vmapc_emu_barrier(0, 2);
}

void earlyExit(const uint64_t *) {
  if (vmapc_emu_tid_x() >= 32)
    return;
  vmapc_emu_barrier(0, 1);
}

void missingLane(const uint64_t *) {
  if (vmapc_emu_laneid() == 5)
    return;
  vmapc_emu_shfl(VMAPC_EMU_SHFL_BFLY, ~0u, 1, 1, 31, nullptr);
}

void maskExcludesCaller(const uint64_t *) {
  vmapc_emu_shfl(VMAPC_EMU_SHFL_BFLY, ~1u, 1, 1, 31, nullptr);
}

void sharedOverflow(const uint64_t *params) {
  if (vmapc_emu_tid_x() == 0)
    vmapc_emu_shared[params[1]] = 1;
}

void racy(const uint64_t *params) {
  auto *out = param<int32_t>(params, 0);
  auto *shared = reinterpret_cast<int32_t *>(vmapc_emu_shared);
  uint32_t tid = vmapc_emu_tid_x(), n = vmapc_emu_ntid_x();
  shared[tid] = int32_t(tid + 1);
  out[tid] = shared[(tid + 1) % n];
}

void racyAcrossWarps(const uint64_t *params) {
  auto *out = param<int32_t>(params, 0);
  auto *shared = reinterpret_cast<int32_t *>(vmapc_emu_shared);
  uint32_t tid = vmapc_emu_tid_x(), n = vmapc_emu_ntid_x();
  shared[tid] = int32_t(tid + 1);
  uint32_t v = tid;
  for (uint32_t by = 16; by > 0; by /= 2)
    v += vmapc_emu_shfl(VMAPC_EMU_SHFL_BFLY, ~0u, v, by, 31, nullptr);
  out[tid] = shared[(tid + 32) % n];
}

constexpr uint64_t fnv1a(const char *text, uint64_t bytes) {
  uint64_t h = 14695981039346656037ull;
  for (uint64_t i = 0; i < bytes; ++i) {
    h ^= static_cast<unsigned char>(text[i]);
    h *= 1099511628211ull;
  }
  return h;
}

} // namespace

#define EXPORT extern "C" __attribute__((visibility("default")))

EXPORT const vmapc_emu_kernel vmapc_emu_kernels[] = {
    {"block_sum", "p", blockSum},
    {"shuffle_modes", "p", shuffleModes},
    {"divergent_barrier", "p", divergentBarrier},
    {"early_exit", "p", earlyExit},
    {"missing_lane", "p", missingLane},
    {"mask_excludes_caller", "p", maskExcludesCaller},
    {"shared_overflow", "pl", sharedOverflow},
    {"racy", "p", racy},
    {"racy_across_warps", "p", racyAcrossWarps},
    {nullptr, nullptr, nullptr},
};
EXPORT const uint64_t vmapc_emu_ptx_hash =
    fnv1a(kTestKernelsPtx, sizeof(kTestKernelsPtx) - 1);
EXPORT const uint64_t vmapc_emu_ptx_bytes = sizeof(kTestKernelsPtx) - 1;
