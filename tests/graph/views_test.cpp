// Views of tensors in fewer dims: the reduction groups and merged matmul batches that the cuDNN
// lowering shows cuDNN (its reduction engine takes row, column or whole reductions only; its
// matmul one batch dim).
#include "graph/views.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

std::vector<DimGroup> groups(const std::vector<std::int64_t>& in_dims,
                             const std::vector<std::int64_t>& in_strides,
                             const std::vector<std::int64_t>& out_dims,
                             const std::vector<std::int64_t>& out_strides) {
  auto g = reduction_groups(in_dims, in_strides, out_dims, out_strides);
  EXPECT_TRUE(g.has_value());
  return g.value_or(std::vector<DimGroup>{});
}

TEST(ReductionGroups, SpatialReductionOfNchwIsARowReduction) {
  // [4, 8, 6, 6] -> [4, 8, 1, 1]: the kept N, C merge (32 rows), the reduced H, W merge (36).
  const auto g = groups({4, 8, 6, 6}, {288, 36, 6, 1}, {4, 8, 1, 1}, {8, 1, 1, 1});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_FALSE(g[0].reduced);
  EXPECT_EQ(g[0].extent, 32);
  EXPECT_EQ(g[0].in_stride, 36);
  EXPECT_EQ(g[0].out_stride, 1);
  EXPECT_TRUE(g[1].reduced);
  EXPECT_EQ(g[1].extent, 36);
  EXPECT_EQ(g[1].in_stride, 1);
}

TEST(ReductionGroups, PerChannelReductionOfNhwcIsAColumnReduction) {
  // NHWC [4, 16, 6, 6] -> [1, 16, 1, 1]: N, H, W (reduced) are one run of 144, C is fastest.
  const auto g = groups({4, 16, 6, 6}, {576, 1, 96, 16}, {1, 16, 1, 1}, {16, 1, 16, 16});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_TRUE(g[0].reduced);
  EXPECT_EQ(g[0].extent, 144);
  EXPECT_EQ(g[0].in_stride, 16);
  EXPECT_FALSE(g[1].reduced);
  EXPECT_EQ(g[1].extent, 16);
  EXPECT_EQ(g[1].in_stride, 1);
  EXPECT_EQ(g[1].out_stride, 1);
}

TEST(ReductionGroups, KeptDimBetweenReducedOnesStaysThreeGroups) {
  // [4, 8, 6] -> [1, 8, 1]: reduced, kept, reduced; nothing merges.
  const auto g = groups({4, 8, 6}, {48, 6, 1}, {1, 8, 1}, {8, 1, 1});
  ASSERT_EQ(g.size(), 3u);
  EXPECT_TRUE(g[0].reduced);
  EXPECT_FALSE(g[1].reduced);
  EXPECT_TRUE(g[2].reduced);
}

TEST(ReductionGroups, WholeTensorAndUnitDims) {
  const auto g = groups({2, 1, 3, 8}, {24, 24, 8, 1}, {1, 1, 1, 1}, {1, 1, 1, 1});
  ASSERT_EQ(g.size(), 1u);
  EXPECT_TRUE(g[0].reduced);
  EXPECT_EQ(g[0].extent, 48);
}

TEST(ReductionGroups, KeptDimsMergeOnlyWhereTheOutputIsContiguousToo) {
  // The input's kept dims are one run, the output's are not (a padded row): two kept groups.
  const auto g = groups({2, 3, 16}, {48, 16, 1}, {2, 3, 1}, {8, 1, 1});
  ASSERT_EQ(g.size(), 3u);
  EXPECT_FALSE(g[0].reduced);
  EXPECT_FALSE(g[1].reduced);
  EXPECT_TRUE(g[2].reduced);
}

TEST(ReductionGroups, RefusesMismatchedShapes) {
  EXPECT_FALSE(reduction_groups({2, 3}, {3, 1}, {2, 2}, {2, 1}).has_value());
  EXPECT_FALSE(reduction_groups({2, 3}, {3, 1}, {2}, {1}).has_value());
}

TEST(MergedBatch, SameBatchDimsMergeIntoOne) {
  const auto b = merged_batch({2, 3}, {384, 128}, {2, 3});
  ASSERT_TRUE(b);
  EXPECT_EQ(b->count, 6);
  EXPECT_EQ(b->stride, 128);
}

TEST(MergedBatch, AnOperandReadByEveryBatchIsBatchOne) {
  const auto missing = merged_batch({}, {}, {2, 3});
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->count, 1);
  const auto ones = merged_batch({1, 1}, {256, 256}, {2, 3});
  ASSERT_TRUE(ones);
  EXPECT_EQ(ones->count, 1);
}

TEST(MergedBatch, BroadcastOnBothSidesHasNoSingleStride) {
  // a [2, 1, M, K] and b [3, K, N] of c [2, 3, M, N]: batch 3i + j of a sits at 512 i.
  EXPECT_FALSE(merged_batch({2, 1}, {512, 512}, {2, 3}).has_value());
  EXPECT_FALSE(merged_batch({3}, {256}, {2, 3}).has_value());
}

TEST(MergedBatch, OuterBroadcastOfAnInnerBatchHasNoSingleStrideEither) {
  // [1, 3] of [2, 3]: batch 3i + j sits at 256 j (repeats every 3).
  EXPECT_FALSE(merged_batch({1, 3}, {768, 256}, {2, 3}).has_value());
  EXPECT_FALSE(merged_batch({2, 3}, {384, 128}, {2, 4}).has_value());
}

}  // namespace
}  // namespace dnnbench
