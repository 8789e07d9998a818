//===- BufferPlanTest.cpp - unit tests of the buffer planner --------------===//

#include "passes/BufferPlan.h"
#include "dialect/ArrDialect.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "gtest/gtest.h"

#include <random>
#include <sstream>

using namespace mlir;
using vmapc::BufferRequest;
using vmapc::OffsetAssignment;

namespace {

/// The assignment of `requests`, which must succeed.
OffsetAssignment assign(ArrayRef<BufferRequest> requests, int64_t alignment) {
  std::optional<OffsetAssignment> result =
      vmapc::assignOffsetsGreedyBySize(requests, alignment);
  if (!result) {
    ADD_FAILURE() << "assignOffsetsGreedyBySize failed";
    return {};
  }
  return *result;
}

/// Checks the invariants of any assignment: aligned offsets, no two requests
/// live at one point share a byte, the arena holds every request, and the
/// arena is no smaller than the lower bound.
void expectValid(ArrayRef<BufferRequest> requests,
                 const OffsetAssignment &result, int64_t alignment) {
  ASSERT_EQ(result.offsets.size(), requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(result.offsets[i] % alignment, 0) << "request " << i;
    EXPECT_LE(result.offsets[i] + requests[i].bytes, result.arenaBytes);
    for (size_t j = i + 1; j < requests.size(); ++j) {
      if (!requests[i].live.overlaps(requests[j].live))
        continue;
      bool disjoint =
          result.offsets[i] + requests[i].bytes <= result.offsets[j] ||
          result.offsets[j] + requests[j].bytes <= result.offsets[i];
      EXPECT_TRUE(disjoint) << "requests " << i << " and " << j << " overlap";
    }
  }
  EXPECT_GE(result.arenaBytes, vmapc::computeLowerBound(requests));
}

TEST(AssignOffsets, Empty) {
  OffsetAssignment result = assign({}, 256);
  EXPECT_TRUE(result.offsets.empty());
  EXPECT_EQ(result.arenaBytes, 0);
  EXPECT_EQ(vmapc::computeLowerBound({}), 0);
}

TEST(AssignOffsets, DisjointIntervalsShareOffsetZero) {
  std::vector<BufferRequest> requests = {
      {100, {0, 1}}, {300, {2, 3}}, {200, {4, 5}}, {50, {6, 6}}};
  OffsetAssignment result = assign(requests, 1);
  expectValid(requests, result, 1);
  EXPECT_EQ(result.arenaBytes, 300);
  for (int64_t offset : result.offsets)
    EXPECT_EQ(offset, 0);
  EXPECT_EQ(vmapc::computeLowerBound(requests), 300);
}

TEST(AssignOffsets, ChainNeedsTwoNeighbours) {
  // Each buffer overlaps only its neighbours: the optimum is the largest sum
  // of two neighbours.
  std::vector<BufferRequest> requests = {{100, {0, 1}},
                                         {200, {1, 2}},
                                         {100, {2, 3}},
                                         {200, {3, 4}},
                                         {100, {4, 5}}};
  OffsetAssignment result = assign(requests, 1);
  expectValid(requests, result, 1);
  EXPECT_EQ(vmapc::computeLowerBound(requests), 300);
  EXPECT_EQ(result.arenaBytes, 300);
}

TEST(AssignOffsets, AllOverlappingIsTheSum) {
  std::vector<BufferRequest> requests = {
      {64, {0, 9}}, {128, {3, 4}}, {32, {1, 5}}, {256, {4, 7}}};
  OffsetAssignment result = assign(requests, 1);
  expectValid(requests, result, 1);
  EXPECT_EQ(result.arenaBytes, 64 + 128 + 32 + 256);
  EXPECT_EQ(vmapc::computeLowerBound(requests), 64 + 128 + 32 + 256);
  // Largest first: the 256-byte request sits at 0, the 128 above it.
  EXPECT_EQ(result.offsets[3], 0);
  EXPECT_EQ(result.offsets[1], 256);
}

TEST(AssignOffsets, GreedyBySizeMeetsTheOptimum) {
  // The small request `e` fits in the hole under `b` that `a` and `c` left:
  // arena == lower bound == 80 (b + c + d at point 3). Placing in order of
  // first use instead (a, b, c, d, e at the lowest free address) needs 96.
  std::vector<BufferRequest> requests = {
      {32, {0, 1}}, // a
      {28, {1, 4}}, // b
      {36, {2, 3}}, // c
      {16, {3, 5}}, // d
      {8, {4, 5}},  // e
  };
  OffsetAssignment result = assign(requests, 1);
  expectValid(requests, result, 1);
  EXPECT_EQ(vmapc::computeLowerBound(requests), 80);
  EXPECT_EQ(result.arenaBytes, 80);
  EXPECT_EQ(result.offsets[2], 0);  // c, the largest
  EXPECT_EQ(result.offsets[0], 0);  // a, disjoint from c
  EXPECT_EQ(result.offsets[1], 36); // b above a and c
  EXPECT_EQ(result.offsets[3], 64); // d above c and b
  EXPECT_EQ(result.offsets[4], 0);  // e in the hole below b, best fit
}

TEST(AssignOffsets, BestFitPrefersTheTightestGap) {
  // For requests live over [2, 9], the larger ones leave two holes: 30 bytes
  // at [160, 190) and 10 bytes at [315, 325). The last 10-byte request takes
  // the 10-byte hole (best fit), where first fit would take the other.
  std::vector<BufferRequest> requests = {
      {100, {0, 9}}, // x: [0, 100)
      {90, {0, 1}},  // y: [100, 190)
      {70, {0, 9}},  // w: [190, 260)
      {65, {0, 1}},  // t: [260, 325)
      {60, {2, 9}},  // z: [100, 160), where y was
      {55, {2, 9}},  // u: [260, 315), the 30-byte hole is too small
      {50, {0, 9}},  // m: [325, 375)
      {10, {2, 9}},  // v: [315, 325)
  };
  OffsetAssignment result = assign(requests, 1);
  expectValid(requests, result, 1);
  std::vector<int64_t> expected = {0, 100, 190, 260, 100, 260, 325, 315};
  EXPECT_EQ(result.offsets, expected);
  EXPECT_EQ(result.arenaBytes, 375);
}

TEST(AssignOffsets, OffsetsAreAligned) {
  std::vector<BufferRequest> requests = {
      {100, {0, 2}}, {100, {1, 3}}, {10, {3, 4}}};
  OffsetAssignment result = assign(requests, 64);
  expectValid(requests, result, 64);
  EXPECT_EQ(result.offsets[0], 0);
  EXPECT_EQ(result.offsets[1], 128);
  // Overlaps only the second: the gap [0, 128) below it is free.
  EXPECT_EQ(result.offsets[2], 0);
  EXPECT_EQ(result.arenaBytes, 228);
  // The lower bound counts exact bytes, alignment aside.
  EXPECT_EQ(vmapc::computeLowerBound(requests), 200);
}

TEST(LowerBound, LargestLiveSum) {
  std::vector<BufferRequest> requests = {
      {10, {0, 2}}, {20, {2, 4}}, {40, {5, 6}}, {5, {3, 5}}};
  // Point 2: 10 + 20; point 3, 4: 20 + 5; point 5: 40 + 5.
  EXPECT_EQ(vmapc::computeLowerBound(requests), 45);
}

TEST(AssignOffsets, RandomSetsAreValidAndNearTheBound) {
  std::mt19937 rng(42);
  int64_t totalArena = 0, totalBound = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<BufferRequest> requests;
    int count = 1 + static_cast<int>(rng() % 30);
    for (int i = 0; i < count; ++i) {
      int64_t start = rng() % 40;
      int64_t length = rng() % 8;
      int64_t bytes = 1 + static_cast<int64_t>(rng() % 4096);
      requests.push_back({bytes, {start, start + length}});
    }
    int64_t alignment = int64_t{1} << (rng() % 9);
    OffsetAssignment result = assign(requests, alignment);
    expectValid(requests, result, alignment);
    if (alignment == 1) {
      totalArena += result.arenaBytes;
      totalBound += vmapc::computeLowerBound(requests).value_or(0);
    }
  }
  // Greedy by size stays within a few percent of the bound on such sets.
  EXPECT_LE(static_cast<double>(totalArena),
            1.15 * static_cast<double>(totalBound));
}

