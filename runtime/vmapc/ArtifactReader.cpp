//===- ArtifactReader.cpp - bytes to an Artifact --------------------------===//

#include "vmapc/ArtifactReader.h"

#include "vmapc/ArtifactValidator.h"
#include "vmapc/ReadFile.h"

#include <cstring>

namespace vmapc {

/// The smallest encoded argument: a u32 name length and a one-byte name, u8
/// dtype, u8 rank, u16 reserved, i32 axis, u64 staging offset, no dims.
static constexpr uint64_t kMinArgBytes = 4 + 1 + 1 + 1 + 2 + 4 + 8;

static Status outOfRange(std::string message) {
  return Status::error(StatusCode::kOutOfRange, std::move(message));
}
static Status dataLoss(std::string message) {
  return Status::error(StatusCode::kDataLoss, std::move(message));
}

static bool isValidDType(uint8_t v) { return v >= 1 && v <= 3; }

namespace {
/// Bounds-checked little-endian reader over the manifest. The first failed
/// read latches an error; later reads return zeros.
class ByteReader {
public:
  ByteReader(const unsigned char *p, size_t size) : p(p), size(size) {}

  bool failed() const { return fail; }
  size_t remaining() const { return size - pos; }
  size_t offset() const { return pos; }

  uint64_t le(int n) {
    if (fail || remaining() < size_t(n)) {
      fail = true;
      return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < n; ++i)
      v |= uint64_t(p[pos + i]) << (8 * i);
    pos += n;
    return v;
  }
  uint8_t u8() { return uint8_t(le(1)); }
  uint16_t u16() { return uint16_t(le(2)); }
  uint32_t u32() { return uint32_t(le(4)); }
  uint64_t u64() { return le(8); }
  bool str(std::string *s) {
    uint32_t n = u32();
    if (fail || n > remaining()) {
      fail = true;
      return false;
    }
    s->assign(reinterpret_cast<const char *>(p + pos), n);
    pos += n;
    return true;
  }

private:
  const unsigned char *p;
  size_t size;
  size_t pos = 0;
  bool fail = false;
};
} // namespace

static uint64_t readU64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

static uint32_t readU32(const unsigned char *p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
         uint32_t(p[3]) << 24;
}

static Status truncatedManifest(const ByteReader &r) {
  return dataLoss("truncated artifact: manifest ends inside a field at "
                  "manifest offset " +
                  std::to_string(r.offset()));
}

/// Reads one argument; an empty message means the manifest ended inside it.
static Status readArg(ByteReader &r, ArgInfo *arg) {
  if (!r.str(&arg->name))
    return dataLoss("");
  uint8_t dtype = r.u8();
  uint8_t rank = r.u8();
  uint16_t donor = r.u16();
  int32_t axis = int32_t(r.u32());
  arg->stagingOffset = r.u64();
  if (r.failed())
    return dataLoss("");
  if (!isValidDType(dtype))
    return dataLoss("argument '" + arg->name + "': invalid dtype " +
                    std::to_string(dtype));
  if (rank > kMaxRank)
    return outOfRange("argument '" + arg->name + "': rank " +
                      std::to_string(rank) + " exceeds the maximum " +
                      std::to_string(kMaxRank));
  arg->dtype = DType(dtype);
  arg->mappedAxis = axis;
  arg->donatedFrom = donor == 0 ? kNotDonated : int32_t(donor) - 1;
  arg->shape.resize(rank);
  for (uint8_t i = 0; i < rank; ++i)
    arg->shape[i] = int64_t(r.u64());
  if (r.failed())
    return dataLoss("");
  return Status();
}

/// Reads one command; an empty message means the manifest ended inside it.
static Status readCommand(ByteReader &r, const std::vector<KernelInfo> &kernels,
                          Command *c) {
  uint8_t kind = r.u8();
  uint8_t flags = r.u8();
  uint16_t pad1 = r.u16();
  if (r.failed())
    return dataLoss("");
  if (pad1)
    return dataLoss("command reserved bytes are not zero");
  if (kind == uint8_t(Command::Kind::Dispatch) ? (flags & ~kOncePerCallFlag)
                                               : flags)
    return dataLoss("unknown command flags " + std::to_string(flags));
  c->oncePerCall = (flags & kOncePerCallFlag) != 0;
  if (kind == uint8_t(Command::Kind::Loop)) {
    c->kind = Command::Kind::Loop;
    c->tripCount = r.u64();
    c->bodySize = r.u32();
    return r.failed() ? dataLoss("") : Status();
  }
  if (kind != uint8_t(Command::Kind::Dispatch))
    return dataLoss("unknown command kind " + std::to_string(kind));
  c->kind = Command::Kind::Dispatch;
  c->kernel = r.u32();
  if (r.failed())
    return dataLoss("");
  // The kernel says how many bindings and scalars follow.
  if (c->kernel >= kernels.size())
    return dataLoss("dispatch of kernel #" + std::to_string(c->kernel) +
                    ", which does not exist");
  const KernelInfo &k = kernels[c->kernel];
  if (uint64_t(k.numBindings) * 16 + uint64_t(k.numScalars) * 8 > r.remaining())
    return dataLoss("");
  c->bindings.resize(k.numBindings);
  for (Binding &b : c->bindings) {
    b.kind = Binding::Kind(r.u8());
    if (r.u8() || r.u16())
      return dataLoss("binding reserved bytes are not zero");
    b.index = r.u32();
    b.offset = r.u64();
  }
  c->scalars.resize(k.numScalars);
  for (ScalarSource &src : c->scalars) {
    src.kind = ScalarSource::Kind(r.u8());
    if (r.u8() || r.u16())
      return dataLoss("scalar reserved bytes are not zero");
    src.loop = r.u32();
  }
  return r.failed() ? dataLoss("") : Status();
}

static Status readManifest(ByteReader &r, Artifact *a,
                           std::vector<std::pair<uint64_t, uint64_t>> *code) {
  uint32_t numKernels = r.u32();
  if (r.failed())
    return truncatedManifest(r);
  // A kernel takes at least 53 bytes.
  if (numKernels > kMaxKernels || numKernels > r.remaining() / 53)
    return dataLoss("bad kernel count " + std::to_string(numKernels));
  a->kernels.resize(numKernels);
  for (KernelInfo &k : a->kernels) {
    r.str(&k.name);
    k.numBindings = r.u32();
    k.numScalars = r.u32();
    for (int64_t &count : k.workgroupCount)
      count = int64_t(r.u64());
    k.scratchBytes = r.u64();
    if (r.failed())
      return truncatedManifest(r);
    if (k.numBindings > kMaxBindings || k.numScalars > kMaxScalars ||
        k.numBindings > r.remaining() / 9)
      return dataLoss("kernel '" + k.name + "': bad binding or scalar count");
    k.bindingBytes.resize(k.numBindings);
    for (uint64_t &bytes : k.bindingBytes)
      bytes = r.u64();
    k.bindingAccess.resize(k.numBindings);
    for (BindingAccess &access : k.bindingAccess)
      access = BindingAccess(r.u8());
  }
  uint32_t numEntries = r.u32();
  if (r.failed())
    return truncatedManifest(r);
  // An entry takes at least 69 bytes.
  if (numEntries > kMaxEntries || numEntries > r.remaining() / 69)
    return dataLoss("bad entry count " + std::to_string(numEntries));
  a->entries.resize(numEntries);
  for (EntryInfo &e : a->entries) {
    r.str(&e.name);
    e.batchSize = r.u32();
    uint32_t flags = r.u32();
    e.arenaBytes = r.u64();
    e.lowerBoundBytes = r.u64();
    e.alignedLowerBoundBytes = r.u64();
    e.naiveSumBytes = r.u64();
    e.inPlaceCount = r.u32();
    e.arenaAlignment = r.u32();
    uint32_t numInputs = r.u32();
    uint32_t numOutputs = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    if (flags & ~1u)
      return dataLoss("entry '" + e.name + "': unknown flags " +
                      std::to_string(flags));
    e.padsPartialChunks = flags & 1u;
    // An argument takes at least kMinArgBytes (a scalar with a one-byte
    // name), so the counts cannot promise more than the bytes left.
    if (numInputs > kMaxArgs || numOutputs > kMaxArgs ||
        uint64_t(numInputs) + numOutputs > r.remaining() / kMinArgBytes)
      return dataLoss("entry '" + e.name + "': bad argument counts (" +
                      std::to_string(numInputs) + " inputs, " +
                      std::to_string(numOutputs) + " outputs)");
    e.inputs.resize(numInputs);
    e.outputs.resize(numOutputs);
    for (std::vector<ArgInfo> *list : {&e.inputs, &e.outputs}) {
      for (ArgInfo &arg : *list) {
        Status s = readArg(r, &arg);
        if (!s.ok()) {
          if (r.failed())
            return truncatedManifest(r);
          return s.withPrefix("entry '" + e.name + "' ");
        }
      }
    }
    uint32_t numCommands = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    // A command takes at least 8 bytes.
    if (numCommands > kMaxCommands || numCommands > r.remaining() / 8)
      return dataLoss("entry '" + e.name + "': bad command count " +
                      std::to_string(numCommands));
    e.schedule.resize(numCommands);
    for (Command &c : e.schedule) {
      Status s = readCommand(r, a->kernels, &c);
      if (!s.ok()) {
        if (s.message().empty())
          return truncatedManifest(r);
        return s.withPrefix("entry '" + e.name + "' schedule: ");
      }
    }
  }
  uint32_t numObjects = r.u32();
  if (r.failed())
    return truncatedManifest(r);
  // A code object takes at least 29 bytes.
  if (numObjects > kMaxCodeObjects || numObjects > r.remaining() / 29)
    return dataLoss("bad code object count " + std::to_string(numObjects));
  a->codeObjects.resize(numObjects);
  for (size_t i = 0; i < numObjects; ++i) {
    CodeObject &o = a->codeObjects[i];
    uint32_t kind = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    // The kind says which fields follow.
    o.kind = CodeKind(kind);
    if (o.kind != CodeKind::CpuElf && !isCudaCode(o.kind))
      return unsupportedCodeKind(i, kind);
    r.str(&o.level);
    uint32_t numFeatures = r.u32();
    if (r.failed())
      return truncatedManifest(r);
    if (numFeatures > kMaxCpuFeatures || numFeatures > r.remaining() / 4)
      return dataLoss("bad CPU feature count " + std::to_string(numFeatures));
    o.cpuFeatures.resize(numFeatures);
    for (std::string &f : o.cpuFeatures)
      if (!r.str(&f))
        return truncatedManifest(r);
    if (isCudaCode(o.kind)) {
      // A launch record per kernel, 16 bytes each.
      if (uint64_t(a->kernels.size()) * 16 > r.remaining())
        return truncatedManifest(r);
      o.launches.resize(a->kernels.size());
      for (GpuLaunch &l : o.launches) {
        for (uint32_t &b : l.block)
          b = r.u32();
        l.sharedBytes = r.u32();
      }
    }
    uint64_t offset = r.u64();
    uint64_t size = r.u64();
    if (r.failed())
      return truncatedManifest(r);
    code->push_back({offset, size});
  }
  if (r.remaining() != 0)
    return dataLoss("manifest has " + std::to_string(r.remaining()) +
                    " trailing bytes");
  return Status();
}

Status checkArtifactHeader(const void *data, size_t size, uint64_t *fileSize) {
  const auto *p = static_cast<const unsigned char *>(data);
  constexpr uint64_t kMinFileBytes = kHeaderBytes + kChecksumBytes;
  if (size < kHeaderBytes || !p)
    return dataLoss("truncated artifact: " + std::to_string(size) +
                    " bytes, smaller than the " +
                    std::to_string(kMinFileBytes) + "-byte minimum");
  if (std::memcmp(p, kArtifactMagic, sizeof(kArtifactMagic)) != 0)
    return dataLoss("bad magic: not a .vmapc artifact");
  uint32_t version = readU32(p + 8);
  if (version != kFormatVersion)
    return Status::error(StatusCode::kUnimplemented,
                         "runtime supports format " +
                             std::to_string(kFormatVersion) +
                             ", artifact has " + std::to_string(version));
  uint64_t declared = readU64(p + 48);
  if (declared >= kMaxArrayBytes)
    return outOfRange("declared file size " + std::to_string(declared) +
                      " is not below the 2^62-byte limit");
  if (declared < kMinFileBytes)
    return dataLoss("declared file size " + std::to_string(declared) +
                    " is smaller than the " + std::to_string(kMinFileBytes) +
                    "-byte minimum");
  *fileSize = declared;
  return Status();
}

Status parseArtifactInPlace(const void *data, size_t size, Artifact *out,
                            std::vector<std::string_view> *code) {
  const auto *p = static_cast<const unsigned char *>(data);
  if (size < kHeaderBytes + kChecksumBytes || !p)
    return dataLoss("truncated artifact: " + std::to_string(size) +
                    " bytes, smaller than the " +
                    std::to_string(kHeaderBytes + kChecksumBytes) +
                    "-byte minimum");
  uint64_t fileSize = 0;
  VMAPC_RETURN_IF_ERROR(checkArtifactHeader(data, size, &fileSize));
  uint32_t reservedWord = readU32(p + 12);
  uint64_t manifestOffset = readU64(p + 16);
  uint64_t manifestSize = readU64(p + 24);
  uint64_t codeOffset = readU64(p + 32);
  uint64_t codeSize = readU64(p + 40);
  uint64_t reserved = readU64(p + 56);
  if (fileSize > size)
    return dataLoss("truncated artifact: header says " +
                    std::to_string(fileSize) + " bytes, got " +
                    std::to_string(size));
  if (fileSize < size)
    return dataLoss("artifact has " + std::to_string(size - fileSize) +
                    " trailing bytes after its declared size of " +
                    std::to_string(fileSize));
  uint64_t stored = readU64(p + size - kChecksumBytes);
  uint64_t actual = fnv1a64(p, size - kChecksumBytes);
  if (stored != actual)
    return dataLoss("checksum mismatch: the artifact is corrupt");
  if (reserved != 0 || reservedWord != 0)
    return dataLoss("header reserved field is not zero");
  // Each comparison below is against `body` or a difference that cannot
  // wrap: size >= 72, and every field is checked before it is added.
  uint64_t body = size - kChecksumBytes;
  if (manifestOffset != kHeaderBytes || manifestSize > body - kHeaderBytes)
    return dataLoss("manifest [" + std::to_string(manifestOffset) + ", +" +
                    std::to_string(manifestSize) + ") out of bounds");
  if (codeOffset < manifestOffset + manifestSize || codeOffset > body ||
      codeSize != body - codeOffset || codeSize == 0)
    return dataLoss("code [" + std::to_string(codeOffset) + ", +" +
                    std::to_string(codeSize) + ") out of bounds");
  for (uint64_t i = manifestOffset + manifestSize; i < codeOffset; ++i)
    if (p[i] != 0)
      return dataLoss("padding before the code is not zero");

  Artifact a;
  ByteReader r(p + manifestOffset, manifestSize);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  VMAPC_RETURN_IF_ERROR(readManifest(r, &a, &ranges));
  // Code objects: aligned, inside the code, in order and disjoint.
  std::vector<std::string_view> objects;
  uint64_t end = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    auto [offset, objectSize] = ranges[i];
    std::string where = "code object #" + std::to_string(i) + " [" +
                        std::to_string(offset) + ", +" +
                        std::to_string(objectSize) + ")";
    if (offset > codeSize || objectSize > codeSize - offset)
      return dataLoss(where + " out of bounds of the code");
    if (objectSize == 0)
      return dataLoss(where + " is empty");
    if (offset % kCodeAlignment)
      return dataLoss(where + " is not " + std::to_string(kCodeAlignment) +
                      "-byte aligned");
    if (offset < end)
      return dataLoss(where + " overlaps the object before it (objects are "
                              "in order and disjoint)");
    end = offset + objectSize;
    objects.emplace_back(
        reinterpret_cast<const char *>(p + codeOffset + offset), objectSize);
  }
  // The bytes passed the checksum, so a broken rule is a writer that does
  // not follow this header (or an edit that resealed the checksum): data
  // loss, except a size past a limit, which stays out of range.
  Status valid = validateArtifactCode(a, objects);
  if (!valid.ok() && valid.code() == StatusCode::kInvalidArgument)
    return valid.withCode(StatusCode::kDataLoss);
  VMAPC_RETURN_IF_ERROR(valid);
  *out = std::move(a);
  *code = std::move(objects);
  return Status();
}

