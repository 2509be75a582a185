#include "measure/paired.hpp"

#include <algorithm>
#include <cmath>

#include "measure/stats.hpp"
#include "tensor/fill.hpp"

namespace dnnbench {
namespace {

// Half-width of the distribution-free 95% CI of the median of per-round ratios, relative to
// that median: a cheap convergence test run while sampling (the bootstrap runs once, at the end).
double ratio_ci_rel(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> ratios(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) ratios[i] = b[i] > 0 ? a[i] / b[i] : 1.0;
  const auto s = summarize(ratios);
  return s.median_ci_rel();
}

}  // namespace

PairedResult compare_paired(const std::vector<double>& a, const std::vector<double>& b, int resamples,
                            std::uint64_t seed, double min_effect) {
  PairedResult r;
  r.rounds = static_cast<std::int64_t>(std::min(a.size(), b.size()));
  r.a = summarize(a);
  r.b = summarize(b);
  r.method = "ratio of medians, paired percentile bootstrap (" + std::to_string(resamples) + " resamples)";
  if (r.rounds == 0 || r.b.median <= 0) return r;
  r.ratio = r.a.median / r.b.median;
  std::vector<double> ratios;
  ratios.reserve(static_cast<std::size_t>(resamples));
  std::vector<double> ra(static_cast<std::size_t>(r.rounds)), rb(static_cast<std::size_t>(r.rounds));
  std::uint64_t state = seed;
  for (int k = 0; k < resamples; ++k) {
    for (std::int64_t i = 0; i < r.rounds; ++i) {
      const auto j = static_cast<std::size_t>(splitmix64(state) % static_cast<std::uint64_t>(r.rounds));
      ra[static_cast<std::size_t>(i)] = a[j];
      rb[static_cast<std::size_t>(i)] = b[j];
    }
    const double mb = median_of(rb);
    if (mb > 0) ratios.push_back(median_of(ra) / mb);
  }
  std::sort(ratios.begin(), ratios.end());
  r.ci_lo = quantile_sorted(ratios, 0.025);
  r.ci_hi = quantile_sorted(ratios, 0.975);
  r.significant = (r.ci_lo > 1.0 || r.ci_hi < 1.0) && std::abs(r.ratio - 1.0) >= min_effect;
  return r;
}

void judge_against_control(PairedResult& r, const PairedResult& control, double min_effect) {
  r.has_control = true;
  r.control_ratio = control.ratio;
  r.control_ci_lo = control.ci_lo;
  r.control_ci_hi = control.ci_hi;
  // Distances in log space, so that 1.05 and 1/1.05 are the same distance from 1.
  const double control_distance =
      std::max({std::abs(std::log(control.ratio)), std::abs(std::log(control.ci_lo)),
                std::abs(std::log(control.ci_hi))});
  const double floor = std::max(std::log1p(min_effect), control_distance);
  r.noise_floor = std::expm1(floor);
  r.significant = std::log(r.ci_lo) > floor || std::log(r.ci_hi) < -floor;
}

PairedResult run_paired(const std::function<double()>& sample_a, const std::function<double()>& sample_b,
                        const PairedLimits& limits, const std::function<double()>& control) {
  std::vector<double> a, b, c;
  double elapsed = 0;
  bool converged = false;
  // With a control: the six orders of (A, B, C), so that each arm sits in each position, and
  // follows each other arm, equally often.
  static constexpr const char* kOrders[] = {"ABC", "CBA", "BCA", "ACB", "CAB", "BAC"};
  for (std::int64_t round = 0; round < limits.max_rounds && elapsed < limits.max_time_ms; ++round) {
    // ABBA: alternate which side goes first so that neither always runs on the state the other leaves.
    const char* order = control ? kOrders[round % 6] : (round % 2 == 0 ? "AB" : "BA");
    double ta = 0, tb = 0, tc = 0;
    for (const char* arm = order; *arm; ++arm) {
      if (*arm == 'A') ta = sample_a();
      if (*arm == 'B') tb = sample_b();
      if (*arm == 'C') tc = control();
    }
    a.push_back(ta);
    b.push_back(tb);
    if (control) c.push_back(tc);
    elapsed += ta + tb + tc;
    const auto n = static_cast<std::int64_t>(a.size());
    // Only whole cycles of the orders are judged, so that every arm has sat in every position
    // equally often when the rounds stop.
    if (n >= limits.min_rounds && n % (control ? 6 : 2) == 0 && ratio_ci_rel(a, b) <= limits.target_ci_rel &&
        (!control || ratio_ci_rel(a, c) <= limits.target_ci_rel)) {
      converged = true;
      break;
    }
  }
  const double median_a = a.empty() ? 0.0 : summarize(a).median;
  const double min_effect =
      median_a > 0 ? std::max(limits.min_effect, limits.min_effect_ms / median_a) : limits.min_effect;
  auto result = compare_paired(a, b, 2000, 1, min_effect);
  result.converged = converged;
  if (control) judge_against_control(result, compare_paired(a, c, 2000, 2, min_effect), min_effect);
  return result;
}

}  // namespace dnnbench
