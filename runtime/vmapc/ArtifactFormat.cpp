//===- ArtifactFormat.cpp - the format types' helpers ---------------------===//
//
// Sizes, names and shapes of ArtifactFormat.h's types. The validator, the
// reader and the writer are in their own files (ArtifactValidator.h,
// ArtifactReader.h, ArtifactWriter.h).
//
//===----------------------------------------------------------------------===//

#include "vmapc/ArtifactFormat.h"

#include <algorithm>

namespace vmapc {

size_t dtypeBytes(DType dtype) {
  switch (dtype) {
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::Bool:
    return 1;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::Bool:
    return "bool";
  }
  return "invalid";
}

const char *codeKindName(CodeKind kind) {
  switch (kind) {
  case CodeKind::CpuElf:
    return "x86-64 ELF";
  case CodeKind::CudaCubin:
    return "CUDA cubin";
  case CodeKind::CudaPtx:
    return "CUDA PTX";
  }
  return "unknown";
}

size_t arenaAlignmentOf(const Artifact &artifact) {
  size_t alignment = kArenaAlignment;
  for (const EntryInfo &entry : artifact.entries)
    alignment = std::max<size_t>(alignment, entry.arenaAlignment);
  return alignment;
}

uint64_t fnv1a64(const void *data, size_t size) {
  const auto *p = static_cast<const unsigned char *>(data);
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < size; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

std::optional<uint64_t> checkedMulBytes(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_mul_overflow(a, b, &r) || r >= kMaxArrayBytes)
    return std::nullopt;
  return r;
}

std::optional<uint64_t> checkedAddBytes(uint64_t a, uint64_t b) {
  uint64_t r;
  if (__builtin_add_overflow(a, b, &r) || r >= kMaxArrayBytes)
    return std::nullopt;
  return r;
}

std::optional<uint64_t> arrayBytes(DType dtype, const int64_t *dims,
                                   size_t rank) {
  std::optional<uint64_t> bytes = dtypeBytes(dtype);
  if (*bytes == 0)
    return std::nullopt;
  bool empty = false;
  for (size_t i = 0; i < rank && bytes; ++i) {
    if (dims[i] < 0)
      return std::nullopt;
    if (dims[i] == 0)
      empty = true;
    else
      bytes = checkedMulBytes(*bytes, uint64_t(dims[i]));
  }
  if (!bytes)
    return std::nullopt;
  return empty ? 0 : *bytes;
}

int64_t exampleBytes(const ArgInfo &arg) {
  std::optional<uint64_t> bytes =
      arrayBytes(arg.dtype, arg.shape.data(), arg.shape.size());
  return bytes ? int64_t(*bytes) : -1;
}

std::vector<int64_t> batchedShape(const ArgInfo &arg, int64_t n) {
  std::vector<int64_t> shape = arg.shape;
  if (arg.isMapped())
    shape.insert(shape.begin() + arg.mappedAxis, n);
  return shape;
}

} // namespace vmapc