constexpr int64_t kLimitForTests = int64_t{1} << 62;

/// The arena of `requests` placed in `order` (which must succeed).
int64_t arenaInOrder(ArrayRef<BufferRequest> requests,
                     vmapc::PlacementOrder order, int64_t alignment = 1) {
  std::optional<OffsetAssignment> result =
      vmapc::assignOffsetsInOrder(requests, alignment, order);
  if (!result) {
    ADD_FAILURE() << "assignOffsetsInOrder failed";
    return -1;
  }
  expectValid(requests, *result, alignment);
  return result->arenaBytes;
}

// Each order wins once: on each set below it alone reaches the lower bound,
// and assignOffsets keeps its placement. (At an alignment of 1 no size
// lacks padding, and the padding order is the size order.)
TEST(AssignOffsets, BySizeWinsWhenTheLargestComesLast) {
  // Point 2..3: a + c = 110; point 4: c + d = 100; points 5..6: b + d = 120.
  std::vector<BufferRequest> requests = {
      {50, {2, 3}}, // a
      {80, {5, 7}}, // b
      {60, {1, 4}}, // c
      {40, {4, 6}}, // d
  };
  EXPECT_EQ(vmapc::computeLowerBound(requests), 120);
  // b and c (disjoint) at 0, a on c, d on b.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::BySize), 120);
  // First use first: c, a above it, d above c (60), then b above d: 100.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByStart), 180);
  // c and d (two conflicts each) first, stacked; b above d again.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByConflicts), 180);
  std::optional<OffsetAssignment> best = vmapc::assignOffsets(requests, 1);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->order, vmapc::PlacementOrder::BySize);
  EXPECT_EQ(best->arenaBytes, 120);
  std::vector<int64_t> expected = {60, 0, 0, 80};
  EXPECT_EQ(best->offsets, expected);
}

TEST(AssignOffsets, ByStartWinsWhenTheLargestDoesNotOverlapTheEarliest) {
  // Point 3: a + c = 70; point 4: a + d = 30; point 5: b + d = 70.
  std::vector<BufferRequest> requests = {
      {20, {3, 4}}, // a
      {60, {5, 5}}, // b
      {50, {3, 3}}, // c
      {10, {4, 6}}, // d
  };
  EXPECT_EQ(vmapc::computeLowerBound(requests), 70);
  // b at 0 first leaves d (live with a at 50 and b) no room below 70.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::BySize), 80);
  // c at 0, a on it, d into the 50-byte gap under a, b above d.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByStart), 70);
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByConflicts), 90);
  std::optional<OffsetAssignment> best = vmapc::assignOffsets(requests, 1);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->order, vmapc::PlacementOrder::ByStart);
  EXPECT_EQ(best->arenaBytes, 70);
  std::vector<int64_t> expected = {50, 10, 0, 0};
  EXPECT_EQ(best->offsets, expected);
}

