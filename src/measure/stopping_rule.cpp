#include "measure/stopping_rule.hpp"

#include <algorithm>

#include "measure/stats.hpp"

namespace dnnbench {

void AdaptiveMedianRule::on_sample() {
  const auto n = static_cast<std::int64_t>(samples_.size());
  if (n >= limits_.min_iters && elapsed_ms_ >= limits_.min_time_ms) {
    // Re-summarizing costs O(n log n) per sample; checking on a geometric schedule keeps the
    // rule cheap next to sub-microsecond kernels while reacting within ~12% more samples.
    if (n == limits_.min_iters || n % std::max<std::int64_t>(1, n / 8) == 0) {
      if (summarize(samples_).median_ci_rel() <= limits_.target_ci_rel) converged_ = true;
    }
  }
  if (converged_) return;
  if (elapsed_ms_ >= limits_.max_time_ms)
    cap_ = "time-cap";
  else if (n >= limits_.max_iters)
    cap_ = "iteration-cap";
}

void PowerCycleRule::on_sample() {
  const auto n = static_cast<std::int64_t>(samples_.size());
  if (n >= caps_.min_iters && elapsed_ms_ >= cycle_ms_)
    converged_ = true;
  else if (elapsed_ms_ >= std::max(caps_.max_time_ms, cycle_ms_))
    cap_ = "time-cap";
  else if (n >= caps_.max_iters)
    cap_ = "iteration-cap";
}

}  // namespace dnnbench
