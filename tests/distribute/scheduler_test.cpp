// Rank 0's scheduling: costliest first to whoever asks, and one retry of a dead rank's graph.
#include "distribute/scheduler.hpp"

#include <gtest/gtest.h>

namespace dnnbench {
namespace {

TEST(GraphScheduler, HandsOutCostliestFirstToWhoeverAsks) {
  GraphScheduler s({1, 9, 5, 7}, {true, true, true, true});
  EXPECT_EQ(s.next(2), 1u);
  EXPECT_EQ(s.next(0), 3u);
  EXPECT_FALSE(s.next(0)) << "a busy rank gets nothing more";
  s.finished(0);
  EXPECT_EQ(s.next(0), 2u);
  s.finished(2);
  EXPECT_EQ(s.next(2), 0u);
  EXPECT_FALSE(s.done());
  s.finished(0);
  s.finished(2);
  EXPECT_FALSE(s.next(1));
  EXPECT_TRUE(s.done());
}

TEST(GraphScheduler, SkipsGraphsNotToRun) {
  GraphScheduler s({3, 2, 1}, {false, true, false});
  EXPECT_EQ(s.next(0), 1u);
  s.finished(0);
  EXPECT_FALSE(s.next(0));
  EXPECT_TRUE(s.done());
}

TEST(GraphScheduler, DeadRanksGraphIsRetriedOnceOnAnotherRank) {
  GraphScheduler s({5, 1}, {true, true});
  EXPECT_EQ(s.next(1), 0u);
  EXPECT_EQ(s.next(0), 1u);
  const auto lost = s.rank_lost(1);
  ASSERT_TRUE(lost.graph);
  EXPECT_EQ(*lost.graph, 0u);
  EXPECT_TRUE(lost.retried);
  EXPECT_FALSE(s.rank_alive(1));
  EXPECT_FALSE(s.next(1)) << "a dead rank is never given work";
  s.finished(0);
  EXPECT_EQ(s.next(0), 0u) << "the retry goes first";
  EXPECT_EQ(s.attempts(0), 2);
  EXPECT_EQ(s.next(2), std::nullopt);
  const auto again = s.rank_lost(0);
  EXPECT_EQ(again.graph, 0u);
  EXPECT_FALSE(again.retried) << "a second death gives the graph up";
  EXPECT_TRUE(s.done());
}

TEST(GraphScheduler, IdleRankLostLosesNothing) {
  GraphScheduler s({1}, {true});
  const auto lost = s.rank_lost(3);
  EXPECT_FALSE(lost.graph);
  EXPECT_EQ(s.next(0), 0u);
  EXPECT_EQ(s.in_flight(0), 0u);
}

}  // namespace
}  // namespace dnnbench
