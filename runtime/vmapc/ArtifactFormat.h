//===- ArtifactFormat.h - The .vmapc artifact format, version 2 -*- C++ -*-===//
//
// This header is THE definition of the `.vmapc` file format. The compiler
// writes artifacts with `serializeArtifact`; the runtime reads them with
// `parseArtifact`. Both share one validator, so the writer can never produce a
// file that the reader rejects. Any change to the bytes below must bump
// `kFormatVersion`; a runtime refuses any other version with "runtime supports
// format X, artifact has Y".
//
// An artifact is code: loading one runs it, as dlopen does. The checksum and
// the checks below catch corruption and an artifact that disagrees with
// itself, not deliberate tampering (see docs/runtime.md, "Trust model").
//
// ## File layout (format version 2)
//
// All integers are little-endian. Offsets and sizes are in bytes, counted from
// the first byte of the file.
//
//   Offset  Size  Field
//   ------  ----  -----------------------------------------------------------
//        0     8  magic: the bytes 'V' 'M' 'A' 'P' 'C' 0 0 0
//        8     4  u32 format version (= 2)
//       12     4  u32 target (1 = cpu-x86_64; see `Target`)
//       16     8  u64 manifest offset (= 64: the manifest follows the header)
//       24     8  u64 manifest size
//       32     8  u64 code offset (= manifest offset + manifest size, rounded
//                 up to a multiple of 16; the gap is zero bytes)
//       40     8  u64 code size (> 0)
//       48     8  u64 file size (= code offset + code size + 8; below
//                 kMaxArrayBytes)
//       56     8  u64 reserved, must be 0
//       64     .  manifest (below)
//        .     .  zero padding to the code offset
//        .     .  code: for cpu-x86_64 a position-independent x86-64 ELF shared
//                 object (ET_DYN), exporting one C symbol per entry
//  size-8      8  u64 checksum: FNV-1a 64 (`fnv1a64`) of bytes [0, size - 8)
//
// ## Manifest encoding
//
// A `str` is a u32 byte length followed by that many bytes (UTF-8, no NUL
// byte, no terminator), at most `kMaxNameBytes` bytes and never empty.
//
//   u32 cpu feature count F (<= kMaxCpuFeatures), then F `str`s: the CPU
//       features the code needs, names as GCC's __builtin_cpu_supports spells
//       them ("sse2", "avx2", "fma", ...). The loader rejects unknown names and
//       features the host lacks.
//   u32 entry count E (1 <= E <= kMaxEntries), then E entries:
//     str  entry name (unique in the artifact)
//     str  code symbol name (the exported C function)
//     u32  batch size B (>= 1): examples per launch
//     u64  arena bytes: size of the arena the code needs (may be 0)
//     u64  lower bound bytes (report only: largest sum of bytes live at once)
//     u64  naive sum bytes (report only: sum of all buffers without reuse)
//     u32  in-place count (report only: buffers written over an operand)
//     u32  input count I, u32 output count O (each <= kMaxArgs)
//     I input args then O output args, each:
//       str  name (unique among the entry's inputs, resp. outputs)
//       u8   dtype (`DType`: 1 = f32, 2 = i32, 3 = bool stored as 1 byte 0/1)
//       u8   per-example rank R (<= kMaxRank, < kMaxRank if mapped, so
//            that the batched array has at most kMaxRank dims; 0 is a scalar)
//       u16  reserved, must be 0
//       i32  mapped axis: -1 = none (unbatched), else in [0, R]: where the
//            batch dimension sits in the batched array (of rank R + 1)
//       u64  staging offset into the arena, or 0xFFFFFFFFFFFFFFFF = none
//       R x i64  per-example dims (each >= 0; an array with a 0 dim is
//                empty, and the runtime neither copies nor loops over it)
//
// The manifest must be consumed exactly: trailing manifest bytes are an error.
//
// ## Semantic rules (checked by `validateArtifact`, on write and on read)
//
// * The one size limit: every byte count the writer, the reader and the
//   runtime compute is below kMaxArrayBytes (2^62), checked with overflow-
//   safe arithmetic (`checkedMulBytes`, `checkedAddBytes`, `arrayBytes`):
//   the bytes of one example (dims x dtype size), of a batched array (x B),
//   the end of a staging slot (offset + bytes), an arena, a whole file.
//   Anything past it is an error (kOutOfRange), never a wrapped-around
//   size. An array with a 0 dim holds 0 bytes, but the product of its other
//   dims (x dtype size, x B) is bounded the same way, so no count derived
//   from a shape is absurd.
// * Every mapped argument has a staging slot, and every staging slot
//   (mapped or not) fits in the arena: offset + B x example bytes <= arena
//   bytes. The input staging slots of one entry do not overlap one another,
//   nor do its output slots (an input slot may share bytes with an output
//   slot or the entry's internal buffers: the plan gives them disjoint live
//   intervals, and the runtime fills every input slot before a launch and
//   reads every output slot after it). The
//   runtime gathers a chunk into its slot when it cannot pass the user's
//   buffer in place (the padded last chunk, a mapped axis that is not
//   outermost) and scatters outputs back from theirs.
// * Unmapped arguments are passed once, in place; their staging offset is
//   normally none and is ignored.
//
// ## Calling convention of the code (the ABI the compiler emits)
//
// Per entry the code exports `extern "C" void SYMBOL(void **args)` where args
// = [input pointers in declaration order..., output pointers in order...,
// arena pointer]. Each pointer is a dense C-order buffer of its batched type:
// the per-example shape with B inserted at its mapped axis (an unmapped
// argument has its per-example shape). The arena is `arena bytes` long and
// 256-byte aligned. The code may read inputs and write outputs and the arena
// only; it must call nothing but libc and libm. One call computes B examples.
//
// ## The entry descriptor (version 1)
//
// Next to each entry function SYMBOL, the code exports a read-only object
// SYMBOL + "_descriptor" (kDescriptorSuffix): what the code itself was
// compiled for, written by the compiler (passes/EmitEntryDescriptors.cpp)
// from the planned program's types, apart from the manifest. It is an array
// of u64 words (host byte order, 8-byte aligned), `EntryDescriptorHeader`
// then one `ArgDescriptor` per input, then per output:
//
//   Word  Field
//   ----  ------------------------------------------------------------------
//      0  magic (kEntryDescriptorMagic, the bytes "VMAPCDSC")
//      1  descriptor version (kEntryDescriptorVersion = 1)
//      2  batch size B
//      3  arena bytes
//      4  input count I
//      5  output count O
//   6+2k  argument k (inputs, then outputs): bytes of one example
//   7+2k  argument k: mapped axis (as i64; -1 = none)
//
// The loader (Executable::loadBytes) resolves it in the code object (an
// ELF object symbol of at least (6 + 2 (I + O)) x 8 bytes) and refuses, as
// kDataLoss naming the field, a manifest that disagrees with it: a manifest
// edited apart from its code would make the runtime pass buffers of the
// wrong size. Like the checksum, it catches mismatch, not tampering.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARTIFACTFORMAT_H
#define VMAPC_ARTIFACTFORMAT_H

