//===- ArtifactReader.h - bytes to an Artifact ------------------*- C++ -*-===//
//
// The runtime's reader of ArtifactFormat.h's bytes: the header first (a
// file is read no further than the size it declares), then the manifest,
// every field bounds-checked, then the whole artifact validated
// (ArtifactValidator.h: the same rules the writer applies).
//
// Internal: not installed (Executable::loadBytes and loadFile read
// artifacts for a host program).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARTIFACTREADER_H
#define VMAPC_ARTIFACTREADER_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/HostBuffer.h"
#include "vmapc/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace vmapc {

/// Checks the fixed header at the start of a file of which `size` bytes are
/// at `data` (at least the first min(size, kHeaderBytes)): the magic, the
/// version, and that the file size it declares is possible (at least
/// kHeaderBytes + kChecksumBytes, below kMaxArrayBytes), which it stores in
/// `*fileSize`. A reader calls this before it reads, or allocates for, the
/// rest of a file. Errors: kDataLoss "truncated artifact: N bytes, smaller
/// than the 72-byte minimum", "bad magic: not a .vmapc artifact", "declared
/// file size N is ...", kUnimplemented "runtime supports format 4, artifact
/// has N", kOutOfRange for a file size not below kMaxArrayBytes.
Status checkArtifactHeader(const void *data, size_t size, uint64_t *fileSize);

/// Reads the artifact file at `path` into `*bytes`: its header first
/// (checkArtifactHeader), then exactly the file size the header declares,
/// allocated as a HostBuffer. Never reads or allocates past that size: a
/// file shorter or longer than declared is an error before anything large
/// is allocated (for a regular file) or as soon as it shows (a pipe). Every
/// message starts with "PATH: ". Errors: those of FileReader::open
/// (kNotFound "cannot open: ...", kInvalidArgument "is a directory", ...),
/// of checkArtifactHeader and HostBuffer::allocate, kDataLoss "truncated
/// artifact: header says N bytes, got M", "artifact has N trailing bytes
/// after its declared size of M" (or "more bytes than its declared size of
/// M" for a stream).
Status readArtifactFile(const std::string &path, HostBuffer *bytes);

/// Parses and fully validates `size` bytes at `data` into `*out`. Errors:
/// those of checkArtifactHeader; kDataLoss "truncated artifact: header says
/// N bytes, got M", "artifact has N trailing bytes ...", "checksum mismatch:
/// the artifact is corrupt", and a message naming the offending field for a
/// field out of bounds or a broken rule; kUnimplemented "code object #I:
/// unsupported kind N (...)" or an unknown ISA level; kOutOfRange for a size
/// past a limit.
Status parseArtifact(const void *data, size_t size, Artifact *out);

/// As parseArtifact, but leaves every `CodeObject::bytes` empty and sets
/// `(*code)[i]` to code object i's bytes inside `data` (valid as long as
/// `data` is): for a loader that hands the code on without a copy.
Status parseArtifactInPlace(const void *data, size_t size, Artifact *out,
                            std::vector<std::string_view> *code);

} // namespace vmapc

#endif // VMAPC_ARTIFACTREADER_H
