//===- npy_reader_fuzzer.cpp - libFuzzer: the .npy reader -----------------===//
//
// Input: the bytes of a .npy file, read with `parseNpy` from memory and with
// `readNpy` from a file (header first, then the data).
//
// Checked: no crash or sanitizer report; both readers accept or both reject,
// and agree on what they accept; every array accepted is consistent (its
// bytes are numElements x dtype size, bools are 0 or 1) and round-trips
// through `serializeNpy` + `parseNpy` unchanged.
//
//===----------------------------------------------------------------------===//

#include "FuzzFile.h"
#include "vmapc/Npy.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace vmapc;

namespace {
[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "npy_reader_fuzzer: %s\n", what);
  std::abort();
}

bool sameArray(const NpyArray &a, const NpyArray &b) {
  return a.dtype == b.dtype && a.shape == b.shape &&
         a.data.size() == b.data.size() &&
         (a.data.size() == 0 ||
          std::memcmp(a.data.data(), b.data.data(), a.data.size()) == 0);
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static vmapc_fuzz::FuzzFile file;
  NpyArray array, fromFile;
  bool parsed = parseNpy(data, size, "fuzz.npy", &array).ok();
  bool read = readNpy(file.write(data, size), &fromFile).ok();
  if (parsed != read)
    fail(parsed ? "readNpy rejects what parseNpy accepts"
                : "readNpy accepts what parseNpy rejects");
  if (!parsed)
    return 0;
  if (!sameArray(array, fromFile))
    fail("readNpy and parseNpy read different arrays");
  uint64_t elements = 1;
  for (int64_t d : array.shape) {
    if (d < 0)
      fail("a parsed array has a negative dimension");
    elements *= uint64_t(d);
  }
  if (array.data.size() != elements * dtypeBytes(array.dtype))
    fail("a parsed array's byte count does not match its shape and dtype");
  if (array.dtype == DType::Bool)
    for (size_t i = 0; i < array.data.size(); ++i)
      if (array.data.data()[i] > 1)
        fail("a parsed bool array holds a value other than 0 or 1");

  std::string bytes;
  if (!serializeNpy(array.dtype, array.shape, array.data.data(), &bytes).ok())
    fail("an array the reader accepts does not serialize");
  NpyArray again;
  if (!parseNpy(bytes.data(), bytes.size(), "again.npy", &again).ok())
    fail("a serialized array does not parse");
  if (!sameArray(again, array))
    fail("an array changed through serialize + parse");
  return 0;
}
