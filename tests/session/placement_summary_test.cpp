#include "session/placement_summary.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace dnnbench {
namespace {

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// A chunk of `count` samples of a kernel that takes `cycles` (time x MHz) at the clock `mhz`.
PlacementChunk at_clock(double cycles, double mhz, int count = 5) {
  PlacementChunk c;
  for (int i = 0; i < count; ++i) c.add(cycles / mhz, mhz);
  return c;
}

// Three chunks of a capped GEMM, each in another part of the clock's cycle: their times differ
// by 13%, the cycles they take not at all. The plain spread is recorded, and beside it the spread
// at a common clock, which `compare` judges against.
TEST(PlacementSummary, AtThePowerCapTheSpreadIsAlsoTakenAtACommonClock) {
  const std::vector<PlacementChunk> chunks = {at_clock(1700, 1700), at_clock(1700, 1500),
                                              at_clock(1700, 1600)};
  const auto p = summarize_placements(chunks, true);
  EXPECT_EQ(p.chunks, 3);
  ASSERT_EQ(p.medians_ms.size(), 3u);
  EXPECT_DOUBLE_EQ(p.medians_ms[1], 1700.0 / 1500);
  EXPECT_NEAR(p.spread, 1700.0 / 1500 - 1, 1e-12);
  ASSERT_TRUE(p.spread_at_clock);
  EXPECT_NEAR(*p.spread_at_clock, 0, 1e-12);
  // A placement that really costs 4% more cycles still shows.
  const auto moved =
      summarize_placements({at_clock(1700, 1700), at_clock(1768, 1500), at_clock(1700, 1600)}, true);
  ASSERT_TRUE(moved.spread_at_clock);
  EXPECT_NEAR(*moved.spread_at_clock, 0.04, 1e-12);
}

// Below the cap the clock holds and the plain spread is the placement's: nothing else is recorded.
// At the cap, a chunk with clock readings for fewer than half its samples (the warm-up's samples
// a first chunk reuses have none) leaves the spread at the clock out rather than guess.
TEST(PlacementSummary, TheClockSpreadNeedsTheCapAndReadingsInEveryChunk) {
  const std::vector<PlacementChunk> chunks = {at_clock(1980, 1980), at_clock(2000, 1980)};
  const auto below = summarize_placements(chunks, false);
  EXPECT_NEAR(below.spread, 2000.0 / 1980 - 1, 1e-12);
  EXPECT_FALSE(below.spread_at_clock);

  auto unread = at_clock(1700, 1500, 2);
  for (int i = 0; i < 3; ++i) unread.add(1700.0 / 1500, kNone);
  EXPECT_FALSE(summarize_placements({at_clock(1700, 1700), unread}, true).spread_at_clock);
  unread = at_clock(1700, 1500, 3);
  for (int i = 0; i < 3; ++i) unread.add(1700.0 / 1500, kNone);  // half read: enough
  const auto half = summarize_placements({at_clock(1700, 1700), unread}, true);
  ASSERT_TRUE(half.spread_at_clock);
  EXPECT_NEAR(*half.spread_at_clock, 0, 1e-12);
}

TEST(PlacementSummary, EmptyChunksAreLeftOutAndOneChunkHasNoClockSpread) {
  const auto p = summarize_placements({at_clock(1700, 1700), PlacementChunk{}}, true);
  EXPECT_EQ(p.chunks, 1);
  EXPECT_DOUBLE_EQ(p.spread, 0);
  EXPECT_FALSE(p.spread_at_clock);
  EXPECT_EQ(summarize_placements({}, true).chunks, 0);
}

}  // namespace
}  // namespace dnnbench
