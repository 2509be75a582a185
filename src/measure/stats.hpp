#pragma once
// Summary statistics of timing samples, with a distribution-free 95% confidence interval of
// the median (from binomial order statistics), so that no normality is assumed.
#include <cstdint>
#include <vector>

namespace dnnbench {

struct Stats {
  std::int64_t n = 0;
  double mean = 0, median = 0, stddev = 0, min = 0, max = 0;
  double p5 = 0, p95 = 0, p99 = 0;
  double median_ci_lo = 0, median_ci_hi = 0;  // 95% CI of the median
  // Half-width of the median's CI relative to the median (0.01 = ±1%).
  double median_ci_rel() const;
};

// Summarizes samples (any order). An empty input gives n = 0 and zeros.
Stats summarize(std::vector<double> samples);
// The median of `values` (any order; the mean of the two middle ones for an even count; 0 for
// none). In linear time: the bootstrap takes it thousands of times a comparison.
double median_of(std::vector<double> values);
// The same, reordering `values` instead of copying them (a loop that reuses one buffer).
double median_in_place(std::vector<double>& values);
// Linear-interpolated quantile q in [0, 1] of sorted samples.
double quantile_sorted(const std::vector<double>& sorted, double q);
// Indices (0-based, into sorted samples) bounding the 95% CI of the median; for n < 6 the
// interval is the full range [0, n-1].
struct RankInterval {
  std::int64_t lo = 0, hi = 0;
};
RankInterval median_ci_ranks(std::int64_t n);

}  // namespace dnnbench
