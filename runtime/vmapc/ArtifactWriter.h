//===- ArtifactWriter.h - the compiler's side of the artifact ---*- C++ -*-===//
//
// What the compiler writes: an Artifact's bytes (validated first, with the
// reader's validator, ArtifactValidator.h), and the descriptor words it
// compiles into every code object (ArtifactFormat.h, KernelDescriptor and
// "The entry descriptor"), which the loader checks (ArtifactDescriptors.h).
//
// Internal: the static library vmapc_artifact_writer, which the compiler,
// the runtime's tests and the fuzzers link; neither installed nor exported
// (a host program reads artifacts, it does not write them).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARTIFACTWRITER_H
#define VMAPC_ARTIFACTWRITER_H

#include "vmapc/ArtifactDescriptors.h"
#include "vmapc/ArtifactFormat.h"
#include "vmapc/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmapc {

/// Validates `artifact` and writes its bytes to `*out`.
Status serializeArtifact(const Artifact &artifact, std::string *out);

/// Serializes `artifact` into the file at `path` (replacing it).
Status writeArtifactFile(const Artifact &artifact, const std::string &path);

/// The descriptor of `kernel` (its counts, grid, binding bytes and
/// accesses) with `scratchBytes` and `launch`, as u64 words (the u32
/// fields in pairs, little-endian): what the compiler writes.
std::vector<uint64_t> kernelDescriptorWords(const KernelInfo &kernel,
                                            uint64_t scratchBytes,
                                            const GpuLaunch &launch = {});

/// The words of `entry`'s descriptor, as the compiler writes them.
std::vector<uint64_t>
entryDescriptorWords(const EntryInfo &entry,
                     const std::vector<KernelInfo> &kernels);

} // namespace vmapc

#endif // VMAPC_ARTIFACTWRITER_H
