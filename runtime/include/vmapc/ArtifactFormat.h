//===- ArtifactFormat.h - The .vmapc artifact format, version 7 -*- C++ -*-===//
//
// This header is THE definition of the `.vmapc` file format: its bytes
// (below), and the types and constants that hold an artifact in memory.
// It declares no reader, writer or validator; those are the runtime's own,
// each in its file beside its source (not installed): the compiler writes
// artifacts with `serializeArtifact` (ArtifactWriter.h, the static library
// vmapc_artifact_writer that the compiler links); the runtime reads them
// with `parseArtifact` (ArtifactReader.h); both call one validator
// (ArtifactValidator.h), so the writer can never produce a file that the
// reader rejects; the validator asks each code object's backend to check
// its bytes (CodeObjectCheck.h; cpu/CpuCodeCheck.h, cuda/CudaCodeCheck.h);
// ArtifactDescriptors.h checks the descriptors a code object carries. Any
// change to the bytes below must bump `kFormatVersion`; a runtime refuses
// any other version with "runtime supports format X, artifact has Y".
//
// An artifact is code: loading one runs it, as dlopen does. The checksum and
// the checks below catch corruption and an artifact that disagrees with
// itself, not deliberate tampering (see docs/runtime.md, "Trust model").
//
// What an artifact holds (docs/design.md, "Code generation"): kernels, each
// compiled into every code object (for the CPU, one x86-64 ELF shared object
// per ISA level; for CUDA, a cubin and the PTX for one SM architecture, with
// a launch record per kernel); per exported entry, its arguments, its arena
// and the schedule of dispatches of those kernels that computes a chunk of
// examples (vmapc/Schedule.h). An artifact may hold CPU objects, CUDA
// objects or both; a device loads the objects it can run.
//
// ## File layout (format version 7)
//
// All integers are little-endian. Offsets and sizes are in bytes, counted from
// the first byte of the file.
//
//   Offset  Size  Field
//   ------  ----  -----------------------------------------------------------
//        0     8  magic: the bytes 'V' 'M' 'A' 'P' 'C' 0 0 0
//        8     4  u32 format version (= 7)
//       12     4  u32 reserved, must be 0
//       16     8  u64 manifest offset (= 64: the manifest follows the header)
//       24     8  u64 manifest size
//       32     8  u64 code offset (= manifest offset + manifest size, rounded
//                 up to a multiple of 16; the gap is zero bytes)
//       40     8  u64 code size (> 0): the code objects, one after another
//       48     8  u64 file size (= code offset + code size + 8; below
//                 kMaxArrayBytes)
//       56     8  u64 reserved, must be 0
//       64     .  manifest (below)
//        .     .  zero padding to the code offset
//        .     .  code objects, at the offsets the manifest gives
//  size-8      8  u64 checksum: FNV-1a 64 (`fnv1a64`) of bytes [0, size - 8)
//
// ## Manifest encoding
//
// A `str` is a u32 byte length followed by that many bytes (UTF-8, no NUL
// byte, no terminator), at most `kMaxNameBytes` bytes and never empty.
//
//   u32 kernel count K (1 <= K <= kMaxKernels), then K kernels:
//     str  name (unique; the code exports `vmapc_kernel_` + name)
//     u32  binding count (<= kMaxBindings), u32 scalar count (<= kMaxScalars)
//     3 x i64  workgroup count along x, y, z: c > 0 workgroups, or -T (T >= 1)
//              for ceil(n / T) on a chunk of n examples
//     u64  scratch bytes: per-workgroup stack the kernel needs (CPU)
//     binding count x u64: bytes the kernel may access through each binding
//     binding count x u8: what it does through each (BindingAccess: 1 read,
//              2 write, 3 read-write)
//   u32 entry count E (1 <= E <= kMaxEntries), then E entries:
//     str  entry name (unique in the artifact)
//     u32  batch size B (>= 1): examples per chunk
//     u32  flags: bit 0 = pads partial chunks (the kernels compute all B
//          examples, so a chunk of n < B examples is padded); others 0
//     u64  arena bytes: size of the arena the schedule binds (may be 0)
//     u64  lower bound bytes (report only: largest sum of bytes live at once)
//     u64  aligned lower bound bytes (report only: the least arena any
//          packing with offsets aligned to the arena alignment reaches)
//     u64  naive sum bytes (report only: sum of all buffers without reuse)
//     u32  in-place count (report only: buffers written over an operand)
//     u32  arena alignment: a power of two from 1 to kMaxArenaAlignment;
//          every staging offset and arena binding offset is a multiple of
//          it, and the runtime allocates the arena at least this aligned
//     u32  input count I, u32 output count O (each <= kMaxArgs)
//     I input args then O output args, each:
//       str  name (unique among the entry's inputs, resp. outputs)
//       u8   dtype (`DType`: 1 = f32, 2 = i32, 3 = bool stored as 1 byte 0/1)
//       u8   per-example rank R (<= kMaxRank, < kMaxRank when mapped: the
//            batched array has R + 1 dims; 0 is a scalar)
//       u16  donor: 0, or (an output only) 1 + the index of the input whose
//            bytes the output takes (`donate=`, docs/runtime.md
//            "Donation"): the output has that input's dtype, per-example
//            shape, mapped axis (never none) and staging offset, and the
//            code computes it in the input's binding
//       i32  mapped axis: -1 = none (unbatched), else in [0, R]: where the
//            batch dimension sits in the batched array (of rank R + 1)
//       u64  staging offset into the arena, or 0xFFFFFFFFFFFFFFFF = none
//       R x i64  per-example dims (each >= 0; an array with a 0 dim is
//                empty, and the runtime neither copies nor loops over it)
//     u32  command count C (<= kMaxCommands), then C commands:
//       u8   kind (1 = dispatch, 2 = loop), u8 flags (a dispatch: bit 0 =
//            `kOncePerCallFlag`, run in a call's first chunk only; a loop:
//            0), u8 x 2 reserved (0)
//       dispatch: u32 kernel index (< K); then the kernel's binding count
//            bindings, each u8 kind (1 = input, 2 = output, 3 = arena),
//            u8 x 3 reserved, u32 index (input or output number; 0 for
//            arena), u64 offset (arena byte offset; 0 otherwise); then the
//            kernel's scalar count scalars, each u8 kind (1 = n, the
//            chunk's examples; 2 = the index of an enclosing loop), u8 x 3
//            reserved, u32 loop (2: 0 is the outermost enclosing loop)
//       loop: u64 trip count (<= kMaxTripCount), u32 body size: the next
//            that many commands (nested loops counted with their bodies)
//   u32 code object count M (1 <= M <= kMaxCodeObjects), then M objects:
//     u32  kind (`CodeKind`: 1 = x86-64 ELF shared object, 2 = CUDA cubin,
//          3 = CUDA PTX); a reader stops at another kind (it cannot know
//          the size of its fields)
//     str  level: the ISA level of a CPU object ("x86-64", "x86-64-v3",
//          "x86-64-v4"), the SM architecture of a CUDA object ("sm_90":
//          "sm_" and 2 or 3 digits)
//     u32  CPU feature count F (<= kMaxCpuFeatures), then F `str`s: what the
//          code needs, as GCC's __builtin_cpu_supports names them ("avx2",
//          "fma", "avx512f", ...); the loader skips an object the host
//          cannot run. F = 0 for a CUDA object.
//     CUDA objects (kinds 2 and 3) only: K launch records (K = the kernel
//          count), in kernel order, 16 bytes each (`GpuLaunch`):
//            u32 x 3  threads per block along x, y, z (each >= 1, their
//                     product <= kMaxGpuThreadsPerBlock = 1024)
//            u32      dynamic shared memory bytes per block
//                     (<= kMaxGpuSharedBytes = 232448)
//     u64  offset (from the code offset, a multiple of 16), u64 size (> 0)
//
// The manifest must be consumed exactly: trailing manifest bytes are an error.
//
// ## Semantic rules (checked by `validateArtifact`, on write and on read)
//
// (ArtifactValidator.h; the checks of a code object's level, CPU features,
// launch records and bytes are its backend's: CodeObjectCheck.h.)
//
// * The one size limit: every byte count the writer, the reader and the
//   runtime compute is below kMaxArrayBytes (2^62), checked with overflow-
//   safe arithmetic (`checkedMulBytes`, `checkedAddBytes`, `arrayBytes`):
//   the bytes of one example (dims x dtype size), of a batched array (x B),
//   the end of a staging slot or an arena binding (offset + bytes), an
//   arena, a whole file.
//   Anything past it is an error (kOutOfRange), never a wrapped-around
//   size. An array with a 0 dim holds 0 bytes, but the product of its other
//   dims (x dtype size, x B) is bounded the same way, so no count derived
//   from a shape is absurd.
// * The arena alignment is a power of two from 1 to kMaxArenaAlignment, and
//   every staging offset and arena binding offset is a multiple of it.
// * Every mapped argument has a staging slot, and every staging slot
//   (mapped or not) fits in the arena: offset + B x example bytes <= arena
//   bytes. The input staging slots of one entry do not overlap one another,
//   nor do its output slots (an input slot may share bytes with an output
//   slot or the entry's internal buffers: the plan gives them disjoint live
//   intervals). The runtime gathers a chunk into its slot when it cannot
//   pass the user's buffer in place (a partial chunk, a mapped axis that is
//   not outermost) and scatters outputs back from theirs.
// * Unmapped arguments are passed once, in place, on the CPU; there their
//   staging offset is normally none and is ignored.
// * An artifact with a CUDA code object gives every argument of every entry
//   (mapped or not) a staging slot: on a GPU, the code reads a copy of each
//   host array in the arena. The runtime copies an unmapped input into its
//   slot once per call, before the first chunk, so the plan keeps that slot
//   live for the whole schedule (if an output slot or an arena binding
//   shares its bytes, the runtime copies it again before every chunk).
// * Schedules: every dispatch names a kernel and gives exactly its bindings
//   and scalars; an input or output binding names an argument of the entry
//   and the kernel accesses at most that argument's bytes (B examples, or
//   one for an unmapped argument); an arena binding's offset plus the
//   kernel's bytes fit in the arena; a loop's body stays inside its
//   enclosing body, loops nest at most kMaxLoopDepth deep, a loop index
//   scalar names an enclosing loop, and the trip counts of nested loops
//   multiply to at most kMaxTripCount. No input is bound to a binding the
//   kernel writes, and every output of one byte or more is bound, in some
//   dispatch that runs (no loop of 0 trips around it), to a binding the
//   kernel writes. A dispatch runs at most kMaxWorkgroupsPerDispatch
//   workgroups for a full chunk (the product of its grid at n = B), and a
//   chunk's schedule at most kMaxWorkgroupsPerChunk (each dispatch's times
//   the trip counts around it, summed); both in checked arithmetic.
// * Kernels: workgroup counts are nonzero (a constant at most kMaxWorkgroups,
//   a tile at most B of every entry that dispatches it), scratch at most
//   kMaxScratchBytes. Code objects: known kind and level, at most one per
//   kind and level, non-empty, 16-byte aligned, inside the code and
//   disjoint. A CPU object is an x86-64 ELF shared object (ET_DYN) with no
//   launch records; a cubin is an ELF object for NVIDIA GPUs (EM_CUDA); both
//   are little-endian ELF64 whose program and section header tables, every
//   segment's file bytes and every section's (but SHT_NOBITS) lie inside
//   the object (a CPU object has a PT_LOAD segment); PTX
//   is text without a NUL byte (the loader appends the terminator the
//   driver wants); a CUDA object has no CPU features and one launch record
//   per kernel, within the limits above.
//
// ## Calling convention of the CPU code (the ABI the compiler emits)
//
// Every CPU code object exports, per kernel NAME,
//
//   extern "C" void vmapc_kernel_NAME(void *const *bindings,
//                                      const int64_t *scalars,
//                                      int64_t wg_x, int64_t wg_y,
//                                      int64_t wg_z);
//
// which runs one workgroup (x, y, z) of the kernel: `bindings` holds one
// pointer per binding (an input's or output's dense C-order buffer for the
// chunk, with B at its mapped axis; or arena + offset, aligned to the
// entry's arena alignment), `scalars` one int64 per scalar. Workgroups of one
// dispatch are independent and may run concurrently on any threads; each may
// use up to the kernel's scratch bytes of stack. And per kernel a descriptor,
//
//   extern "C" const KernelDescriptor vmapc_kernel_NAME_descriptor;
//
// (struct below), which the loader checks against the manifest's kernel, so
// that a manifest edited apart from its code is refused. The code may read
// inputs and write outputs and the arena only, through its bindings; it
// must call nothing but libc and libm.
//
// ## Calling convention of the CUDA code
//
// A cubin or PTX module holds, per kernel NAME,
//
//   .visible .entry vmapc_kernel_NAME(.param .u64 binding_0, ...,
//                                     .param .u64 binding_{B-1},
//                                     .param .u64 scalar_0, ...,
//                                     .param .u64 scalar_{S-1})
//
// one device pointer per binding (arena + offset, an argument's staging
// slot, or a caller's device array), then one s64 per scalar. The runtime
// launches it once per dispatch with gridDim = the dispatch's workgroup
// counts for the chunk (nothing when one is 0; workgroup (x, y, z) is
// blockIdx), blockDim = the object's launch record for the kernel and that
// many bytes of dynamic shared memory; dispatches run in order on one
// stream. The kernel and entry descriptors below are module globals with the
// same names and bytes (little-endian), read back at load.
//
// ## The entry descriptor (version 2)
//
// Per entry NAME, every code object also exports a read-only object
// `vmapc_entry_NAME_descriptor` (`entryDescriptorSymbol`): what the code was
// compiled for, written by the compiler (passes/EmitEntryDescriptors.cpp)
// from the planned entry, as the manifest is read (readEntry), into the code
// itself. It is an array of u64 words (host byte order, 8-byte aligned),
// `EntryDescriptorHeader` then one `ArgDescriptor` per input, then per
// output:
//
//   Word  Field
//   ----  ------------------------------------------------------------------
//      0  magic (kEntryDescriptorMagic, the bytes "VMAPCDSC")
//      1  descriptor version (kEntryDescriptorVersion = 2)
//      2  batch size B
//      3  arena bytes
//      4  input count I
//      5  output count O
//      6  schedule digest (`scheduleDigest`: the arguments' dtypes, shapes,
//         axes, staging offsets and donors, the padding flag, and every
//         command: kernel names, bindings, scalars, loops)
//   7+2k  argument k (inputs, then outputs): bytes of one example
//   8+2k  argument k: mapped axis (as i64; -1 = none)
//
// The loader (Executable::loadBytes) resolves it in the code object (an
// ELF object symbol, or a CUDA module global, of at least (7 + 2 (I + O)) x
// 8 bytes) and refuses, as kDataLoss naming the field, a manifest that
// disagrees with it: a manifest edited apart from its code would make the
// runtime pass buffers of the wrong size, bind them elsewhere, or repeat
// dispatches another number of times. With the kernel descriptors (grids,
// accesses, scratch) and the code level (`kCodeLevelSymbol`), every field
// of the manifest that the runtime acts on is the code's or is validated;
// the rest (names, the report's figures) changes no result. Like the
// checksum, it catches mismatch, not tampering.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ARTIFACTFORMAT_H
#define VMAPC_ARTIFACTFORMAT_H

