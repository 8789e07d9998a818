/*===- vmapc_runtime.h - The vmapc embeddable runtime (C API) ------------===*
 *
 * A C view of the C++ runtime in Runtime.h (a thin layer over it, no second
 * implementation). Semantics, shapes, dtypes and units are as documented
 * there.
 *
 * Handles are opaque and owned by the caller: every `*_open` / `*_load_*`
 * has a matching `*_release`. Every fallible call returns a vmapc_status:
 * NULL means success, anything else is an error with a code
 * (vmapc_status_code) and a message (vmapc_status_message), which the
 * caller frees with vmapc_status_free. An error is never reported as
 * success: when even the status cannot be allocated, the call returns a
 * preallocated status with the error's code and the message "out of memory
 * while reporting an error" (vmapc_status_free leaves it alone). No C++
 * exception or type crosses this boundary.
 *
 * Thread safety: as in Runtime.h. A device may be shared by executables
 * running on several threads at once. One executable runs one call at a
 * time: a call while another runs on another thread returns
 * VMAPC_STATUS_UNAVAILABLE and touches nothing (use one executable per
 * thread, or a lock).
 *
 *===----------------------------------------------------------------------===*/

#ifndef VMAPC_RUNTIME_C_H
#define VMAPC_RUNTIME_C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct vmapc_status_s *vmapc_status;
typedef struct vmapc_device_s vmapc_device;
typedef struct vmapc_executable_s vmapc_executable;

/* Element types; the values are those of vmapc::DType. */
enum { VMAPC_F32 = 1, VMAPC_I32 = 2, VMAPC_BOOL = 3 };
/* The mapped axis of an unmapped argument. */
enum { VMAPC_NO_AXIS = -1 };

/* What kind of error a status is. The values are absl::StatusCode's; when
 * the runtime uses each is written in vmapc/Status.h. */
typedef enum {
  VMAPC_STATUS_OK = 0,
  VMAPC_STATUS_INVALID_ARGUMENT = 3,
  VMAPC_STATUS_NOT_FOUND = 5,
  VMAPC_STATUS_PERMISSION_DENIED = 7,
  VMAPC_STATUS_RESOURCE_EXHAUSTED = 8,
  VMAPC_STATUS_FAILED_PRECONDITION = 9,
  VMAPC_STATUS_OUT_OF_RANGE = 11,
  VMAPC_STATUS_UNIMPLEMENTED = 12,
  VMAPC_STATUS_INTERNAL = 13,
  VMAPC_STATUS_UNAVAILABLE = 14,
  VMAPC_STATUS_DATA_LOSS = 15
} vmapc_code;

/* The code of a status: VMAPC_STATUS_OK for NULL (success). */
vmapc_code vmapc_status_code(vmapc_status status);
/* "ok", "invalid argument", ... ("unknown code" for another value). */
const char *vmapc_code_name(vmapc_code code);
/* The message of a status: "ok" for NULL; valid until it is freed. */
const char *vmapc_status_message(vmapc_status status);
/* Frees a status; NULL and the preallocated statuses are allowed. */
void vmapc_status_free(vmapc_status status);

/* The runtime's version, "MAJOR.MINOR.PATCH" (vmapc's version). */
const char *vmapc_version(void);

/* Opens a device: "cpu", "cpu:OPTIONS", "cuda" (= "cuda:0") or "cuda:N"
 * (Device::open in Runtime.h). Without a CUDA driver, "cuda" is an error
 * with code VMAPC_STATUS_UNAVAILABLE ("no CUDA device: ..."). */
vmapc_status vmapc_device_open(const char *name, vmapc_device **out);
void vmapc_device_release(vmapc_device *device);

/* Loads an artifact from memory (copied) or from a file. */
vmapc_status vmapc_executable_load_bytes(const vmapc_device *device,
                                         const void *data, size_t size,
                                         vmapc_executable **out);
vmapc_status vmapc_executable_load_file(const vmapc_device *device,
                                        const char *path,
                                        vmapc_executable **out);
void vmapc_executable_release(vmapc_executable *exe);

