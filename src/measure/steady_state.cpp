#include "measure/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "measure/stats.hpp"

namespace dnnbench {

double relative_spread_of_last(const std::vector<double>& values, std::int64_t count) {
  if (count <= 0 || static_cast<std::int64_t>(values.size()) < count)
    return std::numeric_limits<double>::infinity();
  const auto first = values.end() - count;
  const auto [lo, hi] = std::minmax_element(first, values.end());
  return *lo > 0 ? (*hi - *lo) / *lo : std::numeric_limits<double>::infinity();
}

void SteadyStateDetector::add(double sample_ms, double sm_mhz, double elapsed_ms) {
  ++samples_;
  elapsed_ms_ += elapsed_ms;
  window_.push_back(sample_ms);
  if (!std::isnan(sm_mhz)) window_clock_.push_back(sm_mhz);
  if (static_cast<std::int64_t>(window_.size()) < limits_.window_samples) return;
  medians_.push_back(summarize(window_).median);
  if (!window_clock_.empty()) clocks_.push_back(summarize(window_clock_).mean);
  window_.clear();
  window_clock_.clear();
  const bool times_agree = relative_spread_of_last(medians_, limits_.windows) <= limits_.tolerance;
  // Clocks are judged only when every window had readings (NVML present).
  const bool clocks_agree = clocks_.size() != medians_.size() ||
                            relative_spread_of_last(clocks_, limits_.windows) <= limits_.clock_tolerance;
  steady_ = times_agree && clocks_agree;
}

}  // namespace dnnbench
