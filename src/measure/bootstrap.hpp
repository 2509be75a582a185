#pragma once
// Bootstrap confidence interval of the ratio of two medians, from the samples of two independent
// measurements: resample each side with replacement, take median(b*) / median(a*), repeat, and
// read the percentiles. No distribution is assumed, and it is exact for A/A: identical samples
// give a CI around exactly 1.
#include <cstdint>
#include <vector>

namespace dnnbench {

struct RatioInterval {
  double ratio = 1;       // median(b) / median(a) of the samples themselves
  double lo = 1, hi = 1;  // 95% percentile interval
};

// `resamples` draws from a fixed-seed generator, so the same inputs always give the same interval.
// 1000: the usual count for a 95% percentile interval; it keeps a 700-row comparison with 100
// samples per row to seconds (2000 took 46 s on this shared 2-core machine under load).
// Both sides need at least one sample; otherwise the result is {NaN, NaN, NaN}.
RatioInterval bootstrap_median_ratio(const std::vector<double>& a, const std::vector<double>& b,
                                     int resamples = 1000, std::uint64_t seed = 0x5eed);

}  // namespace dnnbench
