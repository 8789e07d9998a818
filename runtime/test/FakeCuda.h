/*===- FakeCuda.h - a fake CUDA driver for the CUDA backend's tests -------===*
 *
 * libvmapc_fake_cuda.so (FakeCuda.cpp) exports the CUDA driver API entry
 * points that the runtime's CUDA backend resolves (cuda/CudaDriver.h), so
 * that the backend runs without a GPU: tests point VMAPC_CUDA_DRIVER at it.
 *
 * What it simulates:
 *  - one or more GPUs (1 by default) of compute capability 9.0 with sm_90's
 *    limits, named "Fake GPU", driver version 13.0;
 *  - contexts: a primary context per GPU (retained, released) and a stack
 *    of current contexts per thread; every call that needs a context and
 *    finds none of the primary ones current fails with
 *    CUDA_ERROR_INVALID_CONTEXT and counts a context violation;
 *  - device memory as host memory behind fake device addresses (from
 *    0x1000000000000000, which no host pointer uses): a copy or a global
 *    outside a live allocation fails with CUDA_ERROR_INVALID_VALUE;
 *    cuMemHostAlloc returns host memory and remembers it as pinned;
 *  - streams as one queue: copies and launches are recorded when called
 *    and carried out when something synchronizes (cuStreamSynchronize,
 *    cuEventSynchronize, a synchronous copy, vmapc_fake_cuda_synchronize),
 *    so that a backend that reads its staging too early sees stale bytes;
 *  - modules in a text format of its own (below), as a cubin (the text
 *    after a 64-byte ELF header) or as PTX (the text, which must end in a
 *    NUL byte as the driver wants); a launch calls the C function a test
 *    registered for the kernel, if any, when the queue reaches it;
 *  - real PTX, as far as loading goes: its `.visible .entry` kernels (their
 *    parameter count, a `.maxntid` limit that launches must keep) and its
 *    `.global` arrays with their initializers (the descriptors), so that
 *    the compiler's code loads on it and its launches are checked; a real
 *    cubin is refused (CUDA_ERROR_NO_BINARY_FOR_GPU), and its kernels do
 *    nothing unless a test registers them or VMAPC_FAKE_CUDA_KERNELS names
 *    an emulated kernel library built from that PTX: then each launch runs
 *    the kernel's host-compiled code over the whole grid with CUDA's block
 *    semantics (FakeCudaEmulation.h), and a kernel that faults makes the
 *    synchronizing calls return CUDA_ERROR_LAUNCH_FAILED.
 *
 * Module text, one item per line, ending in "end":
 *   vmapc-fake-cuda-module
 *   kernel NAME PARAMS          (a kernel taking PARAMS 8-byte parameters)
 *   global NAME HEX             (a global holding these bytes)
 *   end
 *
 * Nothing is allocated per call: records go to fixed tables (the first
 * kFakeCudaRecords of each kind are kept; the counts go on).
 *
 * Tests reach the control functions below with dlsym.
 *
 *===----------------------------------------------------------------------===*/

#ifndef VMAPC_TEST_FAKECUDA_H
#define VMAPC_TEST_FAKECUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { kFakeCudaRecords = 4096, kFakeCudaMaxParams = 32 };

/* One cuLaunchKernel call. */
typedef struct {
  char kernel[128];
  unsigned grid[3];
  unsigned block[3];
  unsigned shared_bytes;
  void *stream;
  int num_params;
  uint64_t params[kFakeCudaMaxParams];
} vmapc_fake_cuda_launch;

enum {
  VMAPC_FAKE_HTOD = 1,
  VMAPC_FAKE_DTOH = 2,
  VMAPC_FAKE_DTOD = 3,
};

/* One copy call (a 2-D copy is one record). Addresses are device
 * addresses or host pointers, by the kind. */
typedef struct {
  int kind;
  int two_d;
  int async;
  /* For a host side: whether it lies in memory from cuMemHostAlloc. */
  int host_pinned;
  uint64_t dst, src;
  uint64_t width, height, dst_pitch, src_pitch;
  void *stream;
} vmapc_fake_cuda_copy;

/* What a kernel does: called once per launch, when the queue reaches it. */
typedef void (*vmapc_fake_cuda_kernel_fn)(const vmapc_fake_cuda_launch *launch,
                                          void *user);

/* Forgets records, counters, injected errors, kernels and settings (live
 * allocations, modules and contexts stay). */
void vmapc_fake_cuda_reset(void);
/* Forgets the launches and copies recorded so far. */
void vmapc_fake_cuda_clear_records(void);
/* The next call of `function` ("cuMemAlloc_v2", ...) after `skip` calls
 * that succeed returns `error` (once). */
void vmapc_fake_cuda_fail(const char *function, int error, int skip);
/* How many times `function` was called. */
uint64_t vmapc_fake_cuda_calls(const char *function);
/* GPUs the driver reports (default 1). */
void vmapc_fake_cuda_set_device_count(int count);
/* A device attribute (CUdevice_attribute) of every GPU. */
void vmapc_fake_cuda_set_attribute(int attribute, int value);
/* cuModuleLoadData refuses cubins with CUDA_ERROR_NO_BINARY_FOR_GPU. */
void vmapc_fake_cuda_refuse_cubins(int refuse);
/* The PTX JIT fails with CUDA_ERROR_INVALID_PTX and this log (NULL: it
 * works). */
void vmapc_fake_cuda_fail_jit(const char *log);
/* What `kernel` does at each launch (NULL: nothing). */
void vmapc_fake_cuda_set_kernel(const char *kernel,
                                vmapc_fake_cuda_kernel_fn fn, void *user);

size_t vmapc_fake_cuda_launch_count(void);
/* Launch i (0 = the first since reset); 0 if not kept. */
int vmapc_fake_cuda_launch_at(size_t i, vmapc_fake_cuda_launch *out);
size_t vmapc_fake_cuda_copy_count(void);
int vmapc_fake_cuda_copy_at(size_t i, vmapc_fake_cuda_copy *out);

/* Host memory behind [address, address + bytes) of one live device
 * allocation; NULL if there is none. */
void *vmapc_fake_cuda_host_pointer(uint64_t address, size_t bytes);
/* Device memory for a test's own arrays (not counted as cuMemAlloc). */
uint64_t vmapc_fake_cuda_device_alloc(size_t bytes);
void vmapc_fake_cuda_device_free(uint64_t address);
/* A stream of the caller's (not counted as cuStreamCreate). */
void *vmapc_fake_cuda_make_stream(void);
/* Carries out everything queued. */
void vmapc_fake_cuda_synchronize(void);

/* Calls that found no primary context current. */
uint64_t vmapc_fake_cuda_context_violations(void);
/* A context that is not a primary one (another library's), for a test to
 * make current before calling the runtime. */
void *vmapc_fake_cuda_other_context(void);
/* The context current on the calling thread (NULL for none). */
void *vmapc_fake_cuda_current_context(void);
/* What lives now: "device" (cuMemAlloc), "pinned" (cuMemHostAlloc),
 * "module", "stream" (cuStreamCreate), "event", "primary" (primary
 * context retains). */
uint64_t vmapc_fake_cuda_live(const char *what);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VMAPC_TEST_FAKECUDA_H */
