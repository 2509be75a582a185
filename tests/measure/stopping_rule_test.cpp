#include "measure/stopping_rule.hpp"

#include <gtest/gtest.h>

#include <random>

namespace dnnbench {
namespace {

TEST(StoppingRule, FixedCountStopsAtCount) {
  FixedCountRule rule(4);
  int n = 0;
  while (!rule.finished()) rule.add(1.0 + n++);
  EXPECT_EQ(n, 4);
  EXPECT_TRUE(rule.converged());
  EXPECT_DOUBLE_EQ(rule.elapsed_ms(), 1 + 2 + 3 + 4);
}

TEST(StoppingRule, AdaptiveConvergesQuicklyOnLowNoise) {
  AdaptiveLimits limits;
  limits.min_time_ms = 0;
  AdaptiveMedianRule rule(limits);
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(1.0, 0.002);  // 0.2% noise
  while (!rule.finished()) rule.add(noise(rng));
  EXPECT_TRUE(rule.converged());
  EXPECT_LE(rule.samples().size(), 20u);
  EXPECT_GE(rule.samples().size(), static_cast<std::size_t>(limits.min_iters));
}

TEST(StoppingRule, AdaptiveHonoursMinimumTime) {
  AdaptiveLimits limits;
  limits.min_time_ms = 100;
  AdaptiveMedianRule rule(limits);
  while (!rule.finished()) rule.add(1.0);  // perfectly stable, 1 ms each
  EXPECT_TRUE(rule.converged());
  EXPECT_GE(rule.elapsed_ms(), 100);
}

TEST(StoppingRule, AdaptiveStopsAtIterationCapOnHeavyTails) {
  AdaptiveLimits limits;
  limits.min_time_ms = 0;
  limits.max_iters = 300;
  limits.max_time_ms = 1e12;
  limits.target_ci_rel = 0.001;
  AdaptiveMedianRule rule(limits);
  std::mt19937_64 rng(5);
  std::cauchy_distribution<double> heavy(1.0, 0.5);
  while (!rule.finished()) rule.add(std::abs(heavy(rng)) + 0.01);
  EXPECT_FALSE(rule.converged());
  EXPECT_EQ(rule.samples().size(), 300u);
}

TEST(StoppingRule, AdaptiveStopsAtTimeCap) {
  AdaptiveLimits limits;
  limits.max_time_ms = 50;
  limits.target_ci_rel = 1e-9;
  AdaptiveMedianRule rule(limits);
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<double> u(1.0, 3.0);
  while (!rule.finished()) rule.add(u(rng));
  EXPECT_FALSE(rule.converged());
  EXPECT_GE(rule.elapsed_ms(), 50);
  EXPECT_LT(rule.elapsed_ms(), 53);
}

// A batch of 100 executions of a 10 us kernel is one 1 ms sample: the caps must count that
// millisecond, not 10 us (which made a 300 ms cap run for 30 s of 100-execution batches).
TEST(StoppingRule, CapsCountTheWholeSampleNotTheExecution) {
  AdaptiveLimits limits;
  limits.max_time_ms = 50;
  limits.target_ci_rel = 1e-12;  // never converges
  AdaptiveMedianRule rule(limits);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0.009, 0.011);
  while (!rule.finished()) rule.add(u(rng), 1.0);
  EXPECT_EQ(rule.samples().size(), 50u);
  EXPECT_DOUBLE_EQ(rule.elapsed_ms(), 50.0);
  EXPECT_EQ(rule.stop_reason(), "time-cap");
}

TEST(StoppingRule, MinimumTimeIsElapsedTimeToo) {
  AdaptiveLimits limits;
  limits.min_time_ms = 100;
  AdaptiveMedianRule rule(limits);
  while (!rule.finished()) rule.add(0.01, 10.0);  // stable; 10 ms batches of 10 us
  EXPECT_TRUE(rule.converged());
  EXPECT_EQ(rule.stop_reason(), "ci");
  EXPECT_EQ(rule.samples().size(), 10u);  // 100 ms of elapsed time, not 10000 samples
}

TEST(StoppingRule, StopReasons) {
  FixedCountRule fixed(2);
  EXPECT_EQ(fixed.stop_reason(), "");
  fixed.add(1), fixed.add(1);
  EXPECT_EQ(fixed.stop_reason(), "count");
  AdaptiveLimits limits;
  limits.min_time_ms = 0;
  limits.max_iters = 20;
  limits.target_ci_rel = 1e-12;
  AdaptiveMedianRule capped(limits);
  std::mt19937_64 rng(2);
  std::uniform_real_distribution<double> u(1.0, 2.0);
  while (!capped.finished()) capped.add(u(rng));
  EXPECT_EQ(capped.stop_reason(), "iteration-cap");
}

// A capped row stops once its samples span one cycle of the power control, however wide their
// interval (the cycle moves them by design), after min_iters; a sample past the time cap stops it
// unconverged.
TEST(StoppingRule, PowerCycleRuleStopsAtTheCycle) {
  AdaptiveLimits caps;
  caps.min_iters = 10;
  caps.max_time_ms = 2000;
  PowerCycleRule rule(1000, caps);
  EXPECT_TRUE(rule.spans_power_cycle());
  EXPECT_DOUBLE_EQ(rule.min_elapsed_ms(), 1000);
  int n = 0;
  while (!rule.finished()) rule.add(n++ % 2 ? 0.9 : 1.1, 10.0);  // +-10%: no 1% interval
  EXPECT_EQ(n, 100);
  EXPECT_TRUE(rule.converged());
  EXPECT_EQ(rule.stop_reason(), "cycle");
  // Fewer than min_iters samples in the cycle: it waits for them.
  PowerCycleRule few(1000, caps);
  n = 0;
  while (!few.finished()) few.add(1.0, 200.0), ++n;
  EXPECT_EQ(n, 10);
  EXPECT_EQ(few.stop_reason(), "cycle");
  // A sample longer than the time cap.
  PowerCycleRule slow(1000, caps);
  slow.add(1.0, 2500.0);
  EXPECT_TRUE(slow.finished());
  EXPECT_FALSE(slow.converged());
  EXPECT_EQ(slow.stop_reason(), "time-cap");
}

}  // namespace
}  // namespace dnnbench
