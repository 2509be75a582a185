#include "measure/paired.hpp"

#include <algorithm>
#include <cmath>

#include "tensor/fill.hpp"

namespace dnnbench {
namespace {

double median_of(std::vector<double>& v) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}

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

PairedResult run_paired(const std::function<double()>& sample_a, const std::function<double()>& sample_b,
                        const PairedLimits& limits) {
  std::vector<double> a, b;
  double elapsed = 0;
  bool converged = false;
  for (std::int64_t round = 0; round < limits.max_rounds && elapsed < limits.max_time_ms; ++round) {
    // ABBA: alternate which side goes first so that neither always runs on the state the other leaves.
    double ta, tb;
    if (round % 2 == 0) {
      ta = sample_a();
      tb = sample_b();
    } else {
      tb = sample_b();
      ta = sample_a();
    }
    a.push_back(ta);
    b.push_back(tb);
    elapsed += ta + tb;
    const auto n = static_cast<std::int64_t>(a.size());
    if (n >= limits.min_rounds && n % 10 == 0 && ratio_ci_rel(a, b) <= limits.target_ci_rel) {
      converged = true;
      break;
    }
  }
  auto result = compare_paired(a, b, 2000, 1, limits.min_effect);
  result.converged = converged;
  return result;
}

}  // namespace dnnbench
