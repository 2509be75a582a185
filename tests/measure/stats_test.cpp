#include "measure/stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace dnnbench {
namespace {

TEST(Stats, HandComputedSmallSample) {
  const auto s = summarize({5, 1, 4, 2, 3});
  EXPECT_EQ(s.n, 5);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_NEAR(s.stddev, std::sqrt(2.5), 1e-12);  // sample stddev (n - 1)
  EXPECT_DOUBLE_EQ(s.p95, 4.8);                  // linear interpolation between 4 and 5
  // n < 6: the CI of the median is the whole range.
  EXPECT_DOUBLE_EQ(s.median_ci_lo, 1);
  EXPECT_DOUBLE_EQ(s.median_ci_hi, 5);
}

TEST(Stats, EmptyInputGivesZeros) {
  const auto s = summarize({});
  EXPECT_EQ(s.n, 0);
  EXPECT_EQ(s.median_ci_rel(), 0);
}

TEST(Stats, EvenCountMedianInterpolates) {
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 4}).median, 2.5);
}

TEST(Stats, MedianCiRanksAreSymmetricAndWithinRange) {
  for (std::int64_t n : {6, 10, 100, 1000}) {
    const auto r = median_ci_ranks(n);
    EXPECT_GE(r.lo, 0);
    EXPECT_LT(r.hi, n);
    EXPECT_LT(r.lo, r.hi);
    EXPECT_NEAR(static_cast<double>(r.lo + r.hi) / 2.0, static_cast<double>(n - 1) / 2.0, 1.0);
  }
  // n = 100: ranks 40..61 (1-based) by the normal approximation.
  EXPECT_EQ(median_ci_ranks(100).lo, 39);
  EXPECT_EQ(median_ci_ranks(100).hi, 60);
}

TEST(Stats, NormalDistributionMomentsAndQuantiles) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal(10.0, 2.0);
  std::vector<double> samples(200000);
  for (auto& x : samples) x = normal(rng);
  const auto s = summarize(samples);
  EXPECT_NEAR(s.mean, 10.0, 0.02);
  EXPECT_NEAR(s.median, 10.0, 0.02);
  EXPECT_NEAR(s.stddev, 2.0, 0.02);
  EXPECT_NEAR(s.p5, 10.0 - 1.6449 * 2.0, 0.05);
  EXPECT_NEAR(s.p95, 10.0 + 1.6449 * 2.0, 0.05);
  EXPECT_NEAR(s.p99, 10.0 + 2.3263 * 2.0, 0.08);
}

TEST(Stats, MedianCiCoversTheTrueMedianAtLeast95PercentOfTheTime) {
  // Exponential distribution (skewed, like timing noise): true median ln 2.
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> expo(1.0);
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> samples(50);
    for (auto& x : samples) x = expo(rng);
    const auto s = summarize(samples);
    covered += (s.median_ci_lo <= std::log(2.0) && std::log(2.0) <= s.median_ci_hi) ? 1 : 0;
  }
  const double rate = static_cast<double>(covered) / trials;
  EXPECT_GE(rate, 0.94);
  EXPECT_LE(rate, 0.99);  // and not trivially wide
}

TEST(Stats, ExponentialDistributionQuantiles) {
  // Exponential(rate 2): quantile q is -ln(1 - q) / 2; mean = stddev = 1/2. Skewed like timings.
  std::mt19937_64 rng(21);
  std::exponential_distribution<double> expo(2.0);
  std::vector<double> samples(200000);
  for (auto& x : samples) x = expo(rng);
  const auto s = summarize(samples);
  const auto q = [](double p) { return -std::log(1.0 - p) / 2.0; };
  EXPECT_NEAR(s.mean, 0.5, 0.005);
  EXPECT_NEAR(s.stddev, 0.5, 0.005);
  EXPECT_NEAR(s.median, q(0.5), 0.005);
  EXPECT_NEAR(s.p5, q(0.05), 0.002);
  EXPECT_NEAR(s.p95, q(0.95), 0.02);
  EXPECT_NEAR(s.p99, q(0.99), 0.05);
  EXPECT_LT(s.median_ci_lo, q(0.5));
  EXPECT_GT(s.median_ci_hi, q(0.5));
  EXPECT_LT(s.median_ci_rel(), 0.01);  // 200k samples pin the median well inside 1%
}

TEST(Stats, UniformDistributionExtremesAndQuantiles) {
  std::mt19937_64 rng(22);
  std::uniform_real_distribution<double> u(2.0, 4.0);
  std::vector<double> samples(100000);
  for (auto& x : samples) x = u(rng);
  const auto s = summarize(samples);
  EXPECT_NEAR(s.min, 2.0, 0.001);
  EXPECT_NEAR(s.max, 4.0, 0.001);
  EXPECT_NEAR(s.stddev, 2.0 / std::sqrt(12.0), 0.005);
  EXPECT_NEAR(s.p5, 2.1, 0.01);
  EXPECT_NEAR(s.p95, 3.9, 0.01);
  EXPECT_NEAR(s.p99, 3.98, 0.01);
}

}  // namespace
}  // namespace dnnbench
