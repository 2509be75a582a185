#pragma once
// Noise-aware verdicts on a change of time between two runs of the same row (docs/compare.md).
#include <optional>
#include <string>
#include <string_view>

#include "report/results.hpp"

namespace dnnbench {

// B relative to A. UNDECIDED: the evidence cannot tell (the interval reaches both inside and
// outside the noise band).
enum class Verdict { faster, slower, same, undecided };
std::string_view verdict_name(Verdict verdict);  // "FASTER", "SLOWER", "SAME", "UNDECIDED"

// The ratio of B's time to A's (> 1: B is slower) with a 95% interval.
struct TimeRatio {
  double ratio = 1, ci_lo = 1, ci_hi = 1;
  // "bootstrap": resampled saved samples of both rows; "median-ci": the medians' CIs, combined
  // conservatively ([lo_B / hi_A, hi_B / lo_A]) because nothing else was saved.
  std::string method;
};

// From the samples both rows saved (--save-samples), else from their medians' CIs; nullopt when
// a side has no positive median.
std::optional<TimeRatio> time_ratio(const RowResult& a, const RowResult& b);

// SLOWER when the whole interval lies above 1 + band, FASTER when it lies below 1 / (1 + band),
// SAME when it lies within [1 / (1 + band), 1 + band], UNDECIDED otherwise. The interval always
// holds the ratio, so identical rows (ratio 1) are never FASTER or SLOWER, whatever the band.
Verdict judge(const TimeRatio& ratio, double band);

// The band itself comes from the noise model (report/noise_model.hpp).

}  // namespace dnnbench