TEST(AssignOffsets, ByConflictsWinsWhenTheBusiestGoesFirst) {
  // Point 2: b + c + d = 90; point 3: b + d = 70; points 4..5: a + d = 80.
  std::vector<BufferRequest> requests = {
      {50, {4, 7}}, // a: conflicts with d
      {40, {1, 3}}, // b: c, d
      {20, {2, 2}}, // c: b, d
      {30, {2, 5}}, // d: a, b, c
  };
  EXPECT_EQ(vmapc::computeLowerBound(requests), 90);
  // a and b at 0, d above both (50), c above d: 100.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::BySize), 100);
  // b at 0, d above it, c above d, a above d: 120.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByStart), 120);
  // d at 0, b on it, c on b, a on d where b and c were.
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByConflicts), 90);
  std::optional<OffsetAssignment> best = vmapc::assignOffsets(requests, 1);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->order, vmapc::PlacementOrder::ByConflicts);
  EXPECT_EQ(best->arenaBytes, 90);
  std::vector<int64_t> expected = {30, 30, 70, 0};
  EXPECT_EQ(best->offsets, expected);
}

TEST(AssignOffsets, ByPaddingWinsWhenAllAreLiveAtOnce) {
  // All live together at 64-byte alignment: a, b and c lack 28, 58 and 0
  // bytes to a multiple of 64. Largest first stacks a, b, c at 0, 128 and
  // 256; least padding first puts b, the most padded, on top.
  std::vector<BufferRequest> requests = {
      {100, {0, 1}}, // a
      {70, {0, 1}},  // b
      {64, {0, 1}},  // c
  };
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::BySize, 64), 320);
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByStart, 64), 320);
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByConflicts, 64),
            320);
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::ByPadding, 64), 262);
  std::optional<OffsetAssignment> best = vmapc::assignOffsets(requests, 64);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->order, vmapc::PlacementOrder::ByPadding);
  std::vector<int64_t> expected = {64, 192, 0};
  EXPECT_EQ(best->offsets, expected);
  // 64 + 128 + 128 - 58: the aligned lower bound, met.
  EXPECT_EQ(best->arenaBytes, 262);
  EXPECT_EQ(vmapc::computeAlignedLowerBound(requests, 64), 262);
  EXPECT_EQ(vmapc::computeLowerBound(requests), 234);
  EXPECT_STREQ(vmapc::placementOrderName(best->order), "padding");
}

TEST(AssignOffsets, TiesKeepTheFirstOrder) {
  // Every order reaches 300: by size is kept.
  std::vector<BufferRequest> requests = {{100, {0, 1}}, {200, {1, 2}}};
  std::optional<OffsetAssignment> best = vmapc::assignOffsets(requests, 1);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->arenaBytes, 300);
  EXPECT_EQ(best->order, vmapc::PlacementOrder::BySize);
  EXPECT_STREQ(vmapc::placementOrderName(best->order), "size");
  EXPECT_STREQ(vmapc::placementOrderName(vmapc::PlacementOrder::ByStart),
               "start");
  EXPECT_STREQ(vmapc::placementOrderName(vmapc::PlacementOrder::ByConflicts),
               "conflicts");
}

TEST(AssignOffsets, TheGapBeforeTheFirstBufferIsUsed) {
  // x takes [0, 300) and y (live with x) goes above it, at 320 with 64-byte
  // alignment. z is live with y only: the best packing puts it in the
  // 320 bytes below y, at offset 0, not above y.
  std::vector<BufferRequest> requests = {
      {300, {0, 1}}, // x
      {100, {1, 2}}, // y
      {250, {2, 3}}, // z
  };
  std::optional<OffsetAssignment> best = vmapc::assignOffsets(requests, 64);
  ASSERT_TRUE(best);
  expectValid(requests, *best, 64);
  std::vector<int64_t> expected = {0, 320, 0};
  EXPECT_EQ(best->offsets, expected);
  EXPECT_EQ(best->arenaBytes, 420);
  // In first-use order z comes after y, and best fit takes the gap below
  // y rather than the space above it.
  std::optional<OffsetAssignment> byStart =
      vmapc::assignOffsetsInOrder(requests, 64, vmapc::PlacementOrder::ByStart);
  ASSERT_TRUE(byStart);
  EXPECT_EQ(byStart->offsets, expected);
  EXPECT_EQ(byStart->arenaBytes, 420);
  // Exactly: x + y = 400 live at point 1. Aligned: x takes 320 bytes
  // before y, y ends at 420; or y 128 before x, x ends at 428.
  EXPECT_EQ(vmapc::computeLowerBound(requests), 400);
  EXPECT_EQ(vmapc::computeAlignedLowerBound(requests, 64), 420);
  // Byte-aligned, y sits right on x, and z still fits below it.
  std::optional<OffsetAssignment> exact = vmapc::assignOffsets(requests, 1);
  ASSERT_TRUE(exact);
  std::vector<int64_t> exactOffsets = {0, 300, 0};
  EXPECT_EQ(exact->offsets, exactOffsets);
  EXPECT_EQ(exact->arenaBytes, 400);
}

