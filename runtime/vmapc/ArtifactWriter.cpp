//===- ArtifactWriter.cpp - the compiler's side of the artifact -----------===//

#include "vmapc/ArtifactWriter.h"

#include "vmapc/ArtifactValidator.h"
#include "vmapc/ReadFile.h"

#include <cerrno>
#include <cstdio>

namespace vmapc {

static Status outOfRange(std::string message) {
  return Status::error(StatusCode::kOutOfRange, std::move(message));
}

namespace {
class ByteWriter {
public:
  explicit ByteWriter(std::string &out) : out(out) {}
  void u8(uint8_t v) { out.push_back(char(v)); }
  void u16(uint16_t v) { le(v, 2); }
  void u32(uint32_t v) { le(v, 4); }
  void u64(uint64_t v) { le(v, 8); }
  void str(const std::string &s) {
    u32(uint32_t(s.size()));
    out += s;
  }

private:
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
      out.push_back(char((v >> (8 * i)) & 0xff));
  }
  std::string &out;
};
} // namespace

static void writeArg(ByteWriter &w, const ArgInfo &arg) {
  w.str(arg.name);
  w.u8(uint8_t(arg.dtype));
  w.u8(uint8_t(arg.shape.size()));
  w.u16(arg.isDonated() ? uint16_t(arg.donatedFrom + 1) : 0);
  w.u32(uint32_t(arg.mappedAxis));
  w.u64(arg.stagingOffset);
  for (int64_t d : arg.shape)
    w.u64(uint64_t(d));
}

static void putU64(std::string &s, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i)
    s[off + i] = char((v >> (8 * i)) & 0xff);
}

static void writeCommand(ByteWriter &w, const Command &c) {
  w.u8(uint8_t(c.kind));
  w.u8(c.kind == Command::Kind::Dispatch && c.oncePerCall ? kOncePerCallFlag
                                                          : 0);
  w.u16(0);
  if (c.kind == Command::Kind::Loop) {
    w.u64(c.tripCount);
    w.u32(c.bodySize);
    return;
  }
  w.u32(c.kernel);
  for (const Binding &b : c.bindings) {
    w.u8(uint8_t(b.kind));
    w.u8(0);
    w.u16(0);
    w.u32(b.index);
    w.u64(b.offset);
  }
  for (const ScalarSource &src : c.scalars) {
    w.u8(uint8_t(src.kind));
    w.u8(0);
    w.u16(0);
    w.u32(src.loop);
  }
}

static uint64_t alignCode(uint64_t offset) {
  return (offset + kCodeAlignment - 1) / kCodeAlignment * kCodeAlignment;
}