#include "vmapc/HostBuffer.h"
#include "vmapc/Status.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmapc {

/// The 8 magic bytes at offset 0.
inline constexpr char kArtifactMagic[8] = {'V', 'M', 'A', 'P', 'C', 0, 0, 0};
/// The format version this runtime reads and writes.
inline constexpr uint32_t kFormatVersion = 2;
/// Size of the fixed header; the manifest starts here.
inline constexpr uint64_t kHeaderBytes = 64;
/// The code offset is a multiple of this.
inline constexpr uint64_t kCodeAlignment = 16;
/// Size of the trailing checksum.
inline constexpr uint64_t kChecksumBytes = 8;

/// Limits enforced by the validator (past them: kOutOfRange).
inline constexpr size_t kMaxRank = 16;
inline constexpr size_t kMaxNameBytes = 4096;
inline constexpr size_t kMaxCpuFeatures = 256;
inline constexpr size_t kMaxEntries = 65536;
/// Inputs of an entry, and (separately) its outputs.
inline constexpr size_t kMaxArgs = 4096;
/// The one size limit: every byte count computed from an artifact, a .npy
/// file or a caller's shape (an example, a batched array, a staging slot's
/// end, an arena, a file) is below this. 2^62, so that the sum of two such
/// counts never overflows 64 bits.
inline constexpr uint64_t kMaxArrayBytes = uint64_t(1) << 62;