/* Entries, by index in [0, vmapc_entry_count). */
size_t vmapc_entry_count(const vmapc_executable *exe);
vmapc_status vmapc_find_entry(const vmapc_executable *exe, const char *name,
                              size_t *index);
/* Name and batch size of an entry; NULL / 0 for a bad index. */
const char *vmapc_entry_name(const vmapc_executable *exe, size_t entry);
uint32_t vmapc_entry_batch_size(const vmapc_executable *exe, size_t entry);
size_t vmapc_entry_num_inputs(const vmapc_executable *exe, size_t entry);
size_t vmapc_entry_num_outputs(const vmapc_executable *exe, size_t entry);

/* An argument's manifest: name, dtype (VMAPC_F32...), per-example rank and
 * dims, mapped axis (VMAPC_NO_AXIS if none), and for an output the input
 * whose bytes it takes (VMAPC_NOT_DONATED if none). The pointers stay valid
 * as long as the executable.
 *
 * Donation (`donate=` in the export): an output with donated_from = k is
 * computed in input k's buffer. Pass the same buffer (pointer and shape) as
 * input k and as that output; afterwards it holds the output. Two separate
 * buffers that do not overlap also work (the input is then copied into the
 * output first and left unchanged). A donated input overlapping any other
 * argument is VMAPC_STATUS_INVALID_ARGUMENT. */
enum { VMAPC_NOT_DONATED = -1 };
typedef struct {
  const char *name;
  int dtype;
  size_t rank;
  const int64_t *dims;
  int32_t mapped_axis;
  int32_t donated_from;
} vmapc_arg_info;
/* is_output selects the outputs; returns an error for a bad index. */
vmapc_status vmapc_entry_arg(const vmapc_executable *exe, size_t entry,
                             int is_output, size_t index, vmapc_arg_info *out);

/* Caller-owned dense C-order host arrays. */
typedef struct {
  const void *data;
  int dtype;
  size_t rank;
  const int64_t *shape;
} vmapc_host_array;
typedef struct {
  void *data;
  int dtype;
  size_t rank;
  const int64_t *shape;
} vmapc_mutable_host_array;

/* Runs an entry on N examples (see Runtime.h). Allocates nothing on
 * success. */
vmapc_status vmapc_run(vmapc_executable *exe, size_t entry,
                       const vmapc_host_array *inputs, size_t num_inputs,
                       const vmapc_mutable_host_array *outputs,
                       size_t num_outputs);

/* How a run takes its arrays (RunOptions in Runtime.h); all zero = host
 * arrays on the executable's own stream, as vmapc_run. CUDA devices only:
 * device_arrays != 0 means every `data` is a device address (CUdeviceptr)
 * on the executable's device; stream is a CUstream to run on. */
typedef struct {
  int device_arrays;
  void *stream;
} vmapc_run_options;
/* vmapc_run with `options` (NULL: the defaults). */
vmapc_status vmapc_run_with_options(vmapc_executable *exe, size_t entry,
                                    const vmapc_host_array *inputs,
                                    size_t num_inputs,
                                    const vmapc_mutable_host_array *outputs,
                                    size_t num_outputs,
                                    const vmapc_run_options *options);

/* Stats in Runtime.h. */
typedef struct {
  uint64_t arena_bytes;
  uint64_t allocations;
  uint64_t calls;
  uint64_t launches;
  uint64_t examples;
  uint64_t device_allocations;
  uint64_t bytes_to_device;
  uint64_t bytes_from_device;
} vmapc_stats;
void vmapc_executable_stats(const vmapc_executable *exe, vmapc_stats *out);

/* The code object the device chose when it loaded `exe`: its ISA level
 * ("x86-64", "x86-64-v3", "x86-64-v4"), or on CUDA its SM architecture and
 * how it loaded ("sm_90 (cubin)", "sm_90 (PTX JIT)"). Valid while `exe`
 * lives; "" for a null `exe`. */
const char *vmapc_executable_code_level(const vmapc_executable *exe);

/* What `device` is, for people: e.g. "cpu: 2 threads, x86-64-v4 (AVX-512)".
 * Valid while `device` lives; "" for a null `device`. */
const char *vmapc_device_description(const vmapc_device *device);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VMAPC_RUNTIME_C_H */
