//===- Limits.h - the limits of vmapc programs ------------------*- C++ -*-===//
//
// Every limit a program (or IR handed to a pass) must respect, in one place,
// with the checked size arithmetic that enforces them. docs/language.md
// ("Limits") states them for users.
//
// Sizes. One byte limit serves the compiler and the runtime:
// `kMaxArrayBytes` (2^62) of runtime/include/vmapc/ArtifactFormat.h,
// mirrored here as `kMaxBytes` (Limits.cpp asserts at build time that the
// two agree; this header does not include the runtime's, whose names would
// clash with the compiler's). Every array of a program — declared,
// intermediate or batched, per example or for a whole
// batch — and every arena holds fewer bytes than that, and every element or
// byte count is computed with overflow-checked arithmetic
// (llvm/Support/CheckedArithmetic.h): two sizes below 2^62 can be added in
// int64 without overflow, so a size past the limit is always an error and
// never a wrapped-around value. On top of it, every dimension (a declared
// size, a batch B, an axis_size, a concat's sum, a loop's trip count) is at
// most 2^31 - 1: each index fits in a signed 32-bit integer, as GPU kernels
// index their arrays, and as numpy/JAX programs rarely exceed. A dimension
// may be 0 only where the language makes one (vmap with axis_size=0): such
// an array has 0 bytes and is planned like any other.
//
// Depths. Everything the input controls that a pass recurses on is bounded,
// so that no pass — ours or upstream's — runs out of stack (8 MiB, the
// default) or into super-linear compile time on nesting:
//   - kMaxExprNesting: parentheses and operators nested in one expression;
//   - kMaxExprHeight: operations in one expression (`a + a + ... + a`);
//   - kMaxNestingDepth: the bodies that enclose any point of the program
//     across calls: functions on a call chain, each level of a nested vmap
//     (one function in the IR) and each `for` body. After inlining, every
//     loop of an entry is nested at most this deep, and `--arr-vmap`
//     recurses once per enclosing body.
// Measured with the default 8 MiB stack before these limits: `--arr-vmap`
// overflowed between 3000 and 4000 nested calls; at 256 it uses well under
// 1 MiB.
//
// Artifact limits checked at an export, before any pass runs: kMaxEntryArgs
// inputs and kMaxEntryArgs outputs per entry, kMaxEntryRank dimensions per
// argument as the caller passes it, the batch axis included (so one less
// per example for a batched argument) (ArtifactFormat.h's kMaxArgs and
// kMaxRank, mirrored likewise).
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_DIALECT_LIMITS_H
#define VMAPC_DIALECT_LIMITS_H

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace vmapc {

/// The largest dimension size: 2^31 - 1.
inline constexpr int64_t kMaxDimSize = std::numeric_limits<int32_t>::max();
/// Every array and arena holds fewer bytes than this: 2^62, the runtime's
/// kMaxArrayBytes.
inline constexpr int64_t kMaxBytes = int64_t{1} << 62;
/// The largest alignment of an arena's offsets, in bytes (a page): the
/// runtime's kMaxArenaAlignment.
inline constexpr int64_t kMaxArenaAlignmentBytes = 4096;
/// Inputs, and separately outputs, of one exported entry: the runtime's
/// kMaxArgs.
inline constexpr size_t kMaxEntryArgs = 4096;
/// Dimensions of an entry's input or output as the caller passes it, the
/// batch axis included: the runtime's kMaxRank.
inline constexpr size_t kMaxEntryRank = 16;
/// Nesting of parentheses and operators in one expression.
inline constexpr unsigned kMaxExprNesting = 200;
/// Operations on the longest path of one expression tree.
inline constexpr unsigned kMaxExprHeight = 1000;
/// Function bodies, vmap levels and `for` bodies enclosing any point.
inline constexpr unsigned kMaxNestingDepth = 256;

/// The number of elements of `shape`, if every dimension is in
/// [0, kMaxDimSize] and the product of its non-zero dimensions times
/// `elementBytes` is below kMaxBytes; nullopt otherwise (never an overflowed
/// value). An empty shape (a 0 dimension) has 0 elements.
std::optional<int64_t> checkedNumElements(llvm::ArrayRef<int64_t> shape,
                                          int64_t elementBytes);

/// Bytes of one element of `type` as stored in memory (i1 takes one byte).
int64_t elementBytes(mlir::Type type);

/// Bytes of a statically shaped tensor or memref within the limits (as
/// checkedNumElements, with the bytes of its element type); nullopt for a
/// dynamic shape or one past a limit.
std::optional<int64_t> checkedByteSize(mlir::ShapedType type);

/// Why `type` is past a limit, for messages ("dimension 2 is 4294967296,
/// more than 2147483647", "it needs more than 2^62 bytes"); empty if it is
/// within the limits.
std::string describeLimitViolation(mlir::ShapedType type);

} // namespace vmapc

#endif // VMAPC_DIALECT_LIMITS_H
