#include "measure/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace dnnbench {

double Stats::median_ci_rel() const {
  if (n == 0 || median == 0) return 0;
  return std::max(median - median_ci_lo, median_ci_hi - median) / std::abs(median);
}

double median_of(std::vector<double> values) {
  return median_in_place(values);
}

double median_in_place(std::vector<double>& values) {
  if (values.empty()) return 0;
  const auto mid = values.size() / 2;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(mid);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = *middle;
  if (values.size() % 2 == 1) return upper;
  return (*std::max_element(values.begin(), middle) + upper) / 2;
}

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

RankInterval median_ci_ranks(std::int64_t n) {
  if (n < 6) return {0, std::max<std::int64_t>(n - 1, 0)};
  // Normal approximation of Binomial(n, 1/2): ranks n/2 ± 1.96·sqrt(n)/2 (1-based), which
  // covers the median with >= 95% probability for any continuous distribution.
  const double half_width = 1.959964 * std::sqrt(static_cast<double>(n)) / 2.0;
  const double centre = static_cast<double>(n) / 2.0;
  auto lo = static_cast<std::int64_t>(std::floor(centre - half_width));       // 1-based rank
  auto hi = static_cast<std::int64_t>(std::ceil(centre + 1.0 + half_width));  // 1-based rank
  lo = std::clamp<std::int64_t>(lo, 1, n);
  hi = std::clamp<std::int64_t>(hi, 1, n);
  return {lo - 1, hi - 1};
}

Stats summarize(std::vector<double> samples) {
  Stats s;
  s.n = static_cast<std::int64_t>(samples.size());
  if (samples.empty()) return s;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.mean = std::accumulate(samples.begin(), samples.end(), 0.0) / static_cast<double>(s.n);
  double sq = 0;
  for (double x : samples) sq += (x - s.mean) * (x - s.mean);
  s.stddev = s.n > 1 ? std::sqrt(sq / static_cast<double>(s.n - 1)) : 0.0;
  s.median = quantile_sorted(samples, 0.5);
  s.p5 = quantile_sorted(samples, 0.05);
  s.p95 = quantile_sorted(samples, 0.95);
  s.p99 = quantile_sorted(samples, 0.99);
  const auto ranks = median_ci_ranks(s.n);
  s.median_ci_lo = samples[static_cast<std::size_t>(ranks.lo)];
  s.median_ci_hi = samples[static_cast<std::size_t>(ranks.hi)];
  return s;
}

}  // namespace dnnbench
