//===- Slices.cpp - ranks' shares of a batch and their MPI datatypes ------===//

#include "Slices.h"

#include "Ranks.h"

#include <algorithm>
#include <cstring>

namespace vmapc::mpi {

Share shareOf(int64_t n, int rank, int size) {
  int64_t base = n / size, extra = n % size;
  return {rank * base + std::min<int64_t>(rank, extra),
          base + (rank < extra ? 1 : 0)};
}

Layout layoutOf(const ArgInfo &arg) {
  Layout l;
  l.row = dtypeBytes(arg.dtype);
  for (size_t i = 0; i < arg.shape.size(); ++i)
    (int64_t(i) < arg.mappedAxis ? l.pre : l.row) *= uint64_t(arg.shape[i]);
  return l;
}

void copyBlocks(unsigned char *dst, uint64_t dstStride,
                const unsigned char *src, uint64_t srcStride, uint64_t bytes,
                uint64_t count) {
  for (uint64_t i = 0; i < count; ++i)
    std::memcpy(dst + i * dstStride, src + i * srcStride, bytes);
}

TypeMaker::TypeMaker(int limit) : limit(uint64_t(std::max(limit, 2))) {}

TypeMaker::~TypeMaker() {
  for (MPI_Datatype &type : made)
    checkMpi(MPI_Type_free(&type), "MPI_Type_free");
}

MPI_Datatype TypeMaker::keep(MPI_Datatype type) {
  made.push_back(type);
  return type;
}

MPI_Datatype TypeMaker::blocks(uint64_t count, uint64_t bytes,
                               uint64_t stride) {
  MPI_Datatype block = repeat(bytes, MPI_BYTE, 1);
  MPI_Datatype type = count == 1 ? block : repeat(count, block, stride);
  checkMpi(MPI_Type_commit(&type), "MPI_Type_commit");
  return type;
}

/// `count` copies of `elem`, `stride` bytes apart. No product below wraps:
/// count x stride is below 2^62 (an array's bytes), and so are the strides
/// and displacements of the parts.
MPI_Datatype TypeMaker::repeat(uint64_t count, MPI_Datatype elem,
                               uint64_t stride) {
  MPI_Datatype type;
  if (count <= limit) {
    largest = std::max(largest, count);
    MPI_Aint lowerBound = 0, extent = 0;
    checkMpi(MPI_Type_get_extent(elem, &lowerBound, &extent),
             "MPI_Type_get_extent");
    if (uint64_t(extent) == stride)
      checkMpi(MPI_Type_contiguous(int(count), elem, &type),
               "MPI_Type_contiguous");
    else
      checkMpi(
          MPI_Type_create_hvector(int(count), 1, MPI_Aint(stride), elem, &type),
          "MPI_Type_create_hvector");
    return keep(type);
  }
  // count = q x limit + r: q repeats of (limit repeats), then r repeats.
  ++splitCount;
  uint64_t q = count / limit, r = count % limit;
  MPI_Datatype inner = repeat(limit, elem, stride);
  MPI_Datatype outer = repeat(q, inner, limit * stride);
  if (r == 0)
    return outer;
  MPI_Datatype rest = repeat(r, elem, stride);
  int lengths[2] = {1, 1};
  MPI_Aint displacements[2] = {0, MPI_Aint(q * limit * stride)};
  MPI_Datatype parts[2] = {outer, rest};
  largest = std::max<uint64_t>(largest, 2);
  checkMpi(MPI_Type_create_struct(2, lengths, displacements, parts, &type),
           "MPI_Type_create_struct");
  return keep(type);
}

MPI_Request *Requests::add() {
  list.push_back(MPI_REQUEST_NULL);
  return &list.back();
}

void Requests::waitAll(const char *what) {
  std::vector<MPI_Status> statuses(list.size());
  int rc = MPI_Waitall(int(list.size()), list.data(), statuses.data());
  if (rc == MPI_ERR_IN_STATUS)
    for (const MPI_Status &s : statuses)
      if (s.MPI_ERROR != MPI_SUCCESS && s.MPI_ERROR != MPI_ERR_PENDING)
        rc = s.MPI_ERROR;
  checkMpi(rc, "MPI_Waitall", what);
  list.clear();
}

} // namespace vmapc::mpi