TEST(AssignOffsets, AtCudaAlignmentTheSmallBufferGoesFirst) {
  // The same set at 256 bytes: x at 0 puts y at 512 (612). The
  // conflict order places y (two conflicts) first at 0, x and z at 256:
  // 556, the aligned lower bound (256 + 300: y's 100 bytes padded to 256,
  // x's 300 unpadded on top).
  std::vector<BufferRequest> requests = {
      {300, {0, 1}}, {100, {1, 2}}, {250, {2, 3}}};
  EXPECT_EQ(arenaInOrder(requests, vmapc::PlacementOrder::BySize, 256), 612);
  std::optional<OffsetAssignment> best = vmapc::assignOffsets(requests, 256);
  ASSERT_TRUE(best);
  EXPECT_EQ(best->order, vmapc::PlacementOrder::ByConflicts);
  std::vector<int64_t> expected = {256, 0, 256};
  EXPECT_EQ(best->offsets, expected);
  EXPECT_EQ(best->arenaBytes, 556);
  EXPECT_EQ(vmapc::computeAlignedLowerBound(requests, 256), 556);
}

TEST(LowerBound, AlignedBoundPadsAllButTheHighestBuffer) {
  std::vector<BufferRequest> requests = {
      {10, {0, 2}}, {20, {2, 4}}, {40, {5, 6}}, {5, {3, 5}}};
  // Alignment 1: the exact bound.
  EXPECT_EQ(vmapc::computeAlignedLowerBound(requests, 1), 45);
  // 16: point 2: 16 + 32 - 12 = 36; point 3..4: 32 + 16 - 12 = 36;
  // point 5: 48 + 16 - 11 = 53.
  EXPECT_EQ(vmapc::computeAlignedLowerBound(requests, 16), 53);
  // 64: everything pads to 64; point 2: 64 + 64 - 54 = 74.
  EXPECT_EQ(vmapc::computeAlignedLowerBound(requests, 64), 74);
  EXPECT_EQ(vmapc::computeAlignedLowerBound({}, 64), 0);
  EXPECT_FALSE(vmapc::computeAlignedLowerBound(requests, 0));
  std::vector<BufferRequest> negative = {{-1, {0, 1}}};
  EXPECT_FALSE(vmapc::computeAlignedLowerBound(negative, 64));
}

TEST(AssignOffsets, RandomSetsStayAboveTheAlignedBound) {
  // The best of the orders is never worse than greedy by size, and never
  // below the aligned lower bound (which is never below the exact one).
  std::mt19937 rng(1234);
  int wins[4] = {0, 0, 0, 0};
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<BufferRequest> requests;
    int count = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < count; ++i) {
      int64_t start = rng() % 20;
      requests.push_back({1 + static_cast<int64_t>(rng() % 1000),
                          {start, start + static_cast<int64_t>(rng() % 6)}});
    }
    int64_t alignment = int64_t{1} << (rng() % 9);
    std::optional<OffsetAssignment> best =
        vmapc::assignOffsets(requests, alignment);
    ASSERT_TRUE(best);
    expectValid(requests, *best, alignment);
    std::optional<int64_t> aligned =
        vmapc::computeAlignedLowerBound(requests, alignment);
    ASSERT_TRUE(aligned);
    EXPECT_GE(best->arenaBytes, *aligned);
    EXPECT_GE(*aligned, vmapc::computeLowerBound(requests).value_or(-1));
    EXPECT_LE(best->arenaBytes,
              arenaInOrder(requests, vmapc::PlacementOrder::BySize, alignment));
    ++wins[static_cast<int>(best->order)];
  }
  // Sets like these are not all won by one order.
  EXPECT_GT(wins[0], 0);
  EXPECT_GT(wins[1] + wins[2] + wins[3], 0);
}

TEST(AssignOffsets, WithoutReuseEveryRequestHasItsOwnBytes) {
  std::vector<BufferRequest> requests = {
      {100, {0, 1}}, {30, {2, 3}}, {0, {3, 3}}, {64, {4, 5}}};
  std::optional<OffsetAssignment> result =
      vmapc::assignOffsetsWithoutReuse(requests, 64);
  ASSERT_TRUE(result);
  std::vector<int64_t> expected = {0, 128, 192, 192};
  EXPECT_EQ(result->offsets, expected);
  EXPECT_EQ(result->arenaBytes, 256);
  EXPECT_FALSE(vmapc::assignOffsetsWithoutReuse(requests, 0));
  std::vector<BufferRequest> huge = {{kLimitForTests / 2, {0, 0}},
                                     {kLimitForTests / 2, {1, 1}}};
  EXPECT_FALSE(vmapc::assignOffsetsWithoutReuse(huge, 1));
}

TEST(ArenaAlignment, PowersOfTwoUpToAPage) {
  for (int64_t ok : {1, 2, 64, 256, 4096})
    EXPECT_TRUE(vmapc::isValidArenaAlignment(ok)) << ok;
  std::string why;
  EXPECT_FALSE(vmapc::isValidArenaAlignment(0, &why));
  EXPECT_EQ(why, "arena alignment must be a power of two from 1 to 4096 "
                 "bytes, got 0");
  EXPECT_FALSE(vmapc::isValidArenaAlignment(48, &why));
  EXPECT_EQ(why, "arena alignment must be a power of two from 1 to 4096 "
                 "bytes, got 48");
  EXPECT_FALSE(vmapc::isValidArenaAlignment(8192));
  EXPECT_FALSE(vmapc::isValidArenaAlignment(-64));
}

constexpr int64_t kLimit = int64_t{1} << 62;

TEST(AssignOffsets, ZeroByteRequestsArePlaced) {
  // A 0-byte buffer (a shape with a 0 dimension) is legal and takes no room.
  std::vector<BufferRequest> requests = {
      {0, {0, 3}}, {64, {1, 2}}, {0, {2, 4}}};
  OffsetAssignment result = assign(requests, 16);
  expectValid(requests, result, 16);
  EXPECT_EQ(result.arenaBytes, 64);
  EXPECT_EQ(vmapc::computeLowerBound(requests), 64);
}

