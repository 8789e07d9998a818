//===- CpuDevice.h - the CPU backend (internal) -----------------*- C++ -*-===//
//
// The `cpu` device: a thread pool made when the device is opened (all the
// hardware threads this process may use, or `threads=K`), and, per loaded
// artifact, the code object of the best ISA level the host supports (or a
// lower one the caller forces), its kernels checked against their
// descriptors, and the arena.
//
// Device string: "cpu" or "cpu:OPTION,OPTION..." with
//   threads=K   K worker threads (1 <= K <= 1024);
//   isa=LEVEL   use the code object for LEVEL (x86-64, x86-64-v3,
//               x86-64-v4) rather than the best the CPU supports; an error
//               if the artifact has no such object or the CPU lacks what it
//               needs.
// The environment variables VMAPC_CPU_THREADS and VMAPC_CPU_ISA give the
// same options to a device string that does not (each variable one value;
// an error in one names it: "VMAPC_CPU_ISA: cpu device: isa must be ...").
//
// Each dispatch runs its workgroups on the pool — the calling thread and the
// workers, or the workers alone for a kernel whose per-workgroup scratch is
// too large for a host thread's stack (over 256 KiB) — and returns when all
// are done. Nothing is allocated and no thread is created per dispatch.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CPU_CPUDEVICE_H
#define VMAPC_CPU_CPUDEVICE_H

#include "vmapc/Backend.h"

namespace vmapc {
namespace cpu {

/// Opens a CPU device from the options after "cpu:" (empty for none).
/// Errors: kInvalidArgument for an unknown option or a bad value,
/// kResourceExhausted when the threads cannot be started.
Status openCpuDevice(std::string_view options,
                     std::shared_ptr<backend::Device> *out);

/// The index in `artifact.codeObjects` of the CPU code object to run: the
/// one for `forcedLevel` when given, else the highest level whose features
/// `supports` all (hostSupports by default); CUDA objects are skipped.
/// Errors: kFailedPrecondition when none can run ("the artifact has no code
/// for the CPU (it was compiled with --target=cuda)" when it has CUDA code
/// only), kNotFound for a forced level the artifact lacks.
Status chooseCodeObject(const Artifact &artifact, std::string_view forcedLevel,
                        size_t *index,
                        bool (*supports)(const std::string &) = nullptr);

} // namespace cpu
} // namespace vmapc

#endif // VMAPC_CPU_CPUDEVICE_H
