//===- ElfObject.cpp - the layout of an ELF64 object ----------------------===//

#include "vmapc/ElfObject.h"

#include <cstring>

namespace vmapc {

static Status invalid(std::string message) {
  return Status::error(StatusCode::kInvalidArgument, std::move(message));
}

bool readElfHeader(std::string_view c, uint16_t *type, uint16_t *machine) {
  if (c.size() < 64 || std::memcmp(c.data(),
                                   "\x7f"
                                   "ELF",
                                   4) != 0)
    return false;
  auto u16At = [&](size_t off) {
    return uint16_t(uint8_t(c[off]) | (uint8_t(c[off + 1]) << 8));
  };
  // ELFCLASS64, ELFDATA2LSB: anything else reads as machine 0.
  bool le64 = c[4] == 2 && c[5] == 1;
  *type = u16At(16);
  *machine = le64 ? u16At(18) : 0;
  return true;
}

Status validateElfLayout(const std::string &where, std::string_view c,
                         bool needsLoad) {
  // A field of `c` in host order (little-endian, asserted below).
  auto field = [&](uint64_t off, auto zero) {
    decltype(zero) v;
    std::memcpy(&v, c.data() + off, sizeof(v));
    return v;
  };
  auto u16At = [&](uint64_t off) { return field(off, uint16_t(0)); };
  auto u32At = [&](uint64_t off) { return field(off, uint32_t(0)); };
  auto u64At = [&](uint64_t off) { return field(off, uint64_t(0)); };
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "ELF fields are read in host order");
  if (c[4] != 2 || c[5] != 1 || c[6] != 1)
    return invalid(where + " is not a little-endian ELF64 object of version "
                           "1");
  // [offset, offset + count x size) inside the object, checked.
  auto inside = [&](uint64_t offset, uint64_t count, uint64_t size) {
    uint64_t bytes = 0, end = 0;
    return !__builtin_mul_overflow(count, size, &bytes) &&
           !__builtin_add_overflow(offset, bytes, &end) && end <= c.size();
  };
  uint64_t phoff = u64At(32), shoff = u64At(40);
  uint16_t ehsize = u16At(52), phentsize = u16At(54), phnum = u16At(56);
  uint16_t shentsize = u16At(58), shnum = u16At(60), shstrndx = u16At(62);
  if (ehsize != 64)
    return invalid(where + ": an ELF header of " + std::to_string(ehsize) +
                   " bytes (ELF64's is 64)");
  if (phnum && (phentsize != 56 || !inside(phoff, phnum, 56)))
    return invalid(where + ": its " + std::to_string(phnum) +
                   " program headers (at " + std::to_string(phoff) +
                   ") are not 56-byte entries inside its " +
                   std::to_string(c.size()) + " bytes");
  if (shnum == 0 && (shoff != 0 || shstrndx != 0))
    return invalid(where + ": extended ELF section numbering (no section "
                           "count in the header) is not supported");
  if (shnum && (shentsize != 64 || !inside(shoff, shnum, 64)))
    return invalid(where + ": its " + std::to_string(shnum) +
                   " section headers (at " + std::to_string(shoff) +
                   ") are not 64-byte entries inside its " +
                   std::to_string(c.size()) + " bytes");
  if (shnum && shstrndx >= shnum)
    return invalid(where + ": section name table index " +
                   std::to_string(shstrndx) + " of " + std::to_string(shnum) +
                   " sections");
  bool hasLoad = false;
  for (uint64_t i = 0; i < phnum; ++i) {
    uint64_t h = phoff + i * 56;
    uint32_t type = u32At(h);
    uint64_t offset = u64At(h + 8), fileBytes = u64At(h + 32),
             memBytes = u64At(h + 40);
    if (!inside(offset, 1, fileBytes))
      return invalid(where + ": segment " + std::to_string(i) + " (type " +
                     std::to_string(type) + ") has file bytes [" +
                     std::to_string(offset) + ", +" +
                     std::to_string(fileBytes) + ") past the object's " +
                     std::to_string(c.size()) + " bytes");
    if (type == 1 /*PT_LOAD*/) {
      hasLoad = true;
      if (fileBytes > memBytes)
        return invalid(where + ": loadable segment " + std::to_string(i) +
                       " has more file bytes than memory bytes");
    }
  }
  if (needsLoad && !hasLoad)
    return invalid(where + " has no loadable segment");
  for (uint64_t i = 0; i < shnum; ++i) {
    uint64_t h = shoff + i * 64;
    uint32_t type = u32At(h + 4);
    uint64_t offset = u64At(h + 24), bytes = u64At(h + 32);
    if (type != 0 /*SHT_NULL*/ && type != 8 /*SHT_NOBITS*/ &&
        !inside(offset, 1, bytes))
      return invalid(where + ": section " + std::to_string(i) + " (type " +
                     std::to_string(type) + ") has bytes [" +
                     std::to_string(offset) + ", +" + std::to_string(bytes) +
                     ") past the object's " + std::to_string(c.size()) +
                     " bytes");
  }
  return Status();
}

} // namespace vmapc
