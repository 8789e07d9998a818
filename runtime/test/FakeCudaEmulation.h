/*===- FakeCudaEmulation.h - kernels the fake CUDA driver executes --------===*
 *
 * The fake driver (FakeCuda.h) can execute the compiler's CUDA kernels: not
 * their PTX, but the same kernels compiled for the host from the LLVM IR
 * that the PTX was made of (test/gpu/emulate/build-emulated-kernels.py).
 * This header is the contract between the fake and such an "emulated
 * kernel library", a shared object listed in VMAPC_FAKE_CUDA_KERNELS
 * (paths separated by ':').
 *
 * Loading: when the fake loads a PTX module and VMAPC_FAKE_CUDA_KERNELS is
 * set, it picks the library whose `vmapc_emu_ptx_hash`/`_bytes` are those
 * of the PTX text (FNV-1a, 64 bits, over the text without its NUL), so that
 * the code it runs is the code of the artifact; a PTX that no library was
 * built from, or a kernel of it that the library lacks, fails the load
 * (CUDA_ERROR_INVALID_PTX, the reason in the JIT log and on stderr).
 *
 * Launching: a launch runs every block of the grid, one after the other;
 * a block's threads are cooperative user-level threads (fibers) on one OS
 * thread. A thread runs until it waits at a barrier or a warp shuffle, or
 * ends; a barrier opens when every thread of the block waits at it (at the
 * same barrier: `site` below), a shuffle when every lane of its member mask
 * has arrived (all values are exchanged, then read, as shfl.sync does).
 * Warps run one at a time, each until all its threads wait or ended, in
 * increasing warp and lane order, or decreasing with
 * VMAPC_FAKE_CUDA_THREAD_ORDER=reverse: a kernel that reads another
 * thread's write without a barrier between reads it unwritten in one of
 * the two orders. Before each block the dynamic shared memory (the launch's
 * sharedMemBytes) is filled with 0xFF bytes (f32 NaN, i32 -1), so that a
 * read before a write shows; the 4 KiB after it must still hold them after
 * the block. Pointer parameters are translated from fake device addresses
 * to host memory; one outside every live allocation fails the launch.
 *
 * A launch that cannot complete (threads that wait at different barriers,
 * a barrier that some threads of the block never reach because they ended,
 * a shuffle whose lanes never all arrive or that reads a lane outside its
 * member mask, a write past the shared memory, a bad pointer) stops there:
 * the fake prints "vmapc fake CUDA: kernel K block (x, y, z): WHAT" on
 * stderr and every later synchronizing call returns
 * CUDA_ERROR_LAUNCH_FAILED, as a real context is left after a fault.
 *
 *===----------------------------------------------------------------------===*/

#ifndef VMAPC_TEST_FAKECUDAEMULATION_H
#define VMAPC_TEST_FAKECUDAEMULATION_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The special registers of the thread that runs (PTX %tid, %ntid, %ctaid,
 * %nctaid). */
typedef struct {
  uint32_t tid[3];
  uint32_t ntid[3];
  uint32_t ctaid[3];
  uint32_t nctaid[3];
} vmapc_emu_thread;

/* Shuffle modes, as PTX's shfl.sync .up/.down/.bfly/.idx. */
enum {
  VMAPC_EMU_SHFL_UP = 0,
  VMAPC_EMU_SHFL_DOWN = 1,
  VMAPC_EMU_SHFL_BFLY = 2,
  VMAPC_EMU_SHFL_IDX = 3,
};

/* What the fake provides to the kernels; it fills this in the library
 * after loading it and sets `current` before resuming a thread. */
typedef struct {
  const vmapc_emu_thread *current;
  /* bar.sync `id` (only 0, the whole block); `site` tells barriers apart. */
  void (*barrier)(uint32_t id, uint32_t site);
  /* shfl.sync: the value of lane j (32 bits) by PTX's rules for `mode`,
   * `b` and `c`; *valid (if not NULL) = PTX's predicate (j in range). */
  uint32_t (*shuffle)(uint32_t mode, uint32_t mask, uint32_t value, uint32_t b,
                      uint32_t c, uint32_t *valid);
} vmapc_emu_runtime;

/* One kernel: `params` has a character per parameter: 'p' a pointer (a
 * device address), 'l' i64, 'i' i32, 'f' f32, 'd' f64. `entry` calls the
 * kernel with params[k] (8 bytes each, as the launch passed them). */
typedef struct {
  const char *name;
  const char *params;
  void (*entry)(const uint64_t *params);
} vmapc_emu_kernel;

/* What an emulated kernel library defines (the names the fake looks up). */
#define VMAPC_EMU_RUNTIME "vmapc_emu"
#define VMAPC_EMU_SHARED "vmapc_emu_shared"
#define VMAPC_EMU_SHARED_BYTES "vmapc_emu_shared_bytes"
#define VMAPC_EMU_KERNELS "vmapc_emu_kernels" /* ended by a NULL name */
#define VMAPC_EMU_PTX_HASH "vmapc_emu_ptx_hash"
#define VMAPC_EMU_PTX_BYTES "vmapc_emu_ptx_bytes"

/* FNV-1a over `bytes` bytes (the PTX identity above). */
static inline uint64_t vmapc_emu_fnv1a(const char *text, uint64_t bytes) {
  uint64_t h = 14695981039346656037ull;
  for (uint64_t i = 0; i < bytes; ++i) {
    h ^= (unsigned char)text[i];
    h *= 1099511628211ull;
  }
  return h;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VMAPC_TEST_FAKECUDAEMULATION_H */