#include "vmapc/Schedule.h"

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
inline constexpr uint32_t kFormatVersion = 7;
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
inline constexpr size_t kMaxKernels = 65536;
inline constexpr size_t kMaxCodeObjects = 16;
/// Bindings and scalars of one kernel.
inline constexpr size_t kMaxBindings = 1024;
inline constexpr size_t kMaxScalars = 64;
/// A dispatch command's flag: run in the first chunk of a call only
/// (Command::oncePerCall).
inline constexpr uint8_t kOncePerCallFlag = 1;

/// Commands of one schedule, and how deep its loops nest.
inline constexpr size_t kMaxCommands = 1 << 20;
inline constexpr size_t kMaxLoopDepth = 64;
/// The product of the trip counts of nested loops: no schedule repeats a
/// dispatch more often than this per chunk.
inline constexpr uint64_t kMaxTripCount = uint64_t(1) << 32;
/// Workgroups of one dispatch along one dimension (a constant count).
inline constexpr int64_t kMaxWorkgroups = int64_t(1) << 31;
/// Workgroups of one dispatch (the product of its grid) for a full chunk
/// of B examples: CUDA's grid holds 2^31 - 1 x 65535 x 65535; a CPU pool
/// runs 2^32 workgroups in minutes, not years.
inline constexpr uint64_t kMaxWorkgroupsPerDispatch = uint64_t(1) << 32;
/// Workgroups of one chunk's schedule: every dispatch's at n = B, times the
/// trip counts of the loops around it, summed (checked arithmetic).
inline constexpr uint64_t kMaxWorkgroupsPerChunk = uint64_t(1) << 40;
/// Per-workgroup scratch a CPU kernel may keep on its stack.
inline constexpr uint64_t kMaxScratchBytes = uint64_t(64) << 20;
/// Threads of one CUDA thread block (the product of its three dims), and
/// its dynamic shared memory in bytes (227 KiB, what sm_90 lets a block
/// opt in to; a device with less refuses the kernel at load).
inline constexpr uint32_t kMaxGpuThreadsPerBlock = 1024;
inline constexpr uint32_t kMaxGpuSharedBytes = 232448;
/// Inputs of an entry, and (separately) its outputs.
inline constexpr size_t kMaxArgs = 4096;
/// The one size limit: every byte count computed from an artifact, a .npy
/// file or a caller's shape (an example, a batched array, a staging slot's
/// end, an arena, a file) is below this. 2^62, so that the sum of two such
/// counts never overflows 64 bits.
inline constexpr uint64_t kMaxArrayBytes = uint64_t(1) << 62;

