//===- CpuCodeCheck.h - what a CPU code object must be ----------*- C++ -*-===//
//
// The CPU backend's check of its code objects (CodeObjectCheck.h), asked by
// the validator for every object of kind CpuElf: an ISA level of
// kCpuIsaLevels, no launch records, and an x86-64 ELF shared object
// (ET_DYN) whose tables and segments lie inside its bytes, with a loadable
// segment: what dlopen (SharedObject.h) can map without reading past it.
//
// Internal: not installed.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CPU_CPUCODECHECK_H
#define VMAPC_CPU_CPUCODECHECK_H

#include "vmapc/CodeObjectCheck.h"

namespace vmapc {
namespace cpu {

/// Errors: kUnimplemented "code object #0: unknown ISA level 'L' (x86-64,
/// x86-64-v3, x86-64-v4)"; kInvalidArgument "code object #0 (x86-64): a CPU
/// object has no launch records, it has N", "... is not an ELF object",
/// "... is not an x86-64 ELF object", "... is not an ELF shared object
/// (ET_DYN)", "... has no loadable segment", and the layout's
/// (ElfObject.h).
extern const CodeObjectCheck kCpuElfCheck;

} // namespace cpu
} // namespace vmapc

#endif // VMAPC_CPU_CPUCODECHECK_H