TEST(AssignOffsets, RejectsNegativeAndTooLargeSizes) {
  std::vector<BufferRequest> negative = {{64, {0, 1}}, {-8, {1, 2}}};
  EXPECT_FALSE(vmapc::assignOffsetsGreedyBySize(negative, 1));
  EXPECT_FALSE(vmapc::computeLowerBound(negative));
  std::vector<BufferRequest> tooLarge = {{kLimit, {0, 1}}};
  EXPECT_FALSE(vmapc::assignOffsetsGreedyBySize(tooLarge, 1));
  EXPECT_FALSE(vmapc::assignOffsetsGreedyBySize({}, 0));
}

TEST(AssignOffsets, ArenaPastTheLimitIsAnErrorNotAWrappedSize) {
  // Each fits; together, live at once, they need 2^62 bytes.
  std::vector<BufferRequest> requests = {{kLimit / 2, {0, 1}},
                                         {kLimit / 2, {1, 2}}};
  EXPECT_FALSE(vmapc::assignOffsetsGreedyBySize(requests, 1));
  EXPECT_FALSE(vmapc::computeLowerBound(requests));
  // Apart in time they share bytes, and fit.
  requests[1].live = {2, 3};
  std::optional<OffsetAssignment> apart =
      vmapc::assignOffsetsGreedyBySize(requests, 1);
  ASSERT_TRUE(apart);
  EXPECT_EQ(apart->arenaBytes, kLimit / 2);
  EXPECT_EQ(vmapc::computeLowerBound(requests), kLimit / 2);
  // Rounding an offset up to the alignment may pass the limit too.
  std::vector<BufferRequest> aligned = {{kLimit / 2 + 1, {0, 1}},
                                        {kLimit / 2 - 8, {0, 1}}};
  EXPECT_FALSE(vmapc::assignOffsetsGreedyBySize(aligned, 4096));
}

//===----------------------------------------------------------------------===//
// Whole functions
//===----------------------------------------------------------------------===//

class PlanFunction : public ::testing::Test {
protected:
  PlanFunction() {
    context.loadDialect<arith::ArithDialect, func::FuncDialect,
                        linalg::LinalgDialect, math::MathDialect,
                        memref::MemRefDialect, scf::SCFDialect,
                        vmapc::arr::ArrDialect>();
  }

  func::FuncOp parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return nullptr;
    return *module->getOps<func::FuncOp>().begin();
  }

  const vmapc::PlannedBuffer *row(const vmapc::BufferPlan &plan,
                                  StringRef name) {
    for (const vmapc::PlannedBuffer &buffer : plan.buffers)
      if (buffer.name == name)
        return &buffer;
    return nullptr;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

// %a = exp(%x) ; %b = neg(%a) ; out = %b + %y. %b may take %a's bytes.
constexpr const char *kElementwiseChain = R"mlir(
#id = affine_map<(d0) -> (d0)>
func.func @chain(%x: memref<64xf32>, %y: memref<64xf32>,
                 %out: memref<64xf32> {arr.name = "out", arr.output, arr.staging}) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %e = math.exp %i : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%i: f32, %o: f32):
    %n = arith.negf %i : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%b, %y : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%i: f32, %j: f32, %o: f32):
    %s = arith.addf %i, %j : f32
    linalg.yield %s : f32
  }
  return
}
)mlir";

TEST_F(PlanFunction, ElementwiseOutputTakesTheDyingInput) {
  func::FuncOp func = parse(kElementwiseChain);
  ASSERT_TRUE(func);
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, {256});
  ASSERT_TRUE(succeeded(plan));
  ASSERT_EQ(plan->buffers.size(), 3u);
  const vmapc::PlannedBuffer *out = row(*plan, "out");
  const vmapc::PlannedBuffer *a = row(*plan, "alloc0");
  const vmapc::PlannedBuffer *b = row(*plan, "alloc1");
  ASSERT_TRUE(out && a && b);
  EXPECT_EQ(out->kind, vmapc::PlannedBuffer::Kind::Staging);
  EXPECT_EQ(a->bytes, 256);
  // Schedule: 0 alloc, 1 exp, 2 alloc, 3 neg, 4 add, 5 return.
  EXPECT_EQ(a->live.start, 1);
  EXPECT_EQ(a->live.end, 3);
  EXPECT_EQ(b->live.start, 3);
  EXPECT_EQ(b->live.end, 4);
  EXPECT_EQ(out->live.start, 4);
  EXPECT_EQ(out->live.end, 5);
  EXPECT_EQ(b->inPlaceSource, 1); // row of alloc0
  EXPECT_EQ(b->offset, a->offset);
  EXPECT_EQ(b->slot, a->slot);
  EXPECT_EQ(plan->inPlace, 1);
  EXPECT_EQ(plan->numSlots, 2);
  EXPECT_EQ(plan->lowerBound, 512); // slot {a, b} + out at point 4
  EXPECT_EQ(plan->naiveSum, 768);
  EXPECT_EQ(plan->arenaBytes, 512);
  EXPECT_NE(out->offset, a->offset);
}

