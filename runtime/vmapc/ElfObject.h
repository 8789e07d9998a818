//===- ElfObject.h - the layout of an ELF64 object --------------*- C++ -*-===//
//
// The checks both backends' code checks make of an ELF object (an x86-64
// shared object for the CPU, a cubin for CUDA): that what dlopen or the
// CUDA driver will read of it lies inside its bytes. Knows ELF (System V
// ABI, "ELF Header", "Program Header", "Sections"), not the devices: the
// machine and type an object must have are the backends' to check.
//
// Internal: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_ELFOBJECT_H
#define VMAPC_ELFOBJECT_H

#include "vmapc/Status.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace vmapc {

/// An ELF header's e_ident class and data bytes and its u16 e_type and
/// e_machine, or false for fewer bytes than an ELF64 header or no ELF magic.
bool readElfHeader(std::string_view c, uint16_t *type, uint16_t *machine);

/// The layout of the little-endian ELF64 object `c` (its header read by
/// readElfHeader): its program and section header tables, every segment's
/// file bytes and every section's (but SHT_NOBITS) lie inside `c`, and the
/// section name table's index names a section; with `needsLoad`, it has a
/// PT_LOAD segment. So neither dlopen nor the CUDA driver reads past the
/// object (System V ABI, "ELF Header", "Program Header", "Sections").
/// Errors (kInvalidArgument) start with `where`.
Status validateElfLayout(const std::string &where, std::string_view c,
                         bool needsLoad);

} // namespace vmapc

#endif // VMAPC_ELFOBJECT_H
