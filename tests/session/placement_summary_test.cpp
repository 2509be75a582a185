#include "session/placement_summary.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(PlacementSummary, EachChunksMedianAndTheirSpread) {
  const auto p = summarize_placements({{1.0, 1.1, 0.9}, {1.05, 1.04, 1.06, 2.0}, {1.02}});
  EXPECT_EQ(p.chunks, 3);
  ASSERT_EQ(p.medians_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(p.medians_ms[0], 1.0);
  EXPECT_DOUBLE_EQ(p.medians_ms[1], 1.055);
  EXPECT_DOUBLE_EQ(p.medians_ms[2], 1.02);
  EXPECT_NEAR(p.spread, 0.055, 1e-12);
}

TEST(PlacementSummary, EmptyChunksAreLeftOut) {
  const auto p = summarize_placements({{1.0, 1.0}, {}});
  EXPECT_EQ(p.chunks, 1);
  EXPECT_DOUBLE_EQ(p.spread, 0);
  EXPECT_EQ(summarize_placements({}).chunks, 0);
}

}  // namespace
}  // namespace dnnbench