/// Alignment of the arena the runtime passes to the code.
inline constexpr size_t kArenaAlignment = 256;

/// Sentinel values in `ArgInfo`.
inline constexpr int32_t kNoAxis = -1;
inline constexpr uint64_t kNoStaging = ~uint64_t(0);

/// What the code runs on.
enum class Target : uint32_t {
  CpuX86_64 = 1, ///< An x86-64 ELF shared object, loaded with dlopen.
};

/// Element types. Stored as one byte in the manifest.
enum class DType : uint8_t {
  F32 = 1,  ///< IEEE binary32, 4 bytes.
  I32 = 2,  ///< Two's complement int32, 4 bytes.
  Bool = 3, ///< One byte, 0 or 1.
};

/// Bytes per element of `dtype` (0 for an invalid value).
size_t dtypeBytes(DType dtype);
/// "f32", "i32", "bool" (or "invalid").
const char *dtypeName(DType dtype);

/// One input or output of an entry.
struct ArgInfo {
  std::string name;
  DType dtype = DType::F32;
  /// Per-example shape (rank 0 = scalar); the batch axis is NOT included.
  std::vector<int64_t> shape;
  /// Position of the batch axis in the batched array, in [0, shape.size()],
  /// or kNoAxis for an argument shared by all examples (input) or computed
  /// once (output).
  int32_t mappedAxis = kNoAxis;
  /// Byte offset of this argument's staging slot in the arena (room for B
  /// examples, in the batched layout), or kNoStaging.
  uint64_t stagingOffset = kNoStaging;

  bool isMapped() const { return mappedAxis != kNoAxis; }
  bool hasStaging() const { return stagingOffset != kNoStaging; }
};

/// One exported entry point.
struct EntryInfo {
  std::string name;   ///< As exported in the .arr source.
  std::string symbol; ///< The C symbol in the code object.
  uint32_t batchSize = 1;
  uint64_t arenaBytes = 0;
  uint64_t lowerBoundBytes = 0; ///< Report only.
  uint64_t naiveSumBytes = 0;   ///< Report only.
  uint32_t inPlaceCount = 0;    ///< Report only.
  std::vector<ArgInfo> inputs;
  std::vector<ArgInfo> outputs;
};

/// A whole artifact in memory: plain data, fill it in and serialize it.
struct Artifact {
  Target target = Target::CpuX86_64;
  std::vector<std::string> cpuFeatures;
  std::vector<EntryInfo> entries;
  /// The code object's bytes (an ELF shared object for CpuX86_64).
  std::string code;
};

/// Appended to an entry's code symbol to name its descriptor.
inline constexpr char kDescriptorSuffix[] = "_descriptor";
/// Word 0 of every entry descriptor: the bytes "VMAPCDSC", little-endian.
inline constexpr uint64_t kEntryDescriptorMagic = 0x4353444350414d56ull;
/// The descriptor version this runtime reads and the compiler writes.
inline constexpr uint64_t kEntryDescriptorVersion = 1;

/// The first words of an entry descriptor (see above).
struct EntryDescriptorHeader {
  uint64_t magic;      ///< kEntryDescriptorMagic.
  uint64_t version;    ///< kEntryDescriptorVersion.
  uint64_t batchSize;  ///< B.
  uint64_t arenaBytes; ///< Bytes of the arena the code uses.
  uint64_t numInputs;
  uint64_t numOutputs;
};
/// One argument of an entry descriptor.
struct ArgDescriptor {
  uint64_t exampleBytes; ///< Bytes of one example (dims x dtype size).
  int64_t mappedAxis;    ///< The batch axis, or kNoAxis.
};
static_assert(sizeof(EntryDescriptorHeader) == 48 &&
                  sizeof(ArgDescriptor) == 16,
              "the descriptor is an array of u64 words");

