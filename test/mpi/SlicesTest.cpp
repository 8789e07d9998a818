//===- SlicesTest.cpp - vmapc-mpi-run's split, layouts and datatypes ------===//
//
// tools/mpi/Slices.h on one process (MPI's singleton start, no mpirun): the
// split of N examples over K ranks, where a rank's examples lie in an array
// mapped at each axis, and the datatypes of TypeMaker checked byte by byte
// with MPI_Pack and MPI_Unpack at small limits, where counts are split into
// two and three levels of nested types as counts above INT_MAX are.
//
//===----------------------------------------------------------------------===//

#include "Slices.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <climits>
#include <cstdint>
#include <numeric>
#include <vector>

using namespace vmapc;
using namespace vmapc::mpi;

namespace {

TEST(Slices, ShareOfSplitsAsJax) {
  // jax.experimental.multihost_utils' split_for_jax_process: the first
  // n % k ranks get one example more.
  std::vector<int64_t> counts;
  for (int r = 0; r < 3; ++r)
    counts.push_back(shareOf(11, r, 3).count);
  EXPECT_EQ(counts, (std::vector<int64_t>{4, 4, 3}));
  for (int64_t n : {0, 1, 2, 5, 7, 8, 13, 1000003})
    for (int k : {1, 2, 3, 4, 7, 16}) {
      int64_t next = 0;
      for (int r = 0; r < k; ++r) {
        Share s = shareOf(n, r, k);
        EXPECT_EQ(s.start, next) << n << " over " << k << ", rank " << r;
        EXPECT_EQ(s.count, n / k + (r < n % k ? 1 : 0));
        next = s.start + s.count;
      }
      EXPECT_EQ(next, n) << n << " over " << k;
    }
  // Past 2^31 examples.
  Share last = shareOf(int64_t(1) << 40, 2, 3);
  EXPECT_EQ(last.start + last.count, int64_t(1) << 40);
}

TEST(Slices, LayoutOfEachAxis) {
  ArgInfo arg;
  arg.dtype = DType::F32;
  arg.shape = {4, 3};
  auto layout = [&](int32_t axis) {
    arg.mappedAxis = axis;
    Layout l = layoutOf(arg);
    return std::pair<uint64_t, uint64_t>{l.pre, l.row};
  };
  using P = std::pair<uint64_t, uint64_t>;
  EXPECT_EQ(layout(0), (P{1, 48})); // [N, 4, 3]
  EXPECT_EQ(layout(1), (P{4, 12})); // [4, N, 3]
  EXPECT_EQ(layout(2), (P{12, 4})); // [4, 3, N]
  EXPECT_EQ(layout(kNoAxis), (P{1, 48}));
  arg.mappedAxis = 1;
  EXPECT_EQ(layoutOf(arg).bytes(5), 4u * 5 * 12);
  arg.dtype = DType::Bool;
  arg.shape = {};
  arg.mappedAxis = 0;
  EXPECT_EQ(layout(0), (P{1, 1}));
}

/// Packs `count` blocks of `bytes`, `stride` apart, out of a buffer of
/// distinct bytes with a TypeMaker of `limit`, checks the packed bytes and
/// that unpacking puts them back in place and nothing else; returns the
/// maker's splits.
int checkBlocks(int limit, uint64_t count, uint64_t bytes, uint64_t stride) {
  SCOPED_TRACE("limit " + std::to_string(limit) + ", " + std::to_string(count) +
               " blocks of " + std::to_string(bytes) + " bytes " +
               std::to_string(stride) + " apart");
  uint64_t span = (count - 1) * stride + bytes;
  std::vector<unsigned char> source(span);
  std::iota(source.begin(), source.end(), 1);
  std::vector<unsigned char> want;
  for (uint64_t b = 0; b < count; ++b)
    want.insert(want.end(), source.begin() + b * stride,
                source.begin() + b * stride + bytes);

  TypeMaker types(limit);
  MPI_Datatype type = types.blocks(count, bytes, stride);
  EXPECT_LE(types.largestCount(), uint64_t(limit));
  int size = 0;
  EXPECT_EQ(MPI_Type_size(type, &size), MPI_SUCCESS);
  EXPECT_EQ(uint64_t(size), count * bytes);

  std::vector<unsigned char> packed(want.size() + 64);
  int position = 0;
  EXPECT_EQ(MPI_Pack(source.data(), 1, type, packed.data(), int(packed.size()),
                     &position, MPI_COMM_SELF),
            MPI_SUCCESS);
  EXPECT_EQ(uint64_t(position), want.size());
  packed.resize(want.size());
  EXPECT_EQ(packed, want);

  std::vector<unsigned char> back(span, 0);
  position = 0;
  EXPECT_EQ(MPI_Unpack(packed.data(), int(packed.size()), &position,
                       back.data(), 1, type, MPI_COMM_SELF),
            MPI_SUCCESS);
  for (uint64_t i = 0; i < span; ++i) {
    bool inBlock = i % stride < bytes;
    if (back[i] != (inBlock ? source[i] : 0)) {
      ADD_FAILURE() << "byte " << i << " after unpacking";
      break;
    }
  }
  return types.splits();
}

TEST(Slices, TypeMakerUnderTheLimit) {
  EXPECT_EQ(checkBlocks(INT_MAX, 1, 100, 100), 0);
  EXPECT_EQ(checkBlocks(INT_MAX, 5, 12, 40), 0);
  EXPECT_EQ(checkBlocks(7, 7, 7, 7), 0); // counts equal to the limit
  EXPECT_EQ(checkBlocks(7, 3, 7, 20), 0);
}

TEST(Slices, TypeMakerSplitsCounts) {
  // Bytes over the limit: q x limit + r, with and without a remainder.
  EXPECT_GT(checkBlocks(7, 1, 8, 8), 0);
  EXPECT_GT(checkBlocks(7, 1, 14, 14), 0);
  EXPECT_GT(checkBlocks(7, 1, 100, 100), 0);
  // Blocks over the limit, and both at once.
  EXPECT_GT(checkBlocks(7, 9, 3, 5), 0);
  EXPECT_GT(checkBlocks(7, 20, 12, 36), 0);
  EXPECT_GT(checkBlocks(2, 5, 5, 5), 0); // contiguous blocks
  // Three levels: q = count / limit is over the limit too.
  EXPECT_GE(checkBlocks(3, 1, 40, 40), 2);
  EXPECT_GE(checkBlocks(2, 11, 9, 13), 2);
  // Every combination of small counts at limit 3.
  for (uint64_t count = 1; count <= 10; ++count)
    for (uint64_t bytes = 1; bytes <= 10; ++bytes)
      for (uint64_t gap : {0, 1, 5})
        checkBlocks(3, count, bytes, bytes + gap);
}

} // namespace

// Under ASan (scripts/test-sanitized.sh): what Open MPI allocates in MPI_Init
// and keeps past MPI_Finalize is not this test's leak (lsan.supp, which
// mpi_run_test.py gives vmapc-mpi-run). The slow unwinder sees the MPI
// libraries' frames. Unused in other builds.
extern "C" const char *__lsan_default_suppressions() {
  return "leak:libmpi.so\nleak:libopen-pal.so\nleak:libopen-rte.so\n"
         "leak:libevent\n";
}
extern "C" const char *__asan_default_options() {
  return "fast_unwind_on_malloc=0";
}

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
    return 1;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int result = RUN_ALL_TESTS();
  MPI_Finalize();
  return result;
}
