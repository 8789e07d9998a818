//===- ArtifactBuilder.cpp - artifacts built by hand, for testing ---------===//

#include "ArtifactBuilder.h"

#include "vmapc/ArtifactDescriptors.h"

#include <cstring>
#include <utility>

namespace vmapc_test {

using namespace vmapc;

ArgInfo arg(const std::string &name, DType dtype, std::vector<int64_t> shape,
            int32_t axis, uint64_t staging) {
  ArgInfo a;
  a.name = name;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.mappedAxis = axis;
  a.stagingOffset = staging;
  return a;
}

Binding inputBinding(uint32_t index) {
  return {Binding::Kind::Input, index, 0};
}
Binding outputBinding(uint32_t index) {
  return {Binding::Kind::Output, index, 0};
}
Binding arenaBinding(uint64_t offset) {
  return {Binding::Kind::Arena, 0, offset};
}
ScalarSource numExamples() { return {ScalarSource::Kind::NumExamples, 0}; }
ScalarSource loopIndex(uint32_t loop) {
  return {ScalarSource::Kind::LoopIndex, loop};
}

Command dispatch(uint32_t kernel, std::vector<Binding> bindings,
                 std::vector<ScalarSource> scalars) {
  Command c;
  c.kind = Command::Kind::Dispatch;
  c.kernel = kernel;
  c.bindings = std::move(bindings);
  c.scalars = std::move(scalars);
  return c;
}

Command loop(uint64_t tripCount, uint32_t bodySize) {
  Command c;
  c.kind = Command::Kind::Loop;
  c.tripCount = tripCount;
  c.bodySize = bodySize;
  return c;
}

KernelInfo kernel(const std::string &name, std::vector<uint64_t> bindingBytes,
                  const std::string &access, uint32_t numScalars, int64_t gridX,
                  int64_t gridY, int64_t gridZ) {
  KernelInfo k;
  k.name = name;
  k.numBindings = uint32_t(bindingBytes.size());
  k.numScalars = numScalars;
  k.workgroupCount[0] = gridX;
  k.workgroupCount[1] = gridY;
  k.workgroupCount[2] = gridZ;
  k.bindingBytes = std::move(bindingBytes);
  for (char c : access)
    k.bindingAccess.push_back(c == 'r'   ? BindingAccess::Read
                              : c == 'w' ? BindingAccess::Write
                                         : BindingAccess::ReadWrite);
  return k;
}

std::string elfHeader(uint16_t type, uint16_t machine) {
  std::string h(64, '\0');
  h[0] = 0x7f, h[1] = 'E', h[2] = 'L', h[3] = 'F';
  h[4] = 2; // ELFCLASS64
  h[5] = 1; // ELFDATA2LSB
  h[6] = 1; // EV_CURRENT
  h[16] = char(type & 0xff), h[17] = char(type >> 8);
  h[18] = char(machine & 0xff), h[19] = char(machine >> 8);
  h[20] = 1;  // e_version
  h[52] = 64; // e_ehsize
  return h;
}

std::string cubinElfHeader() { return elfHeader(2 /*ET_EXEC*/, 190); }

std::string smallestSharedObject() {
  std::string o = elfHeader(3 /*ET_DYN*/, 62 /*EM_X86_64*/);
  o[32] = 64; // e_phoff
  o[54] = 56; // e_phentsize
  o[56] = 1;  // e_phnum
  std::string ph(56, '\0');
  ph[0] = 1;                 // PT_LOAD
  ph[32] = ph[40] = 64 + 56; // p_filesz, p_memsz
  return o + ph;
}

CodeObject cpuCodeObject(const std::string &level,
                         std::vector<std::string> cpuFeatures,
                         std::string bytes) {
  CodeObject o;
  o.kind = CodeKind::CpuElf;
  o.level = level;
  o.cpuFeatures = std::move(cpuFeatures);
  o.bytes = std::move(bytes);
  return o;
}

CodeObject cudaCodeObject(CodeKind kind, const std::string &level,
                          std::string bytes, std::vector<GpuLaunch> launches) {
  CodeObject o;
  o.kind = kind;
  o.level = level;
  o.bytes = std::move(bytes);
  o.launches = std::move(launches);
  return o;
}

CodeObject cudaCodeObject(CodeKind kind, const std::string &level,
                          std::string bytes, size_t numKernels) {
  std::vector<GpuLaunch> launches;
  for (size_t k = 0; k < numKernels; ++k) {
    GpuLaunch l;
    l.block[0] = uint32_t(32 * (k % 16 + 1));
    l.block[1] = 2;
    l.sharedBytes = uint32_t(1024 * k);
    launches.push_back(l);
  }
  return cudaCodeObject(kind, level, std::move(bytes), std::move(launches));
}

void giveEveryArgumentASlot(EntryInfo &e, uint64_t alignment) {
  auto align = [&](uint64_t v) {
    return (v + alignment - 1) / alignment * alignment;
  };
  uint64_t end = align(e.arenaBytes);
  for (auto *list : {&e.inputs, &e.outputs})
    for (ArgInfo &arg : *list) {
      if (arg.hasStaging())
        continue;
      arg.stagingOffset = end;
      uint64_t bytes = uint64_t(exampleBytes(arg));
      if (arg.isMapped())
        bytes *= e.batchSize;
      end += align(bytes);
    }
  e.arenaBytes = end;
}

void giveEveryArgumentASlot(Artifact &a, uint64_t alignment) {
  for (EntryInfo &e : a.entries)
    giveEveryArgumentASlot(e, alignment);
}

uint64_t elfSymbolOffset(const std::string &elf, const std::string &name) {
  auto u16 = [&](uint64_t off) {
    uint16_t v;
    std::memcpy(&v, elf.data() + off, 2);
    return v;
  };
  auto u32 = [&](uint64_t off) {
    uint32_t v;
    std::memcpy(&v, elf.data() + off, 4);
    return v;
  };
  auto u64 = [&](uint64_t off) {
    uint64_t v;
    std::memcpy(&v, elf.data() + off, 8);
    return v;
  };
  if (elf.size() < 64)
    return 0;
  uint64_t shoff = u64(40);
  uint16_t shnum = u16(60);
  auto section = [&](uint64_t i) { return shoff + i * 64; };
  for (uint16_t s = 0; s < shnum; ++s) {
    if (u32(section(s) + 4) != 11 /*SHT_DYNSYM*/)
      continue;
    uint64_t symbols = u64(section(s) + 24), bytes = u64(section(s) + 32);
    uint64_t strings = u64(section(u32(section(s) + 40)) + 24);
    for (uint64_t sym = symbols; sym + 24 <= symbols + bytes; sym += 24) {
      if (std::strcmp(elf.c_str() + strings + u32(sym), name.c_str()) != 0)
        continue;
      uint64_t value = u64(sym + 8);
      for (uint16_t t = 0; t < shnum; ++t) {
        uint64_t addr = u64(section(t) + 16), size = u64(section(t) + 32);
        if (u32(section(t) + 4) != 8 /*SHT_NOBITS*/ && addr && value >= addr &&
            value < addr + size)
          return u64(section(t) + 24) + (value - addr);
      }
    }
  }
  return 0;
}

void sealEntryDescriptors(Artifact &a) {
  for (CodeObject &o : a.codeObjects) {
    if (o.kind != CodeKind::CpuElf)
      continue;
    for (const EntryInfo &e : a.entries) {
      uint64_t at = elfSymbolOffset(o.bytes, entryDescriptorSymbol(e.name));
      if (at == 0 || at + sizeof(EntryDescriptorHeader) > o.bytes.size())
        continue;
      uint64_t digest = scheduleDigest(e, a.kernels);
      std::memcpy(
          &o.bytes[at + offsetof(EntryDescriptorHeader, scheduleDigest)],
          &digest, sizeof(digest));
    }
  }
}

size_t entryIndex(const Artifact &a, const std::string &name) {
  size_t i = 0;
  while (i < a.entries.size() && a.entries[i].name != name)
    ++i;
  return i;
}

} // namespace vmapc_test
