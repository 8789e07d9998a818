//===- RandomPrograms.h - random per-example arr programs -------*- C++ -*-===//
//
// Random programs for the batching invariant (docs/design.md "Testing":
// "checked on random programs and random in/out axes").
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TEST_ORACLE_RANDOMPROGRAMS_H
#define VMAPC_TEST_ORACLE_RANDOMPROGRAMS_H

#include <cstdint>
#include <string>

namespace vmapc::oracle::test {

/// A random module, deterministic in `seed`: a private per-example function
/// @f of two f32 operands of one random shape (rank 1 to 3), a random chain
/// of arr ops (elementwise, transpose, reshape, broadcast_in_dim, reductions,
/// dot_general; and half of the time one of abs, sign, maximum,
/// minimum, pow, select on cmp/not/and/or, convert, concat, slice, iota, or
/// an arr.for with a const, a carry and possibly a scalar carry), giving an
/// f32 result and possibly an argmin/argmax (i32), an i32 result of
/// convert/sign/maximum and a cmp (bool) result; and a public export @entry =
/// vmap(f) with random in_axes (an operand may be unmapped; at least one is
/// mapped) and random out_axes, with "{B}" standing for the batch size.
std::string randomProgram(uint64_t seed);

} // namespace vmapc::oracle::test

#endif // VMAPC_TEST_ORACLE_RANDOMPROGRAMS_H
