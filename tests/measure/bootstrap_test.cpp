#include "measure/bootstrap.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace dnnbench {
namespace {

std::vector<double> noisy(double centre, double spread, int n, int phase = 0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre * (1 + spread * std::sin(1.7 * (i + phase))));
  return v;
}

TEST(Bootstrap, IdenticalSamplesGiveRatioOneInsideTheInterval) {
  const auto a = noisy(1.0, 0.05, 40);
  const auto r = bootstrap_median_ratio(a, a);
  EXPECT_DOUBLE_EQ(r.ratio, 1.0);
  EXPECT_LE(r.lo, 1.0);
  EXPECT_GE(r.hi, 1.0);
  EXPECT_LT(r.hi - r.lo, 0.1);
}

TEST(Bootstrap, ClearShiftHasAnIntervalAwayFromOne) {
  const auto r = bootstrap_median_ratio(noisy(1.0, 0.01, 50), noisy(1.2, 0.01, 50, 3));
  EXPECT_NEAR(r.ratio, 1.2, 0.01);
  EXPECT_GT(r.lo, 1.15);
  EXPECT_LT(r.hi, 1.25);
}

TEST(Bootstrap, SameInputsSameInterval) {
  const auto a = noisy(1.0, 0.1, 30), b = noisy(1.05, 0.1, 30, 5);
  const auto r1 = bootstrap_median_ratio(a, b), r2 = bootstrap_median_ratio(a, b);
  EXPECT_EQ(r1.lo, r2.lo);
  EXPECT_EQ(r1.hi, r2.hi);
}

TEST(Bootstrap, EmptySideIsNaN) {
  EXPECT_TRUE(std::isnan(bootstrap_median_ratio({}, {1.0}).ratio));
}

}  // namespace
}  // namespace dnnbench