/// The least alignment of the arena the runtime passes to the code; an
/// entry asks for more with its arena alignment (`arenaAlignment`).
inline constexpr size_t kArenaAlignment = 256;
/// The largest arena alignment an entry may ask for (a page).
inline constexpr size_t kMaxArenaAlignment = 4096;

/// Sentinel values in `ArgInfo`.
inline constexpr int32_t kNoAxis = -1;
inline constexpr uint64_t kNoStaging = ~uint64_t(0);
/// `ArgInfo::donatedFrom` of an output that takes no input's bytes.
inline constexpr int32_t kNotDonated = -1;

/// What a code object is.
enum class CodeKind : uint32_t {
  /// A position-independent x86-64 ELF shared object (ET_DYN), loaded with
  /// dlopen, compiled for one ISA level.
  CpuElf = 1,
  /// A CUDA cubin (an ELF object for NVIDIA GPUs) for one SM architecture,
  /// loaded with cuModuleLoadData.
  CudaCubin = 2,
  /// The same kernels as PTX text (no NUL byte), which the CUDA driver
  /// compiles when it loads it (its JIT): the fallback for a device or
  /// driver that refuses the cubin.
  CudaPtx = 3,
};

/// Whether `kind` is a CUDA code object (cubin or PTX).
inline bool isCudaCode(CodeKind kind) {
  return kind == CodeKind::CudaCubin || kind == CodeKind::CudaPtx;
}
/// "x86-64 ELF", "CUDA cubin", "CUDA PTX" (or "unknown").
const char *codeKindName(CodeKind kind);

