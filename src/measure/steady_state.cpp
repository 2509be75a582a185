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

void SteadyStateDetector::add(double sample_ms, const WarmupSensors& sensors, double elapsed_ms) {
  ++samples_;
  elapsed_ms_ += elapsed_ms;
  window_capped_ = window_capped_ || sensors.capped;
  window_.push_back(sample_ms);
  if (!std::isnan(sensors.sm_mhz)) window_clock_.push_back(sensors.sm_mhz);
  if (!std::isnan(sensors.power_limit_w)) power_limit_w_ = sensors.power_limit_w;
  if (!std::isnan(sensors.power_w)) {
    powers_.push_back({elapsed_ms_, sensors.power_w});
    while (powers_.size() > 1 && powers_[1].at_ms <= elapsed_ms_ - limits_.power_span_ms) powers_.pop_front();
  }
  if (static_cast<std::int64_t>(window_.size()) < limits_.window_samples) return;
  medians_.push_back(summarize(window_).median);
  if (!window_clock_.empty()) clocks_.push_back(summarize(window_clock_).mean);
  window_.clear();
  window_clock_.clear();
  // The latest window says whether the row is capped, not any earlier reading: NVML's readings
  // move in ~100 ms ticks, and a row's first one may still be the previous row's.
  capped_ = window_capped_;
  window_capped_ = false;
  const bool times_agree = relative_spread_of_last(medians_, limits_.windows) <= limits_.tolerance;
  // Clocks are judged only when every window had readings (NVML present); power only once the
  // clock is held down, since then it sets the clock (an uncapped row runs at its boost clock
  // whatever its power does, and need not wait for the average to catch up).
  const bool clocks_agree = clocks_.size() != medians_.size() ||
                            relative_spread_of_last(clocks_, limits_.windows) <= limits_.clock_tolerance;
  // Loaded long enough for the driver to have answered the row's power (a sustained device row);
  // at most half the time cap, so that a short --warmup-max-ms (a quick triage) can still end steady.
  const bool loaded =
      std::isnan(power_limit_w_) || elapsed_ms_ >= std::min(limits_.min_load_ms, 0.5 * max_ms());
  // Held at the cap with the power settled at the limit, the row is as steady as it gets: the
  // driver then cycles the clock about once a second, so window medians 50 ms apart disagree by up
  // to 15% however long the warm-up waits (it waited 0.4-0.9 s a capped row for nothing), and the
  // measurement spans a whole cycle (PowerCycleRule). Without power readings the times decide.
  const bool power_decides = capped_ && !powers_.empty();
  steady_ = loaded && (power_decides ? power_settled() : times_agree && clocks_agree);
}

bool SteadyStateDetector::power_settled() const {
  if (powers_.empty()) return true;  // no power readings: nothing to wait for
  if (powers_.front().at_ms > elapsed_ms_ - limits_.power_span_ms) return false;  // too short a span yet
  const auto [lo, hi] = std::minmax_element(powers_.begin(), powers_.end(),
                                            [](const auto& a, const auto& b) { return a.watts < b.watts; });
  const bool held = lo->watts > 0 && (hi->watts - lo->watts) / lo->watts <= limits_.power_tolerance;
  return held &&
         (std::isnan(power_limit_w_) || powers_.back().watts >= limits_.power_near_limit * power_limit_w_);
}

}  // namespace dnnbench
