//===- SharedObject.h - CPU features and code loading (internal) --*- C++
//-*-===//
//
// What the CPU device needs to run a code object: which CPU features the
// host has, and loading an x86-64 ELF shared object from memory (memfd +
// dlopen). Used by CpuDevice.cpp; exposed for tests.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_CPU_SHAREDOBJECT_H
#define VMAPC_CPU_SHAREDOBJECT_H

#include "vmapc/Status.h"

#include <memory>
#include <string>
#include <vector>

namespace vmapc {
namespace cpu {

/// The names `checkCpuFeatures` knows (GCC's __builtin_cpu_supports names).
const std::vector<std::string> &knownCpuFeatures();

/// Whether the host CPU has `feature`; false for unknown names.
bool hostSupports(const std::string &feature);

/// Errors: kUnimplemented "unknown CPU feature 'x'", kFailedPrecondition
/// "the code needs CPU feature 'x', which this CPU lacks". `supports`
/// defaults to `hostSupports`.
Status checkCpuFeatures(const std::vector<std::string> &features,
                        bool (*supports)(const std::string &) = nullptr);

/// A code object loaded with dlopen from a memfd, which it keeps open (one
/// file descriptor per loaded object); unloaded on destruction.
class SharedObject {
public:
  /// Loads the ELF shared object in the `size` bytes at `code` through an
  /// anonymous memfd. Errors: kDataLoss "cannot load the code object: ..."
  /// (dlopen's message), a failed system call (see statusFromErrno).
  static Status load(const void *code, size_t size,
                     std::unique_ptr<SharedObject> *out);
  ~SharedObject();
  SharedObject(const SharedObject &) = delete;
  SharedObject &operator=(const SharedObject &) = delete;

  /// Resolves the function `symbol` defined by this object (not by a library
  /// it links, like libc). Errors (kDataLoss): "symbol 'x' not found in the
  /// code object", "symbol 'x' is not defined by the code object", "symbol
  /// 'x' is not a function".
  Status lookup(const std::string &symbol, const void **out) const;

  /// Resolves the data object `symbol` defined by this object and its size
  /// in bytes (from the ELF symbol table). Errors as `lookup`, and "symbol
  /// 'x' is not a data object".
  Status lookupData(const std::string &symbol, const void **data,
                    size_t *size) const;

private:
  /// Resolves `symbol` in this object: its address and ELF symbol type
  /// (STT_FUNC, STT_OBJECT, ...) and size.
  Status resolve(const std::string &symbol, void **address, unsigned *type,
                 size_t *size) const;
  SharedObject() = default;
  void *handle = nullptr;
  /// The memfd the object was loaded from.
  int fd = -1;
};

} // namespace cpu
} // namespace vmapc

#endif // VMAPC_CPU_SHAREDOBJECT_H