/// How a CUDA code object launches one kernel: the threads of a block and
/// its dynamic shared memory. Static shared memory is inside the kernel.
struct GpuLaunch {
  uint32_t block[3] = {1, 1, 1};
  uint32_t sharedBytes = 0;
};

/// The x86-64 ISA levels a CPU code object may be compiled for, lowest
/// first (the x86-64 psABI's micro-architecture levels).
inline constexpr const char *kCpuIsaLevels[] = {"x86-64", "x86-64-v3",
                                                "x86-64-v4"};

/// The descriptor a code object carries per kernel
/// (`vmapc_kernel_NAME_descriptor`): what the compiler built the kernel for,
/// checked against the manifest when the code is loaded.
/// The loader refuses (kDataLoss, naming the kernel and field) a manifest
/// kernel whose counts, grid, binding bytes, accesses or launch record
/// differ from the code's, or whose scratch is less than the code's (a CPU
/// worker's stack is sized from the manifest).
struct KernelDescriptor {
  /// kKernelDescriptorMagic.
  uint32_t magic;
  uint32_t numBindings;
  uint32_t numScalars;
  uint32_t reserved;
  /// As KernelInfo::workgroupCount: the grid the code's workgroups tile.
  int64_t workgroupCount[3];
  /// Per-workgroup stack scratch of this code object's kernel (CPU; 0 in
  /// a CUDA object, whose scratch is its launch record's shared memory).
  uint64_t scratchBytes;
  /// The launch the code was compiled for: a CUDA object's launch record
  /// (threads per block, dynamic shared bytes); 1, 1, 1 and 0 on the CPU.
  uint32_t block[3];
  uint32_t sharedBytes;
  /// Then `numBindings` u64s: the bytes the kernel accesses through each
  /// binding, as KernelInfo::bindingBytes; then `numBindings` u64s: what
  /// it does through each, as KernelInfo::bindingAccess.
  uint64_t bindings[1];
};
/// "VMK5": a kernel descriptor of format version 5.
inline constexpr uint32_t kKernelDescriptorMagic = 0x354b4d56;

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
  /// For an output: the index of the input whose bytes it takes
  /// (`donate=`), or kNotDonated. The caller passes one buffer as that
  /// input and this output (docs/runtime.md, "Donation").
  int32_t donatedFrom = kNotDonated;

  bool isMapped() const { return mappedAxis != kNoAxis; }
  bool isDonated() const { return donatedFrom != kNotDonated; }
  bool hasStaging() const { return stagingOffset != kNoStaging; }
};

