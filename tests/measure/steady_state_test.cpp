#include "measure/steady_state.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace dnnbench {
namespace {

const double kNoClock = std::nan("");

TEST(SteadyState, ConstantTimingsAreSteadyAfterThreeWindows) {
  SteadyStateDetector d({});
  int n = 0;
  while (!d.finished()) d.add(1.0, kNoClock), ++n;
  EXPECT_TRUE(d.steady());
  EXPECT_EQ(n, 15);  // 3 windows of 5
}

TEST(SteadyState, SettlesAfterATransient) {
  // A card that starts at boost (fast) and slows to its power-capped clock over 40 samples.
  SteadyStateLimits limits;
  limits.max_ms = 1e9;
  SteadyStateDetector d(limits);
  std::mt19937_64 rng(2);
  std::normal_distribution<double> noise(0.0, 0.001);
  int n = 0;
  while (!d.finished()) {
    const double slowdown = n < 40 ? 0.8 + 0.2 * n / 40.0 : 1.0;
    d.add(slowdown * (1.0 + noise(rng)), kNoClock);
    ++n;
  }
  EXPECT_TRUE(d.steady());
  EXPECT_GE(n, 40);
  EXPECT_LE(n, 60);
}

TEST(SteadyState, SteadyDriftIsNeverSteadyAndStopsAtTheTimeCap) {
  SteadyStateLimits limits;
  limits.max_ms = 100;
  SteadyStateDetector d(limits);
  double t = 1.0;
  while (!d.finished()) d.add(t *= 1.01, kNoClock);  // 1% slower each sample
  EXPECT_FALSE(d.steady());
  EXPECT_GE(d.elapsed_ms(), 100);
}

TEST(SteadyState, AMovingClockBlocksSteadiness) {
  SteadyStateLimits limits;
  limits.max_ms = 60;
  SteadyStateDetector d(limits);
  double clock = 1980;
  while (!d.finished()) d.add(1.0, clock -= 10);  // timings flat, SM clock falling
  EXPECT_FALSE(d.steady());
}

// A capped row: its timings and clock already agree, but the power the driver averages is
// still climbing, so the clock will fall further (bench/results/power-settle.json). NVML's power moves
// in 100 ms ticks, and three windows of 2 ms samples fit inside one tick: the power must hold for
// a span of time (power_span_ms), not for three windows.
TEST(SteadyState, ACappedRowWaitsForItsPowerToSettle) {
  SteadyStateLimits limits;
  limits.max_ms = 1e9;
  SteadyStateDetector d(limits);
  double at_ms = 0;
  while (!d.finished()) {
    const auto tick = static_cast<int>(at_ms / 100);               // NVML's 100 ms ticks
    const double power = tick < 10 ? 120.0 + 60.0 * tick : 695.0;  // the 1 s average catching up
    d.add(1.0, WarmupSensors{.sm_mhz = 1500, .power_w = power, .capped = true}, 2.0);
    at_ms += 2.0;
  }
  EXPECT_TRUE(d.steady());
  EXPECT_TRUE(d.capped());
  EXPECT_GE(at_ms, 1000 + limits.power_span_ms);  // the ten rising ticks, then a flat span
  EXPECT_LE(at_ms, 1000 + limits.power_span_ms + 2 * 5 * 2.0);
}

// A capped row that came in after an idle gap can hold an average well under the limit for a
// few NVML ticks on its way up (580 W for 300 ms, then 690 W): where the
// limit is known, the warm-up waits for the average to reach it.
TEST(SteadyState, ACappedRowWaitsForItsAverageToReachTheLimit) {
  const auto warm_up_ms = [](double limit_w) {
    SteadyStateLimits limits;
    limits.max_ms = 1e9;
    SteadyStateDetector d(limits);
    double at_ms = 0;
    while (!d.finished()) {
      const double power = at_ms < 600 ? 580.0 : 690.0;
      d.add(1.0, WarmupSensors{.sm_mhz = 1500, .power_w = power, .power_limit_w = limit_w, .capped = true},
            2.0);
      at_ms += 2.0;
    }
    EXPECT_TRUE(d.steady());
    return at_ms;
  };
  const SteadyStateLimits limits;
  EXPECT_GE(warm_up_ms(700), 600 + limits.power_span_ms);
  // Without a known limit (or paced, where it is not passed), the held span is all it waits for.
  EXPECT_LT(warm_up_ms(std::numeric_limits<double>::quiet_NaN()), 600);
}

// A sustained device row (its power limit known) runs at least min_load_ms before it may be
// steady: the driver cuts a heavy kernel's clock only at its next ~100 ms tick, and three windows
// of 2 ms batches agree at boost long before. Without a limit (a host row) three windows do.
TEST(SteadyState, ASustainedDeviceRowLoadsTheDeviceLongEnoughForTheDriverToAnswer) {
  SteadyStateLimits limits;
  limits.max_ms = 1e9;
  SteadyStateDetector d(limits);
  while (!d.finished()) d.add(1.0, WarmupSensors{.sm_mhz = 1980, .power_w = 400, .power_limit_w = 700}, 2.0);
  EXPECT_TRUE(d.steady());
  EXPECT_GE(d.elapsed_ms(), limits.min_load_ms);
  EXPECT_LE(d.elapsed_ms(), limits.min_load_ms + 5 * 2.0);  // the window that crosses it
  SteadyStateDetector host(limits);
  int n = 0;
  while (!host.finished()) host.add(1.0, WarmupSensors{}, 2.0), ++n;
  EXPECT_EQ(n, 15);
}

TEST(SteadyState, AnUncappedRowDoesNotWaitForItsPower) {
  SteadyStateDetector d({});
  int n = 0;
  while (!d.finished()) d.add(1.0, WarmupSensors{.sm_mhz = 1980, .power_w = 100.0 + 10.0 * n++}, 1.0);
  EXPECT_TRUE(d.steady());
  EXPECT_FALSE(d.capped());
  EXPECT_EQ(n, 15);
}

// The first readings of a row may still be the previous row's (NVML moves in ~100 ms ticks): a
// row that is not capped by the time a window ends does not wait for its power.
TEST(SteadyState, AStaleCappedReadingIsForgottenAtTheNextWindow) {
  SteadyStateDetector d({});
  int n = 0;
  while (!d.finished()) {
    const bool stale = n < 3;
    d.add(1.0, WarmupSensors{.sm_mhz = 1980, .power_w = 200.0 + 10.0 * n, .capped = stale}, 1.0);
    ++n;
  }
  EXPECT_TRUE(d.steady());
  EXPECT_FALSE(d.capped());
  EXPECT_EQ(n, 15);
}

// Held at the cap, the driver cycles the clock about once a second and a GEMM's time follows by
// +-8% (bench/results/power-cycle.json): window medians need not agree within 1%, and a row whose
// power has settled at the limit is steady without them (its measurement spans a whole cycle).
// Without power readings the cycling times still keep it from being steady.
TEST(SteadyState, ACappedRowOnACyclingClockIsSteadyOnceItsPowerSettles) {
  SteadyStateLimits limits;
  limits.max_ms = 1e9;
  limits.capped_max_factor = 1;
  // A triangle of 1 s: three 50 ms windows span 15% of it and never agree within 1%.
  const auto cycle = [](double at_ms) {
    const double phase = std::fmod(at_ms, 1000.0) / 1000.0;
    return phase < 0.5 ? 4 * phase - 1 : 3 - 4 * phase;
  };
  SteadyStateDetector d(limits);
  double at_ms = 0;
  while (!d.finished() && at_ms < 5000) {
    d.add(1.0 + 0.08 * cycle(at_ms),
          WarmupSensors{
              .sm_mhz = 1700 - 150 * cycle(at_ms), .power_w = 690, .power_limit_w = 700, .capped = true},
          10.0);
    at_ms += 10.0;
  }
  EXPECT_TRUE(d.steady());
  EXPECT_GE(at_ms, limits.power_span_ms);
  EXPECT_LE(at_ms, limits.power_span_ms + 5 * 10.0);
  limits.max_ms = 2000;
  SteadyStateDetector no_power(limits);
  at_ms = 0;
  while (!no_power.finished()) {
    no_power.add(1.0 + 0.08 * cycle(at_ms),
                 WarmupSensors{.sm_mhz = 1700 - 150 * cycle(at_ms), .capped = true}, 10.0);
    at_ms += 10.0;
  }
  EXPECT_FALSE(no_power.steady());
}

TEST(SteadyState, ACappedRowMayUseALongerTimeCap) {
  SteadyStateLimits limits;
  limits.max_ms = 100;
  limits.capped_max_factor = 3;
  SteadyStateDetector d(limits);
  EXPECT_DOUBLE_EQ(d.max_ms(), 100);
  double power = 300;
  while (!d.finished())
    d.add(1.0, WarmupSensors{.sm_mhz = 1500, .power_w = power += 20, .capped = true}, 1.0);
  EXPECT_FALSE(d.steady());  // the power never settles: stops at the longer cap, not steady
  EXPECT_DOUBLE_EQ(d.max_ms(), 300);
  EXPECT_GE(d.elapsed_ms(), 300);
  EXPECT_LT(d.elapsed_ms(), 301);
}

TEST(SteadyState, ZeroBudgetFinishesAtOnce) {
  SteadyStateLimits limits;
  limits.max_ms = 0;
  SteadyStateDetector d(limits);
  EXPECT_TRUE(d.finished());
  EXPECT_FALSE(d.steady());
}

TEST(SteadyState, RelativeSpreadOfLast) {
  EXPECT_TRUE(std::isinf(relative_spread_of_last({1.0, 2.0}, 3)));
  EXPECT_NEAR(relative_spread_of_last({5.0, 1.0, 1.01, 1.0}, 3), 0.01, 1e-12);
}

}  // namespace
}  // namespace dnnbench