TEST_F(PlanFunction, WithoutReuseEveryBufferHasItsOwnBytes) {
  func::FuncOp func = parse(kElementwiseChain);
  ASSERT_TRUE(func);
  vmapc::BufferPlanOptions options;
  options.alignment = 64;
  options.reuse = false;
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, options);
  ASSERT_TRUE(succeeded(plan));
  EXPECT_FALSE(plan->reuse);
  // Rows: out (staging), alloc0, alloc1; one slot each, in row order.
  ASSERT_EQ(plan->buffers.size(), 3u);
  EXPECT_EQ(plan->inPlace, 0);
  EXPECT_EQ(plan->numSlots, 3);
  EXPECT_EQ(row(*plan, "out")->offset, 0);
  EXPECT_EQ(row(*plan, "alloc0")->offset, 256);
  EXPECT_EQ(row(*plan, "alloc1")->offset, 512);
  EXPECT_EQ(row(*plan, "alloc1")->inPlaceSource, -1);
  EXPECT_EQ(plan->arenaBytes, 768);
  EXPECT_EQ(plan->naiveSum, 768);
  // Apart now, a and b are both live at point 3 (and b and out at 4).
  EXPECT_EQ(plan->lowerBound, 512);
  EXPECT_EQ(plan->alignedLowerBound, 512);
  ASSERT_TRUE(succeeded(vmapc::applyBufferPlan(func, *plan)));
  auto attr = func->getAttrOfType<vmapc::arr::BufferPlanAttr>(
      vmapc::arr::ArrDialect::kPlanAttrName);
  ASSERT_TRUE(attr);
  EXPECT_EQ(attr.getArenaBytes(), 768);
  EXPECT_EQ(attr.getAlignment(), 64);
  EXPECT_EQ(attr.getInPlace(), 0);
  PassManager pm(&context);
  pm.addPass(vmapc::createArrVerifyBufferPlan());
  EXPECT_TRUE(succeeded(pm.run(*module)));
}

TEST_F(PlanFunction, RejectsAnAlignmentThatIsNotAPowerOfTwo) {
  for (int64_t alignment : {int64_t(0), int64_t(48), int64_t(8192)}) {
    func::FuncOp func = parse(kElementwiseChain);
    ASSERT_TRUE(func);
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
      message += diag.str();
      return success();
    });
    EXPECT_TRUE(failed(vmapc::computeBufferPlan(func, {alignment})));
    EXPECT_EQ(message,
              "arena alignment must be a power of two from 1 to 4096 bytes, "
              "got " +
                  std::to_string(alignment));
  }
}

TEST_F(PlanFunction, AlignmentIsRaisedToTheElementSize) {
  // Byte alignment asked for; the f32 buffers need 4.
  func::FuncOp func = parse(kElementwiseChain);
  ASSERT_TRUE(func);
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, {1});
  ASSERT_TRUE(succeeded(plan));
  EXPECT_EQ(plan->alignment, 4);
  EXPECT_EQ(plan->arenaBytes, 512);
}

TEST_F(PlanFunction, NoInPlaceWhenTheInputIsReadLater) {
  std::string source = kElementwiseChain;
  // Read %a once more, after %b is written.
  source.replace(source.find("ins(%b, %y"), 10, "ins(%b, %a");
  func::FuncOp func = parse(source);
  ASSERT_TRUE(func);
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, {256});
  ASSERT_TRUE(succeeded(plan));
  const vmapc::PlannedBuffer *a = row(*plan, "alloc0");
  const vmapc::PlannedBuffer *b = row(*plan, "alloc1");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->live.end, 4);
  EXPECT_EQ(b->inPlaceSource, -1);
  EXPECT_EQ(plan->inPlace, 0);
  EXPECT_NE(a->offset, b->offset);
  EXPECT_EQ(plan->lowerBound, 768);
}

TEST_F(PlanFunction, NoInPlaceOverAnArgumentOrThroughATranspose) {
  func::FuncOp func = parse(R"mlir(
#id = affine_map<(d0, d1) -> (d0, d1)>
#tr = affine_map<(d0, d1) -> (d1, d0)>
func.func @f(%x: memref<8x8xf32> {arr.staging}, %out: memref<8x8xf32>) {
  %a = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<8x8xf32>) outs(%a : memref<8x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  %b = memref.alloc() : memref<8x8xf32>
  linalg.generic {indexing_maps = [#tr, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<8x8xf32>) outs(%b : memref<8x8xf32>) {
  ^bb0(%i: f32, %o: f32):
    linalg.yield %i : f32
  }
  linalg.copy ins(%b : memref<8x8xf32>) outs(%out : memref<8x8xf32>)
  return
}
)mlir");
  ASSERT_TRUE(func);
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, {64});
  ASSERT_TRUE(succeeded(plan));
  EXPECT_EQ(plan->inPlace, 0);
  const vmapc::PlannedBuffer *x = row(*plan, "arg0");
  const vmapc::PlannedBuffer *a = row(*plan, "alloc0");
  const vmapc::PlannedBuffer *b = row(*plan, "alloc1");
  ASSERT_TRUE(x && a && b);
  EXPECT_EQ(x->live.start, 0);
  EXPECT_EQ(x->live.end, 1);
  // x and b never live together: b reuses x's bytes.
  EXPECT_EQ(plan->lowerBound, 512);
  EXPECT_EQ(plan->arenaBytes, 512);
  EXPECT_NE(a->offset, b->offset);
  EXPECT_EQ(b->offset, x->offset);
  EXPECT_EQ(b->reusedFrom, 0);
}

