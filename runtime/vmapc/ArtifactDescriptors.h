//===- ArtifactDescriptors.h - the code's descriptors, checked --*- C++ -*-===//
//
// A code object carries descriptors (ArtifactFormat.h, "The entry
// descriptor"; KernelDescriptor) that the compiler writes from the planned
// entries and kernels, and that the loader checks against the manifest, so
// that a manifest edited apart from its code is refused. This is the
// runtime's side: the schedule digest and the checks. The words the
// compiler writes are ArtifactWriter.h's.
//
// Internal: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARTIFACTDESCRIPTORS_H
#define VMAPC_ARTIFACTDESCRIPTORS_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vmapc {

/// A digest of what `entry` computes and where, as the code was compiled
/// for it: FNV-1a 64 over a canonical encoding (u64 little-endian words) of
/// B, the padding flag, the arena bytes, every argument's dtype, shape,
/// mapped axis and staging offset, and every command of the schedule: a
/// dispatch's kernel (by name, from `kernels`), its bindings (kind, index,
/// offset) and scalars (kind, loop); a loop's trip count and body size.
/// The kernels' own fields (grids, binding bytes and accesses, scratch)
/// are their descriptors'. Requires a schedule valid against `kernels`.
uint64_t scheduleDigest(const EntryInfo &entry,
                        const std::vector<KernelInfo> &kernels);

/// Checks the `size` bytes at `data`, the code's descriptor of `entry`
/// (validated), against the manifest. Errors (kDataLoss): "the code's
/// descriptor is N bytes, fewer than the M its counts need", "... has a bad
/// magic", "... has version
/// N (this runtime reads 2)", "the manifest disagrees with the code: FIELD:
/// X in the manifest, Y in the code" for FIELD "batch size", "arena bytes",
/// "input count", "output count", "bytes per example of input 'x'", "mapped
/// axis of output 'y'", ..., and "the manifest's schedule, arguments or
/// arena are not those the code was compiled for (digest ...)".
Status checkEntryDescriptor(const EntryInfo &entry,
                            const std::vector<KernelInfo> &kernels,
                            const void *data, size_t size);

/// Checks the `size` bytes at `data`, the code's descriptor of `kernel`
/// (validated), against the manifest. Errors (kDataLoss): "kernel 'k': the
/// code's descriptor is N bytes, fewer than the M its header needs", "...
/// has a bad magic", "kernel 'k': the manifest disagrees with the code:
/// FIELD: X in the manifest, Y in the code" for FIELD "binding count",
/// "scalar count", "workgroup count along dimension D", "bytes of binding
/// I", "access of binding I ...", and "the manifest gives N bytes of
/// scratch, the code needs M", "the launch record (block X x Y x Z, S
/// shared bytes) is not the code's (...)". With `codeAccess`, sets it to
/// the code's access of each binding (a subset of the manifest's).
/// `launch` is the object's launch record of the kernel (CUDA), or the
/// default (1 x 1 x 1, 0 bytes) on the CPU.
Status checkKernelDescriptor(const KernelInfo &kernel, const void *data,
                             size_t size,
                             std::vector<BindingAccess> *codeAccess = nullptr,
                             const GpuLaunch &launch = {});

} // namespace vmapc

#endif // VMAPC_ARTIFACTDESCRIPTORS_H
