#include "measure/clock_sampler.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace dnnbench {
namespace {

const double kNaN = std::nan("");

TEST(ClockSummary, RangesIgnoreMissingFieldsAndFlagAMovingClock) {
  const std::vector<ClockReading> readings = {
      {1980, 2619, 40, kNaN}, {1800, 2619, 45, kNaN}, {1755, 2619, 50, kNaN}};
  const auto s = summarize_clocks(readings, 0.02);
  EXPECT_EQ(s.readings, 3);
  ASSERT_TRUE(s.sm_mhz);
  EXPECT_DOUBLE_EQ(s.sm_mhz->min, 1755);
  EXPECT_DOUBLE_EQ(s.sm_mhz->max, 1980);
  EXPECT_DOUBLE_EQ(s.temperature_c->mean, 45);
  EXPECT_FALSE(s.power_w);  // never reported
  EXPECT_TRUE(s.clock_unstable);
}

TEST(ClockSummary, ASteadyClockIsNotFlagged) {
  const auto s = summarize_clocks({{1440, 2619, 60, 690}, {1455, 2619, 61, 699}}, 0.02);
  EXPECT_FALSE(s.clock_unstable);
  EXPECT_DOUBLE_EQ(s.power_w->max, 699);
}

TEST(ClockSummary, CappedFractionCountsOnlyReadingsThatSay) {
  const auto s = summarize_clocks({{1440, 2619, 60, 690, 1},
                                   {1455, 2619, 61, 699, 1},
                                   {1980, 2619, 55, 400, 0},
                                   {1980, 2619, 55, 400, kNaN},
                                   {1700, 2619, 60, 695, 1}},
                                  0.02);
  ASSERT_TRUE(s.capped_fraction);
  EXPECT_DOUBLE_EQ(*s.capped_fraction, 0.75);  // 3 of the 4 readings that report it
  EXPECT_FALSE(summarize_clocks({{1980, 2619, 40, 300}}, 0.02).capped_fraction);  // never reported
}

// Reports the power cap from the third reading on.
class CappingSource final : public ClockSource {
 public:
  ClockReading read() override {
    ++reads;
    return {1980.0, kNaN, kNaN, kNaN, reads >= 3 ? 1.0 : 0.0};
  }
  std::string description() const override { return "capping"; }
  std::atomic<int> reads{0};
};

TEST(ClockSampler, LatestCappedFollowsTheLastReading) {
  CappingSource source;
  ClockSampler sampler(source, 1);
  EXPECT_FALSE(sampler.latest_capped());  // no reading yet
  sampler.start();
  while (source.reads.load() < 4) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(sampler.latest_capped());
  sampler.stop();
}

class CountingSource final : public ClockSource {
 public:
  ClockReading read() override {
    ++reads;
    return {1000.0 + reads, kNaN, kNaN, kNaN};
  }
  std::string description() const override { return "counting"; }
  std::atomic<int> reads{0};
};

TEST(ClockSampler, ReadsAtBothEndsAndInBetween) {
  CountingSource source;
  ClockSampler sampler(source, 1);
  sampler.start();
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  EXPECT_GT(sampler.latest().sm_mhz, 1000);
  const auto readings = sampler.stop();
  EXPECT_GE(readings.size(), 3u);  // start, at least one in between, stop
  EXPECT_EQ(static_cast<int>(readings.size()), source.reads.load());
}

// stop() ends the sampling thread at once: a row stops two samplers, and waiting out the period
// cost ~8 ms a row on the H200. A one-minute period makes any wait for it unmistakable.
TEST(ClockSampler, StopDoesNotWaitOutThePeriod) {
  CountingSource source;
  ClockSampler sampler(source, 60'000);
  const auto start = std::chrono::steady_clock::now();
  sampler.start();
  const auto readings = sampler.stop();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  EXPECT_EQ(readings.size(), 2u);  // one at each end, none in between
}

TEST(ClockSampler, NvmlIsOptional) {
  // Absent on a machine without an NVIDIA driver: then nullptr, never an exception.
  auto source = open_nvml_clock_source("0000:00:00.0");
  if (source) {
    EXPECT_FALSE(source->description().empty());
  }
}

}  // namespace
}  // namespace dnnbench
