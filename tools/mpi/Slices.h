//===- Slices.h - ranks' shares of a batch and their MPI datatypes -*- C++
//-*-===//
//
// How vmapc-mpi-run splits N examples over K ranks, where a rank's examples
// lie in an array mapped at any axis, and the MPI datatypes that move them
// with no `int` count above a limit.
//
// An argument mapped at axis k, of per-example shape d[0..r), in an array of
// M examples (its batched shape d[0..k) x M x d[k..r)), is `pre` =
// d[0] x ... x d[k-1] blocks of M x `row` bytes, `row` = d[k] x ... x d[r-1]
// x the element's bytes. Examples [s, s + n) of it are the `pre` blocks of
// n x row bytes that start at s x row and lie M x row bytes apart; in the
// rank's own array of n examples the same bytes are contiguous, in the same
// order. For axis 0 (`pre` = 1) that is one block.
//
// Open MPI's counts are `int`. A TypeMaker builds, for a slice, ONE datatype
// (sent or received as one element) out of MPI_BYTE; every count it gives a
// type constructor is at most its limit (INT_MAX; vmapc-mpi-run's
// --mpi-max-count lowers it for tests): c bytes or blocks with c > limit are
// q = c / limit repeats of a type of `limit` of them (recursively, if q >
// limit too) and a type of the r = c % limit others, joined by
// MPI_Type_create_struct. So the size of an array, of a slice or of one
// example is limited by the runtime's 2^62 bytes, not by MPI's int.
//
//===----------------------------------------------------------------------===//

#ifndef VMAPC_TOOLS_MPI_SLICES_H
#define VMAPC_TOOLS_MPI_SLICES_H

#include "vmapc/ArtifactFormat.h"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace vmapc::mpi {

/// Examples [start, start + count) of a batch.
struct Share {
  int64_t start = 0;
  int64_t count = 0;
};

/// Rank `rank`'s share of `n` examples over `size` ranks, as JAX's
/// split_for_jax_process splits them: n / size each, one more for the first
/// n % size ranks, in order (11 over 3: [0, 4), [4, 8), [8, 11)).
Share shareOf(int64_t n, int rank, int size);

/// A mapped argument's memory: `pre` blocks of (examples x `row`) bytes (the
/// file comment). An unmapped argument is one block of `row` bytes (`pre` =
/// 1, as if mapped at axis 0 with one example).
struct Layout {
  uint64_t pre = 1;
  uint64_t row = 0;
  /// The bytes of `examples` examples.
  uint64_t bytes(int64_t examples) const {
    return pre * uint64_t(examples) * row;
  }
};

Layout layoutOf(const ArgInfo &arg);

/// Copies `count` blocks of `bytes` from `src` to `dst`, `srcStride` and
/// `dstStride` bytes apart (rank 0's own share, packed or unpacked without
/// MPI).
void copyBlocks(unsigned char *dst, uint64_t dstStride,
                const unsigned char *src, uint64_t srcStride, uint64_t bytes,
                uint64_t count);

/// Makes committed MPI datatypes of `count` blocks of `bytes` bytes,
/// `stride` bytes apart, with no count above `limit` (the file comment), and
/// frees every type it made when it is destroyed. Every MPI status is
/// checked (checkMpi).
class TypeMaker {
public:
  /// `limit` >= 2 (so that a split makes progress).
  explicit TypeMaker(int limit);
  ~TypeMaker();
  TypeMaker(const TypeMaker &) = delete;
  TypeMaker &operator=(const TypeMaker &) = delete;

  /// `count` blocks of `bytes` bytes whose starts are `stride` bytes apart
  /// (`stride` >= `bytes`); one block is `bytes` contiguous bytes. Counts
  /// and bytes are at least 1, and count x stride is below 2^62.
  MPI_Datatype blocks(uint64_t count, uint64_t bytes, uint64_t stride);

  /// How many counts above the limit were split so far.
  int splits() const { return splitCount; }
  /// The largest count given to a type constructor so far.
  uint64_t largestCount() const { return largest; }

private:
  MPI_Datatype keep(MPI_Datatype type);
  MPI_Datatype repeat(uint64_t count, MPI_Datatype elem, uint64_t stride);

  uint64_t limit;
  int splitCount = 0;
  uint64_t largest = 0;
  std::vector<MPI_Datatype> made;
};

/// Non-blocking transfers, waited for together.
class Requests {
public:
  /// A request for an MPI_Isend or MPI_Irecv to fill.
  MPI_Request *add();
  /// MPI_Waitall on every request added; `what` names them in an error.
  void waitAll(const char *what);

private:
  std::vector<MPI_Request> list;
};

} // namespace vmapc::mpi

#endif // VMAPC_TOOLS_MPI_SLICES_H