/// The words of an entry descriptor, as the compiler writes them.
std::vector<uint64_t>
entryDescriptorWords(uint64_t batchSize, uint64_t arenaBytes,
                     const std::vector<ArgDescriptor> &inputs,
                     const std::vector<ArgDescriptor> &outputs);

/// Checks the `size` bytes at `data`, the code's descriptor of `entry`
/// (validated), against the manifest. Errors (kDataLoss): "the code's
/// descriptor is N bytes, fewer than the M its counts need", "... has a bad
/// magic", "... has version
/// N (this runtime reads 1)", "the manifest disagrees with the code: FIELD:
/// X in the manifest, Y in the code" for FIELD "batch size", "arena bytes",
/// "input count", "output count", "bytes per example of input 'x'", "mapped
/// axis of output 'y'", ...
Status checkEntryDescriptor(const EntryInfo &entry, const void *data,
                            size_t size);

/// FNV-1a 64 of `size` bytes (offset basis 0xcbf29ce484222325, prime
/// 0x100000001b3).
uint64_t fnv1a64(const void *data, size_t size);

/// `a * b` if it is below kMaxArrayBytes, else nullopt (also on overflow).
std::optional<uint64_t> checkedMulBytes(uint64_t a, uint64_t b);
/// `a + b` if it is below kMaxArrayBytes, else nullopt (also on overflow).
std::optional<uint64_t> checkedAddBytes(uint64_t a, uint64_t b);
/// Bytes of a dense array of `dtype` with `rank` dims: 0 if a dim is 0;
/// nullopt for an invalid dtype, a negative dim, or when the product of the
/// non-zero dims times the dtype size is not below kMaxArrayBytes (so an
/// empty array's other dims are bounded too).
std::optional<uint64_t> arrayBytes(DType dtype, const int64_t *dims,
                                   size_t rank);

/// Checks the semantic rules above (names, counts, ranks, dims, axes, sizes,
/// staging slots, code header). Does not check the host CPU. Errors are
/// kOutOfRange past a limit, else kInvalidArgument, with a message naming
/// the field.
Status validateArtifact(const Artifact &artifact);

/// The rules of one entry alone (everything but the uniqueness of its name);
/// the compiler reports them at the entry's source location.
Status validateEntry(const EntryInfo &entry);

/// Validates `artifact` and writes its bytes to `*out`.
Status serializeArtifact(const Artifact &artifact, std::string *out);

/// Serializes `artifact` into the file at `path` (replacing it).
Status writeArtifactFile(const Artifact &artifact, const std::string &path);

/// Checks the fixed header at the start of a file of which `size` bytes are
/// at `data` (at least the first min(size, kHeaderBytes)): the magic, the
/// version, and that the file size it declares is possible (at least
/// kHeaderBytes + kChecksumBytes, below kMaxArrayBytes), which it stores in
/// `*fileSize`. A reader calls this before it reads, or allocates for, the
/// rest of a file. Errors: kDataLoss "truncated artifact: N bytes, smaller
/// than the 72-byte minimum", "bad magic: not a .vmapc artifact", "declared
/// file size N is ...", kUnimplemented "runtime supports format 2, artifact
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
/// field out of bounds or a broken rule; kUnimplemented "unsupported target
/// N"; kOutOfRange for a size past a limit.
Status parseArtifact(const void *data, size_t size, Artifact *out);

/// As parseArtifact, but leaves `out->code` empty and sets `*code` to the
/// code's bytes inside `data` (valid as long as `data` is): for a loader
/// that hands the code on without a copy.
Status parseArtifactInPlace(const void *data, size_t size, Artifact *out,
                            std::string_view *code);

/// Bytes of one example of `arg` (product of dims x dtype size), or -1 if
/// the product is not below kMaxArrayBytes (or a dim is negative).
int64_t exampleBytes(const ArgInfo &arg);

/// The shape `run` expects for `arg` on `n` examples: the per-example shape
/// with `n` inserted at the mapped axis (unmapped: the per-example shape).
std::vector<int64_t> batchedShape(const ArgInfo &arg, int64_t n);

} // namespace vmapc

#endif // VMAPC_ARTIFACTFORMAT_H
