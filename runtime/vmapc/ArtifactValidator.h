//===- ArtifactValidator.h - the artifact's semantic rules ------*- C++ -*-===//
//
// The rules of ArtifactFormat.h ("Semantic rules") on an Artifact in memory,
// checked by the writer before it writes one (ArtifactWriter.h) and by the
// reader after it parses one (ArtifactReader.h), so that the writer never
// produces a file the reader rejects. What a code object's level, CPU
// features, launch records and bytes must be is its backend's to say: the
// validator asks codeObjectCheck (CodeObjectCheck.h) for each object's
// kind and knows nothing of ELF, cubins or PTX.
//
// Internal: not installed (the compiler includes it for validateEntry).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARTIFACTVALIDATOR_H
#define VMAPC_ARTIFACTVALIDATOR_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/Status.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace vmapc {

/// Checks the semantic rules above (names, counts, ranks, dims, axes, sizes,
/// staging slots, code header, launch records). Does not check the host CPU
/// or GPU. Errors are kOutOfRange past a limit, kUnimplemented for an
/// unknown code kind or CPU ISA level, else kInvalidArgument, with a message
/// naming the field: e.g. "code object #1 (sm_90): kernel 'k': a block of
/// 2048 threads (64 x 32 x 1), more than 1024", "input 'x' of entry 'e' has
/// no staging slot, which a CUDA code object needs".
Status validateArtifact(const Artifact &artifact);

/// The rules of one kernel alone.
Status validateKernel(const KernelInfo &kernel);

/// The rules of one entry alone (everything but the uniqueness of its name),
/// its schedule against `kernels`; the compiler reports them at the entry's
/// source location. Kernels whose grids (0 counts) or binding accesses
/// (none) are not known yet, as the compiler's before lowering, are checked
/// for the rest; validateArtifact (and so serializeArtifact and the loader)
/// requires both.
Status validateEntry(const EntryInfo &entry,
                     const std::vector<KernelInfo> &kernels);

/// validateArtifact with the code objects' bytes given apart: object i's
/// bytes are `code[i]`, whatever its `CodeObject::bytes` holds (the reader's
/// parseArtifactInPlace leaves them empty).
Status validateArtifactCode(const Artifact &artifact,
                            const std::vector<std::string_view> &code);

/// The access rules of `entry`'s (otherwise valid) schedule with `kernels`'
/// binding accesses: no input is bound to a binding its kernel writes, and
/// every output of one byte or more is written by a dispatch that runs.
/// validateEntry applies it to the manifest's accesses; a loader applies it
/// again to its code object's (checkKernelDescriptor's `codeAccess`),
/// which may do less than the manifest says of all objects together.
/// Errors (kInvalidArgument): "entry 'e' schedule command 0 binding 1:
/// kernel 'k' writes this binding, which is bound to input #0 ...",
/// "entry 'e' schedule: no dispatch writes output #1 'y'".
Status validateAccess(const EntryInfo &entry,
                      const std::vector<KernelInfo> &kernels);

/// The error for code object #`index` of kind `kind`, which this runtime
/// does not know (kUnimplemented): the reader stops at it, since it cannot
/// know the size of its fields.
Status unsupportedCodeKind(size_t index, uint32_t kind);

} // namespace vmapc

#endif // VMAPC_ARTIFACTVALIDATOR_H