Status readArtifactFile(const std::string &path, HostBuffer *bytes) {
  FileReader file;
  VMAPC_RETURN_IF_ERROR(file.open(path));
  unsigned char header[kHeaderBytes];
  size_t got = 0;
  VMAPC_RETURN_IF_ERROR(file.read(header, sizeof(header), &got));
  uint64_t fileSize = 0;
  VMAPC_RETURN_IF_ERROR(
      checkArtifactHeader(header, got, &fileSize).withPrefix(path + ": "));
  auto truncated = [&](uint64_t have) {
    return dataLoss(path + ": truncated artifact: header says " +
                    std::to_string(fileSize) + " bytes, got " +
                    std::to_string(have));
  };
  if (std::optional<uint64_t> size = file.regularFileSize()) {
    if (*size < fileSize)
      return truncated(*size);
    if (*size > fileSize)
      return dataLoss(path + ": artifact has " +
                      std::to_string(*size - fileSize) +
                      " trailing bytes after its declared size of " +
                      std::to_string(fileSize));
  }
  HostBuffer buffer;
  VMAPC_RETURN_IF_ERROR(HostBuffer::allocate(fileSize, 64,
                                             "artifact '" + path + "'", &buffer,
                                             HostBuffer::Init::kUninitialized));
  std::memcpy(buffer.data(), header, kHeaderBytes);
  VMAPC_RETURN_IF_ERROR(
      file.read(buffer.data() + kHeaderBytes, fileSize - kHeaderBytes, &got));
  if (got != fileSize - kHeaderBytes)
    return truncated(kHeaderBytes + got);
  bool end = false;
  VMAPC_RETURN_IF_ERROR(file.atEnd(&end));
  if (!end)
    return dataLoss(path +
                    ": artifact has more bytes than its declared size "
                    "of " +
                    std::to_string(fileSize));
  *bytes = std::move(buffer);
  return Status();
}

Status parseArtifact(const void *data, size_t size, Artifact *out) {
  Artifact a;
  std::vector<std::string_view> code;
  VMAPC_RETURN_IF_ERROR(parseArtifactInPlace(data, size, &a, &code));
  for (size_t i = 0; i < code.size(); ++i)
    a.codeObjects[i].bytes.assign(code[i].data(), code[i].size());
  *out = std::move(a);
  return Status();
}

} // namespace vmapc