/// One exported entry point.
struct EntryInfo {
  std::string name; ///< As exported in the .arr source.
  uint32_t batchSize = 1;
  uint64_t arenaBytes = 0;
  uint64_t lowerBoundBytes = 0;        ///< Report only.
  uint64_t alignedLowerBoundBytes = 0; ///< Report only.
  uint64_t naiveSumBytes = 0;          ///< Report only.
  uint32_t inPlaceCount = 0;           ///< Report only.
  /// Every offset into the arena (staging slots, arena bindings) is a
  /// multiple of this power of two (at most kMaxArenaAlignment).
  uint32_t arenaAlignment = 1;
  std::vector<ArgInfo> inputs;
  std::vector<ArgInfo> outputs;
  /// The dispatches that compute examples [0, n) of a chunk.
  std::vector<Command> schedule;
  /// The kernels compute all B lanes, so a partial chunk is padded (the
  /// compiler could not follow the batch dimension through the program).
  bool padsPartialChunks = false;
};

/// One compiled form of every kernel.
struct CodeObject {
  CodeKind kind = CodeKind::CpuElf;
  /// The ISA level a CPU object is compiled for (one of kCpuIsaLevels), or
  /// the SM architecture of a CUDA object ("sm_90").
  std::string level;
  /// CPU features the code needs (GCC's __builtin_cpu_supports names);
  /// empty for a CUDA object.
  std::vector<std::string> cpuFeatures;
  /// CUDA objects: one per kernel, in `Artifact::kernels` order. Empty for
  /// a CPU object.
  std::vector<GpuLaunch> launches;
  /// The object's bytes.
  std::string bytes;
};

