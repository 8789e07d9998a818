/*===- vmapc_runtime.h - The vmapc embeddable runtime (C API) ------------===*
 *
 * A C view of the C++ runtime in Runtime.h (a thin layer over it, no second
 * implementation); everything a C host needs is written here, and
 * docs/runtime.md ("A C host, step by step") walks through a whole host.
 *
 *   vmapc_device *cpu; vmapc_executable *exe; size_t entry;
 *   vmapc_status s = vmapc_device_open("cpu", &cpu);
 *   if (!s) s = vmapc_executable_load_file(cpu, "knn.vmapc", &exe);
 *   if (!s) s = vmapc_find_entry(exe, "classify", &entry);
 *   ... q: N x 64 f32 (mapped), refs: 1000 x 64 f32 (unmapped), out: N i32
 *   if (!s) s = vmapc_run(exe, entry, inputs, 2, outputs, 1);
 *   if (s) { fprintf(stderr, "%s\n", vmapc_status_message(s));
 *            vmapc_status_free(s); }
 *
 * Shapes. An entry maps its arguments over examples (the export's in_axes
 * and out_axes); vmapc_entry_arg gives each argument's dtype, per-example
 * dims and mapped axis. The caller passes dense C-order arrays:
 *   - a mapped argument (mapped_axis = a >= 0) has the per-example dims with
 *     N, the number of examples, inserted at position a: per-example [64]
 *     mapped at 0 is [N, 64]; per-example [3, 5] mapped at 1 is [3, N, 5];
 *   - an unmapped input (mapped_axis = VMAPC_NO_AXIS) has its per-example
 *     dims exactly and is shared by every example (on the CPU it is read in
 *     place, never copied); an unmapped output is computed once, with its
 *     per-example dims.
 * N is the size of the mapped inputs' mapped axes (they must agree); with no
 * mapped input, the mapped outputs' (which must agree); with neither, N = 0.
 * Any N >= 0 runs, in chunks of the entry's batch size
 * (vmapc_entry_batch_size) through one arena allocated at load. A wrong
 * count, dtype, rank or dimension is VMAPC_STATUS_INVALID_ARGUMENT naming
 * the argument, and nothing is written then.
 *
 * Dtypes: VMAPC_F32 (float, 4 bytes), VMAPC_I32 (int32_t, 4 bytes),
 * VMAPC_BOOL (1 byte, 0 or 1). Sizes in vmapc_stats are bytes.
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
 * Thread safety. A device may be shared by executables
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

/* What kind of error a status is (the values are absl::StatusCode's). */
typedef enum {
  VMAPC_STATUS_OK = 0,
  /* A wrong argument: an array's dtype, rank, shape or count, a null
   * pointer, an entry index of another executable. */
  VMAPC_STATUS_INVALID_ARGUMENT = 3,
  /* An unknown entry or device, a missing file. */
  VMAPC_STATUS_NOT_FOUND = 5,
  /* A file the process may not read. */
  VMAPC_STATUS_PERMISSION_DENIED = 7,
  /* An allocation failed or would pass the process's memory limit (the
   * arena, at load). */
  VMAPC_STATUS_RESOURCE_EXHAUSTED = 8,
  /* The host cannot run valid code: the CPU lacks a feature it needs. */
  VMAPC_STATUS_FAILED_PRECONDITION = 9,
  /* A size or count past a documented limit (docs/runtime.md, "Limits"). */
  VMAPC_STATUS_OUT_OF_RANGE = 11,
  /* Valid input this runtime does not support: another artifact format
   * version or target. */
  VMAPC_STATUS_UNIMPLEMENTED = 12,
  /* A bug in the runtime. */
  VMAPC_STATUS_INTERNAL = 13,
  /* May work later: an I/O error; no CUDA device; the executable is running
   * a call on another thread. */
  VMAPC_STATUS_UNAVAILABLE = 14,
  /* Bytes that are not a valid artifact: truncated, corrupt (checksum), a
   * manifest that disagrees with its code. */
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

/* Opens a device: "cpu", or "cpu:OPTIONS" with OPTIONS a comma-separated
 * list of threads=K (worker threads, 1 to 1024; default: every hardware
 * thread) and isa=LEVEL (x86-64, x86-64-v3 or x86-64-v4 rather than the
 * best the CPU has; VMAPC_CPU_THREADS and VMAPC_CPU_ISA set them when the
 * string does not); or "cuda" (= "cuda:0") or "cuda:N", GPU N through the
 * CUDA driver, loaded here with dlopen. Without a CUDA driver, "cuda" is an
 * error with code VMAPC_STATUS_UNAVAILABLE ("no CUDA device: ..."). An
 * unknown name is VMAPC_STATUS_NOT_FOUND, a bad option
 * VMAPC_STATUS_INVALID_ARGUMENT. */
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

/* Runs an entry on N examples: `inputs` and `outputs` in the entry's order
 * (vmapc_entry_arg), shaped as the file comment says ("Shapes"); the
 * outputs are written, nothing else. Allocates nothing on success. */
vmapc_status vmapc_run(vmapc_executable *exe, size_t entry,
                       const vmapc_host_array *inputs, size_t num_inputs,
                       const vmapc_mutable_host_array *outputs,
                       size_t num_outputs);

/* How a run takes its arrays; all zero = host arrays on the executable's
 * own stream, as vmapc_run. CUDA devices only:
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

/* What an executable has done, from its load: the arena's bytes, arena
 * allocations (1 after a load), successful calls, dispatches launched, the
 * sum of N, device and pinned allocations (2 on CUDA, 0 on the CPU), the
 * bytes copied to the device and back, and the chunks whose dispatch ran
 * beside other chunks' with no barrier between them (Stats::batchedChunks). */
typedef struct {
  uint64_t arena_bytes;
  uint64_t allocations;
  uint64_t calls;
  uint64_t launches;
  uint64_t examples;
  uint64_t device_allocations;
  uint64_t bytes_to_device;
  uint64_t bytes_from_device;
  uint64_t batched_chunks;
} vmapc_stats;
void vmapc_executable_stats(const vmapc_executable *exe, vmapc_stats *out);

/* The code object the device chose when it loaded `exe`: its ISA level
 * ("x86-64", "x86-64-v3", "x86-64-v4"), or on CUDA its SM architecture and
 * how it loaded ("sm_90 (cubin)", "sm_90 (PTX JIT)"). Valid while `exe`
 * lives; "" for a null `exe`. */
const char *vmapc_executable_code_level(const vmapc_executable *exe);

/* What `device` is, for people: on the CPU its threads and the ISA level
 * its executables run at, with the level's vector extension: "cpu: 2
 * threads, x86-64-v4 (AVX-512)" (x86-64-v3: "AVX2 + FMA", x86-64: "SSE2";
 * the host's best level, or the one forced with isa= or VMAPC_CPU_ISA, then
 * followed by ", forced"); on CUDA its number, name, architecture and
 * driver: "cuda:0: NVIDIA H200 (sm_90), CUDA driver 13.0". An executable
 * runs at that level when its artifact has code for it
 * (vmapc_executable_code_level says which ran). Valid while `device` lives;
 * "" for a null `device`. */
const char *vmapc_device_description(const vmapc_device *device);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* VMAPC_RUNTIME_C_H */