TEST_F(PlanFunction, LoopKeepsItsOperandsLiveAcrossTheLoop) {
  func::FuncOp func = parse(R"mlir(
#id = affine_map<(d0) -> (d0)>
func.func @loop(%x: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%a : memref<16xf32>)
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<16xf32>
    linalg.copy ins(%a : memref<16xf32>) outs(%t : memref<16xf32>)
    linalg.copy ins(%t : memref<16xf32>) outs(%out : memref<16xf32>)
  }
  %b = memref.alloc() : memref<16xf32>
  linalg.copy ins(%out : memref<16xf32>) outs(%b : memref<16xf32>)
  linalg.copy ins(%b : memref<16xf32>) outs(%out : memref<16xf32>)
  return
}
)mlir");
  ASSERT_TRUE(func);
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, {64});
  ASSERT_TRUE(succeeded(plan));
  const vmapc::PlannedBuffer *a = row(*plan, "alloc0");
  const vmapc::PlannedBuffer *t = row(*plan, "alloc1");
  const vmapc::PlannedBuffer *b = row(*plan, "alloc2");
  ASSERT_TRUE(a && t && b);
  // Schedule: 0-2 constants, 3 alloc, 4 copy, 5 for, 6 alloc, 7, 8 copies.
  EXPECT_EQ(a->live.start, 4);
  EXPECT_EQ(a->live.end, 5);
  EXPECT_EQ(t->live.start, 5);
  EXPECT_EQ(t->live.end, 5);
  // The copy inside the loop is no in-place candidate, even though %a is
  // last used by the loop and %t first used there.
  EXPECT_EQ(plan->inPlace, 0);
  EXPECT_NE(a->offset, t->offset);
  EXPECT_EQ(plan->lowerBound, 128);
  EXPECT_EQ(plan->arenaBytes, 128);
}

TEST_F(PlanFunction, ApplyLeavesNoAllocation) {
  func::FuncOp func = parse(kElementwiseChain);
  ASSERT_TRUE(func);
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, {256});
  ASSERT_TRUE(succeeded(plan));
  ASSERT_TRUE(succeeded(vmapc::applyBufferPlan(func, *plan)));
  EXPECT_EQ(func.getNumArguments(), 4u);
  auto arenaType = dyn_cast<MemRefType>(func.getArgument(3).getType());
  ASSERT_TRUE(arenaType);
  EXPECT_EQ(arenaType.getDimSize(0), 512);
  EXPECT_TRUE(func.getArgAttr(3, vmapc::arr::ArrDialect::kArenaAttrName));
  auto staging = func.getArgAttrOfType<IntegerAttr>(
      2, vmapc::arr::ArrDialect::kStagingOffsetAttrName);
  ASSERT_TRUE(staging);
  EXPECT_EQ(staging.getInt(), plan->buffers[0].offset);
  int allocs = 0, views = 0;
  func.walk([&](Operation *op) {
    allocs += isa<memref::AllocOp>(op);
    views += isa<memref::ViewOp>(op);
  });
  EXPECT_EQ(allocs, 0);
  EXPECT_EQ(views, 2);
  auto figures = func->getAttrOfType<vmapc::arr::BufferPlanAttr>(
      vmapc::arr::ArrDialect::kPlanAttrName);
  ASSERT_TRUE(figures);
  EXPECT_EQ(figures.getArenaBytes(), 512);
  EXPECT_EQ(figures.getInPlace(), 1);
}

/// Plans the first function of `source` and returns the error it reports
/// ("" if planning succeeds).
std::string planError(MLIRContext &context, OwningOpRef<ModuleOp> &module,
                      StringRef source) {
  module = parseSourceString<ModuleOp>(source, &context);
  if (!module)
    return "<parse error>";
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message += diag.str();
    return success();
  });
  auto func = *module->getOps<func::FuncOp>().begin();
  return succeeded(vmapc::computeBufferPlan(func, {256})) ? "" : message;
}

TEST_F(PlanFunction, RejectsABufferPastTheSizeLimit) {
  // (2^31 - 1)^2 f32 elements: about 2^64 bytes, which an int64 product of
  // the shape would wrap around to a small or negative size.
  std::string error = planError(context, module, R"mlir(
func.func @f(%out: memref<4xf32>) {
  %a = memref.alloc() : memref<2147483647x2147483647xf32>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<2147483647x2147483647xf32>
  memref.store %v, %out[%c0] : memref<4xf32>
  return
}
)mlir");
  EXPECT_NE(error.find("'memref.alloc' op of type "
                       "'memref<2147483647x2147483647xf32>' is past the size "
                       "limits: it needs 2^62 bytes or more"),
            std::string::npos)
      << error;
}

TEST_F(PlanFunction, RejectsAnArenaPastTheSizeLimit) {
  // Two buffers of just under 2^62 bytes each, live at once.
  std::string error = planError(context, module, R"mlir(
func.func @f(%out: memref<4xi16>) {
  %a = memref.alloc() : memref<1073741824x2147483647xi16>
  %b = memref.alloc() : memref<1073741824x2147483647xi16>
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0, %c0] : memref<1073741824x2147483647xi16>
  %w = memref.load %b[%c0, %c0] : memref<1073741824x2147483647xi16>
  %s = arith.addi %v, %w : i16
  memref.store %s, %out[%c0] : memref<4xi16>
  return
}
)mlir");
  EXPECT_NE(error.find("need an arena of 2^62 bytes or more"),
            std::string::npos)
      << error;
}

TEST_F(PlanFunction, ZeroByteBufferIsPlanned) {
  // vmap with axis_size=0 makes empty arrays: 0 bytes, planned as usual.
  func::FuncOp func = parse(R"mlir(
func.func @f(%out: memref<4xf32> {arr.output, arr.staging}) {
  %a = memref.alloc() : memref<0x4xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<0x4xf32>)
  linalg.fill ins(%zero : f32) outs(%out : memref<4xf32>)
  return
}
)mlir");
  ASSERT_TRUE(func);
  FailureOr<vmapc::BufferPlan> plan = vmapc::computeBufferPlan(func, {256});
  ASSERT_TRUE(succeeded(plan));
  const vmapc::PlannedBuffer *a = row(*plan, "alloc0");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->bytes, 0);
  EXPECT_EQ(plan->arenaBytes, 16);
  EXPECT_EQ(plan->naiveSum, 16);
  ASSERT_TRUE(succeeded(vmapc::applyBufferPlan(func, *plan)));
  PassManager pm(&context);
  pm.addPass(vmapc::createArrVerifyBufferPlan());
  EXPECT_TRUE(succeeded(pm.run(*module)));
}