Status serializeArtifact(const Artifact &artifact, std::string *out) {
  VMAPC_RETURN_IF_ERROR(validateArtifact(artifact));
  std::string manifest;
  ByteWriter m(manifest);
  m.u32(uint32_t(artifact.kernels.size()));
  for (const KernelInfo &k : artifact.kernels) {
    m.str(k.name);
    m.u32(k.numBindings);
    m.u32(k.numScalars);
    for (int64_t count : k.workgroupCount)
      m.u64(uint64_t(count));
    m.u64(k.scratchBytes);
    for (uint64_t bytes : k.bindingBytes)
      m.u64(bytes);
    for (BindingAccess access : k.bindingAccess)
      m.u8(uint8_t(access));
  }
  m.u32(uint32_t(artifact.entries.size()));
  for (const EntryInfo &e : artifact.entries) {
    m.str(e.name);
    m.u32(e.batchSize);
    m.u32(e.padsPartialChunks ? 1 : 0);
    m.u64(e.arenaBytes);
    m.u64(e.lowerBoundBytes);
    m.u64(e.alignedLowerBoundBytes);
    m.u64(e.naiveSumBytes);
    m.u32(e.inPlaceCount);
    m.u32(e.arenaAlignment);
    m.u32(uint32_t(e.inputs.size()));
    m.u32(uint32_t(e.outputs.size()));
    for (const ArgInfo &a : e.inputs)
      writeArg(m, a);
    for (const ArgInfo &a : e.outputs)
      writeArg(m, a);
    m.u32(uint32_t(e.schedule.size()));
    for (const Command &c : e.schedule)
      writeCommand(m, c);
  }
  // Code objects, each at a 16-byte aligned offset in the code section.
  uint64_t codeSize = 0;
  std::vector<uint64_t> offsets;
  m.u32(uint32_t(artifact.codeObjects.size()));
  for (const CodeObject &o : artifact.codeObjects) {
    codeSize = alignCode(codeSize);
    offsets.push_back(codeSize);
    std::optional<uint64_t> end = checkedAddBytes(codeSize, o.bytes.size());
    if (!end)
      return outOfRange("the artifact would take 2^62 bytes or more");
    m.u32(uint32_t(o.kind));
    m.str(o.level);
    m.u32(uint32_t(o.cpuFeatures.size()));
    for (const std::string &f : o.cpuFeatures)
      m.str(f);
    if (isCudaCode(o.kind))
      for (const GpuLaunch &l : o.launches) {
        for (uint32_t b : l.block)
          m.u32(b);
        m.u32(l.sharedBytes);
      }
    m.u64(codeSize);
    m.u64(o.bytes.size());
    codeSize = *end;
  }

  uint64_t codeOffset = alignCode(kHeaderBytes + manifest.size());
  std::optional<uint64_t> fileSize =
      checkedAddBytes(codeOffset, codeSize + kChecksumBytes);
  if (!fileSize)
    return outOfRange("the artifact would take 2^62 bytes or more");

  std::string bytes;
  bytes.reserve(*fileSize);
  bytes.append(kArtifactMagic, sizeof(kArtifactMagic));
  ByteWriter h(bytes);
  h.u32(kFormatVersion);
  h.u32(0);
  h.u64(kHeaderBytes);
  h.u64(manifest.size());
  h.u64(codeOffset);
  h.u64(codeSize);
  h.u64(*fileSize);
  h.u64(0);
  bytes += manifest;
  for (size_t i = 0; i < artifact.codeObjects.size(); ++i) {
    bytes.resize(codeOffset + offsets[i], '\0');
    bytes += artifact.codeObjects[i].bytes;
  }
  bytes.resize(*fileSize, '\0');
  putU64(bytes, *fileSize - kChecksumBytes,
         fnv1a64(bytes.data(), *fileSize - kChecksumBytes));
  *out = std::move(bytes);
  return Status();
}

Status writeArtifactFile(const Artifact &artifact, const std::string &path) {
  std::string bytes;
  VMAPC_RETURN_IF_ERROR(serializeArtifact(artifact, &bytes));
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    return statusFromErrno(errno, path + ": cannot open for writing");
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    return Status::error(StatusCode::kUnavailable, path + ": write failed");
  return Status();
}

std::vector<uint64_t> kernelDescriptorWords(const KernelInfo &kernel,
                                            uint64_t scratchBytes,
                                            const GpuLaunch &launch) {
  std::vector<uint64_t> words = {uint64_t(kKernelDescriptorMagic) |
                                     uint64_t(kernel.numBindings) << 32,
                                 kernel.numScalars};
  for (int64_t count : kernel.workgroupCount)
    words.push_back(uint64_t(count));
  words.push_back(scratchBytes);
  words.push_back(uint64_t(launch.block[0]) | uint64_t(launch.block[1]) << 32);
  words.push_back(uint64_t(launch.block[2]) | uint64_t(launch.sharedBytes)
                                                  << 32);
  words.insert(words.end(), kernel.bindingBytes.begin(),
               kernel.bindingBytes.end());
  for (BindingAccess access : kernel.bindingAccess)
    words.push_back(uint64_t(access));
  return words;
}

std::vector<uint64_t>
entryDescriptorWords(const EntryInfo &entry,
                     const std::vector<KernelInfo> &kernels) {
  std::vector<uint64_t> words = {kEntryDescriptorMagic,
                                 kEntryDescriptorVersion,
                                 entry.batchSize,
                                 entry.arenaBytes,
                                 entry.inputs.size(),
                                 entry.outputs.size(),
                                 scheduleDigest(entry, kernels)};
  for (const auto *list : {&entry.inputs, &entry.outputs})
    for (const ArgInfo &a : *list) {
      words.push_back(uint64_t(exampleBytes(a)));
      words.push_back(uint64_t(int64_t(a.mappedAxis)));
    }
  return words;
}

} // namespace vmapc