/// A whole artifact in memory: plain data, fill it in and serialize it.
struct Artifact {
  /// The kernels every code object exports, as the schedules number them.
  std::vector<KernelInfo> kernels;
  std::vector<EntryInfo> entries;
  std::vector<CodeObject> codeObjects;
};

/// Every CPU code object exports this read-only NUL-terminated string: the
/// ISA level it was compiled for ("x86-64-v3"), which the loader requires
/// to be the manifest's level of the object (so that a manifest pointing
/// one level's record at another level's bytes is refused, not run).
inline constexpr const char kCodeLevelSymbol[] = "vmapc_code_level";

/// The symbol of entry `name`'s descriptor in a code object:
/// "vmapc_entry_" + name + "_descriptor".
inline std::string entryDescriptorSymbol(const std::string &name) {
  return "vmapc_entry_" + name + "_descriptor";
}
/// Word 0 of every entry descriptor: the bytes "VMAPCDSC", little-endian.
inline constexpr uint64_t kEntryDescriptorMagic = 0x4353444350414d56ull;
/// The descriptor version this runtime reads and the compiler writes.
inline constexpr uint64_t kEntryDescriptorVersion = 2;

/// The first words of an entry descriptor (see above).
struct EntryDescriptorHeader {
  uint64_t magic;      ///< kEntryDescriptorMagic.
  uint64_t version;    ///< kEntryDescriptorVersion.
  uint64_t batchSize;  ///< B.
  uint64_t arenaBytes; ///< Bytes of the arena the code uses.
  uint64_t numInputs;
  uint64_t numOutputs;
  uint64_t scheduleDigest; ///< scheduleDigest of the entry.
};
/// One argument of an entry descriptor.
struct ArgDescriptor {
  uint64_t exampleBytes; ///< Bytes of one example (dims x dtype size).
  int64_t mappedAxis;    ///< The batch axis, or kNoAxis.
};
static_assert(sizeof(EntryDescriptorHeader) == 56 &&
                  sizeof(ArgDescriptor) == 16,
              "the descriptor is an array of u64 words");

/// The alignment the runtime allocates `artifact`'s arena at: kArenaAlignment,
/// or the largest arena alignment of its entries if that is more.
size_t arenaAlignmentOf(const Artifact &artifact);

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

/// Bytes of one example of `arg` (product of dims x dtype size), or -1 if
/// the product is not below kMaxArrayBytes (or a dim is negative).
int64_t exampleBytes(const ArgInfo &arg);

/// The shape `run` expects for `arg` on `n` examples: the per-example shape
/// with `n` inserted at the mapped axis (unmapped: the per-example shape).
std::vector<int64_t> batchedShape(const ArgInfo &arg, int64_t n);

} // namespace vmapc

#endif // VMAPC_ARTIFACTFORMAT_H