/// A random straight-line program with loops over two shapes: elementwise
/// unary and binary generics, matmuls, and loops that read older buffers.
std::string randomProgram(std::mt19937 &rng) {
  std::ostringstream os;
  os << "#id = affine_map<(d0, d1) -> (d0, d1)>\n"
        "func.func @random(%x0: memref<8x8xf32> {arr.staging}, "
        "%x1: memref<8x16xf32>, "
        "%out: memref<8x8xf32> {arr.output, arr.staging}) {\n"
        "  %zero = arith.constant 0.0 : f32\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %c1 = arith.constant 1 : index\n"
        "  %c3 = arith.constant 3 : index\n";
  // Values by shape: 0 is 8x8, 1 is 8x16.
  std::vector<std::string> values[2] = {{"%x0"}, {"%x1"}};
  const char *types[2] = {"memref<8x8xf32>", "memref<8x16xf32>"};
  int next = 0;
  auto pick = [&](int shape) {
    // Mostly recent values, sometimes old ones (long intervals).
    auto &list = values[shape];
    size_t n = list.size();
    size_t back = rng() % 4 == 0 ? rng() % n : rng() % std::min<size_t>(n, 2);
    return list[n - 1 - back];
  };
  auto elementwise = [&](const std::string &indent, int shape,
                         const std::string &result, bool binary) {
    std::string a = pick(shape), b = pick(shape);
    os << indent << "linalg.generic {indexing_maps = [#id, "
       << (binary ? "#id, " : "")
       << "#id], iterator_types = [\"parallel\", \"parallel\"]} ins(" << a
       << (binary ? ", " + b : "") << " : " << types[shape]
       << (binary ? std::string(", ") + types[shape] : "") << ") outs("
       << result << " : " << types[shape] << ") {\n"
       << indent << "^bb0(%i: f32, " << (binary ? "%j: f32, " : "")
       << "%o: f32):\n"
       << indent
       << "  %r = " << (binary ? "arith.addf %i, %j" : "arith.negf %i")
       << " : f32\n"
       << indent << "  linalg.yield %r : f32\n"
       << indent << "}\n";
  };
  int ops = 4 + static_cast<int>(rng() % 12);
  for (int k = 0; k < ops; ++k) {
    int kind = static_cast<int>(rng() % 5);
    int shape = static_cast<int>(rng() % 2);
    std::string name = "%b" + std::to_string(next++);
    if (kind == 4) {
      // A loop: a temporary per iteration, reading an older buffer.
      os << "  scf.for %i" << next << " = %c0 to %c3 step %c1 {\n";
      os << "    " << name << " = memref.alloc() : " << types[shape] << "\n";
      elementwise("    ", shape, name, rng() % 2);
      if (shape == 0)
        os << "    linalg.copy ins(" << name
           << " : memref<8x8xf32>) outs(%out : memref<8x8xf32>)\n";
      os << "  }\n";
      continue;
    }
    os << "  " << name << " = memref.alloc() : " << types[shape] << "\n";
    if (kind == 3) {
      std::string a = pick(0), b = pick(shape);
      os << "  linalg.fill ins(%zero : f32) outs(" << name << " : "
         << types[shape] << ")\n"
         << "  linalg.matmul ins(" << a << ", " << b << " : memref<8x8xf32>, "
         << types[shape] << ") outs(" << name << " : " << types[shape] << ")\n";
    } else {
      elementwise("  ", shape, name, kind == 2);
    }
    values[shape].push_back(name);
  }
  os << "  linalg.copy ins(" << pick(0)
     << " : memref<8x8xf32>) outs(%out : memref<8x8xf32>)\n"
     << "  return\n}\n";
  return os.str();
}

TEST_F(PlanFunction, RandomProgramsPassTheIndependentChecker) {
  std::mt19937 rng(7);
  int64_t inPlace = 0, arena = 0, bound = 0;
  for (int trial = 0; trial < 150; ++trial) {
    std::string source = randomProgram(rng);
    func::FuncOp func = parse(source);
    ASSERT_TRUE(func) << source;
    int64_t alignment = trial % 2 ? 64 : 256;
    FailureOr<vmapc::BufferPlan> plan =
        vmapc::computeBufferPlan(func, {alignment});
    ASSERT_TRUE(succeeded(plan)) << source;
    EXPECT_GE(plan->arenaBytes, plan->lowerBound);
    EXPECT_LE(plan->lowerBound, plan->naiveSum);
    inPlace += plan->inPlace;
    if (alignment == 64) {
      arena += plan->arenaBytes;
      bound += plan->lowerBound;
    }
    ASSERT_TRUE(succeeded(vmapc::applyBufferPlan(func, *plan))) << source;
    PassManager pm(&context);
    pm.addPass(vmapc::createArrVerifyBufferPlan());
    EXPECT_TRUE(succeeded(pm.run(*module))) << source;
  }
  EXPECT_GT(inPlace, 0);
  EXPECT_LE(static_cast<double>(arena), 1.05 * static_cast<double>(bound));
}

} // namespace
