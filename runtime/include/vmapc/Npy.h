//===- Npy.h - NumPy .npy files ---------------------------------*- C++ -*-===//
//
// Reads .npy format 1.0 and 2.0 and writes 1.0 (2.0 only when the header does
// not fit in 1.0), for the dtypes the runtime knows: '<f4' (f32), '<i4' (i32)
// and '|b1' (bool, one byte 0/1), C order only. Anything else is an error
// whose message starts with the file name (or the `name` given):
// kUnimplemented for what this reader does not support (Fortran order, other
// dtypes, big-endian, version 3.0), kDataLoss for what is not a well-formed
// .npy file (bad magic, a malformed header, truncated or extra data),
// kOutOfRange past a limit (rank > kMaxRank, a header longer than
// kMaxNpyHeaderBytes, data of 2^62 bytes or more).
//
// A file is read header first, then exactly the data its shape and dtype
// imply (allocated as a HostBuffer, checked against the process's memory
// first): /dev/zero or a file of the wrong length is an error before any
// large allocation.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_NPY_H
#define VMAPC_NPY_H

#include "vmapc/ArtifactFormat.h"
#include "vmapc/HostBuffer.h"
#include "vmapc/Runtime.h"
#include "vmapc/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace vmapc {

/// The longest header dict a reader accepts (numpy itself refuses headers
/// over 10000 bytes unless told otherwise).
inline constexpr size_t kMaxNpyHeaderBytes = 65536;

/// An array read from a .npy file; owns its bytes.
struct NpyArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  /// Dense C-order elements, numElements x dtypeBytes(dtype) bytes. Bools
  /// are normalized to 0 / 1.
  HostBuffer data;

  int64_t numElements() const;

  /// A zero-filled array (e.g. an output buffer for `Executable::run`).
  /// Errors: kInvalidArgument for a negative dim, kOutOfRange for 2^62
  /// bytes or more, those of HostBuffer::allocate (kResourceExhausted).
  static Status zeros(DType dtype, const std::vector<int64_t> &shape,
                      NpyArray *out);
  /// Views for `Executable::run`; valid while this array is unchanged.
  HostArray view() const { return {data.data(), dtype, Shape(shape)}; }
  MutableHostArray mutableView() { return {data.data(), dtype, Shape(shape)}; }
};

/// Parses the `size` bytes of a .npy file. `name` is used in messages.
Status parseNpy(const void *bytes, size_t size, const std::string &name,
                NpyArray *out);
/// Reads the .npy file at `path` (header first, see above). Also the errors
/// of FileReader::open (kNotFound "PATH: cannot open: ...", ...).
Status readNpy(const std::string &path, NpyArray *out);

/// Encodes a dense C-order array as .npy bytes (rank <= kMaxRank, dims >= 0,
/// `data` holding prod(shape) elements of `dtype`).
Status serializeNpy(DType dtype, const std::vector<int64_t> &shape,
                    const void *data, std::string *out);
/// Writes a .npy file at `path` (replacing it): the header, then the data
/// straight from `data` (no copy).
Status writeNpy(const std::string &path, DType dtype,
                const std::vector<int64_t> &shape, const void *data);

} // namespace vmapc

#endif // VMAPC_NPY_H
