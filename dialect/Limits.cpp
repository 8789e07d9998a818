//===- Limits.cpp - checked size arithmetic for the limits ----------------===//

#include "dialect/Limits.h"

#include "vmapc/ArtifactFormat.h"

#include "llvm/Support/CheckedArithmetic.h"

// The compiler's limits are the runtime's: one definition, checked here.
static_assert(static_cast<uint64_t>(vmapc::kMaxBytes) == vmapc::kMaxArrayBytes,
              "the size limit of dialect/Limits.h must be the runtime's");
static_assert(static_cast<size_t>(vmapc::kMaxArenaAlignmentBytes) ==
                  vmapc::kMaxArenaAlignment,
              "the arena alignment limit must be the runtime's");
static_assert(vmapc::kMaxEntryArgs == vmapc::kMaxArgs,
              "the entry argument limit must be the runtime's");
static_assert(vmapc::kMaxEntryRank == vmapc::kMaxRank,
              "the entry rank limit must be the runtime's");

using namespace mlir;

std::optional<int64_t> vmapc::checkedNumElements(llvm::ArrayRef<int64_t> shape,
                                                 int64_t elementBytes) {
  if (elementBytes < 1)
    return std::nullopt;
  // The product of the non-zero dimensions is bounded too, so that an empty
  // array's strides (computed by later passes from the other dimensions)
  // cannot overflow either.
  int64_t bytes = elementBytes;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0 || d > kMaxDimSize)
      return std::nullopt;
    if (d == 0) {
      empty = true;
      continue;
    }
    std::optional<int64_t> next = llvm::checkedMul(bytes, d);
    if (!next || *next >= kMaxBytes)
      return std::nullopt;
    bytes = *next;
  }
  return empty ? 0 : bytes / elementBytes;
}

int64_t vmapc::elementBytes(Type type) {
  if (type.isIntOrFloat())
    return (type.getIntOrFloatBitWidth() + 7) / 8;
  if (type.isIndex())
    return 8;
  return 0;
}

std::optional<int64_t> vmapc::checkedByteSize(ShapedType type) {
  if (!type || !type.hasStaticShape())
    return std::nullopt;
  int64_t bytes = elementBytes(type.getElementType());
  std::optional<int64_t> elements = checkedNumElements(type.getShape(), bytes);
  if (!elements)
    return std::nullopt;
  return *elements * bytes;
}

std::string vmapc::describeLimitViolation(ShapedType type) {
  if (!type.hasStaticShape())
    return "its shape is not static";
  for (auto [i, d] : llvm::enumerate(type.getShape()))
    if (d > kMaxDimSize)
      return "dimension " + std::to_string(i) + " is " + std::to_string(d) +
             ", more than " + std::to_string(kMaxDimSize);
  if (elementBytes(type.getElementType()) < 1)
    return "its element type has no size";
  if (!checkedByteSize(type))
    return "it needs 2^62 bytes or more";
  return "";
}
