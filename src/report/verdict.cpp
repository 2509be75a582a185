#include "report/verdict.hpp"

#include <algorithm>
#include <cmath>

#include "measure/bootstrap.hpp"
#include "report/peaks.hpp"

namespace dnnbench {

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::faster:
      return "FASTER";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::same:
      return "SAME";
    case Verdict::undecided:
      return "UNDECIDED";
  }
  return "?";
}

std::optional<TimeRatio> time_ratio(const RowResult& a, const RowResult& b) {
  const auto& sa = primary_stats(a);
  const auto& sb = primary_stats(b);
  if (!sa || !sb || !(sa->median > 0) || !(sb->median > 0)) return std::nullopt;
  const auto* samples_a = a.timing ? &a.timing->samples_ms : nullptr;
  const auto* samples_b = b.timing ? &b.timing->samples_ms : nullptr;
  if (samples_a && samples_b && !samples_a->empty() && !samples_b->empty()) {
    const auto r = bootstrap_median_ratio(*samples_a, *samples_b);
    if (std::isfinite(r.ratio) && std::isfinite(r.lo) && std::isfinite(r.hi))
      // The interval always holds the point ratio, so identical rows (ratio 1) are never called
      // FASTER or SLOWER, whatever the resampling drew.
      return TimeRatio{r.ratio, std::min(r.lo, r.ratio), std::max(r.hi, r.ratio), "bootstrap"};
  }
  TimeRatio r;
  r.method = "median-ci";
  r.ratio = sb->median / sa->median;
  const double a_lo = std::isfinite(sa->median_ci_lo) && sa->median_ci_lo > 0 ? sa->median_ci_lo : sa->median;
  const double a_hi = std::isfinite(sa->median_ci_hi) ? sa->median_ci_hi : sa->median;
  const double b_lo = std::isfinite(sb->median_ci_lo) ? sb->median_ci_lo : sb->median;
  const double b_hi = std::isfinite(sb->median_ci_hi) ? sb->median_ci_hi : sb->median;
  r.ci_lo = std::min(r.ratio, b_lo / a_hi);
  r.ci_hi = std::max(r.ratio, b_hi / a_lo);
  return r;
}

Verdict judge(const TimeRatio& r, double band) {
  const double upper = 1.0 + band, lower = 1.0 / (1.0 + band);
  if (r.ci_lo > upper) return Verdict::slower;
  if (r.ci_hi < lower) return Verdict::faster;
  if (r.ci_lo >= lower && r.ci_hi <= upper) return Verdict::same;
  return Verdict::undecided;
}

}  // namespace dnnbench
