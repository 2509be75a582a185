#include "report/noise_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/peaks.hpp"
#include "sys/core_ruler.hpp"

namespace dnnbench {
namespace {

// Kernels shorter than this are "short" in `dnnbench calibrate` (env/calibration.hpp's
// kShortKernelMs); reports do not depend on env/, so the figure is repeated here.
constexpr double kShortKernelMs = 0.1;

// Two IQRs either side: the seed successor's rule. For a normal, 2·IQR ≈ 2.7σ of one run's
// samples, so a shift inside it is one a second process could draw from the same distribution.
constexpr double kIqrMultiple = 2.0;

std::optional<double> number(const nlohmann::json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j.at(key).is_number()) return std::nullopt;
  return j.at(key).get<double>();
}

std::optional<double> repeat_spread(const RowResult& row) {
  if (!row.repeat || row.repeat->medians_ms.size() < 2) return std::nullopt;
  return row.repeat->spread;
}

std::optional<double> placement_spread(const RowResult& row) {
  if (!row.timing || !row.timing->placements || row.timing->placements->chunks < 2) return std::nullopt;
  return row.timing->placements->spread;
}

std::int64_t placement_chunks(const RowResult& row) {
  return row.timing && row.timing->placements ? row.timing->placements->chunks : 0;
}

std::optional<double> either_hypot(std::optional<double> a, std::optional<double> b) {
  if (!a && !b) return std::nullopt;
  // A side without its own figure is assumed as noisy as the other.
  return std::hypot(a.value_or(*b), b.value_or(*a));
}

std::optional<double> larger(std::optional<double> a, std::optional<double> b) {
  if (!a) return b;
  if (!b) return a;
  return std::max(*a, *b);
}

}  // namespace

std::optional<double> relative_iqr(const RowResult& row) {
  const auto& stats = primary_stats(row);
  if (!stats || !(stats->median > 0)) return std::nullopt;
  if (row.timing && row.timing->samples_ms.size() >= 4) {
    // 2·MAD, not the quartiles themselves: the same figure for a normal (IQR = 1.349σ = 2·MAD),
    // but robust to up to half the samples being outliers rather than a quarter. On a loaded
    // machine a third of a 1 ms kernel's samples were preempted (5-20 ms): the median stayed
    // within 0.1%, the IQR grew to 7x the median, and no 10% change could be seen.
    const double median = stats->median;
    std::vector<double> deviations;
    deviations.reserve(row.timing->samples_ms.size());
    for (double x : row.timing->samples_ms) deviations.push_back(std::abs(x - median));
    std::sort(deviations.begin(), deviations.end());
    return 2 * quantile_sorted(deviations, 0.5) / median;
  }
  // A normal's IQR is 1.349σ and its p95 − p5 is 3.29σ.
  return std::max(0.0, 0.41 * (stats->p95 - stats->p5) / stats->median);
}

std::optional<double> calibrated_spread(const nlohmann::json& metadata, const std::string& provider,
                                        double median_ms) {
  if (!metadata.is_object() || !metadata.contains("noise_floor")) return std::nullopt;
  const auto& floor = metadata.at("noise_floor");
  if (!floor.is_object()) return std::nullopt;
  const char* key = median_ms < kShortKernelMs ? "short_spread" : "long_spread";
  if (floor.contains("providers") && floor.at("providers").is_object() &&
      floor.at("providers").contains(provider))
    if (const auto own = number(floor.at("providers").at(provider), key)) return own;
  return number(floor, key);
}

NoiseBand noise_band_for(const RowResult& a, const RowResult& b, const nlohmann::json& meta_a,
                         const nlohmann::json& meta_b, double min_effect) {
  const bool gpu = a.gpu_kernel_stats && b.gpu_kernel_stats;
  const auto& sa = primary_stats(a);
  const auto& sb = primary_stats(b);
  const double median = sa && sb ? std::min(sa->median, sb->median) : sa ? sa->median : sb ? sb->median : 0;
  const double floor = gpu ? kGpuRunToRunFloor : kCpuRunToRunFloor;
  NoiseBand out;
  bool own_spread = false;  // a between-placement or between-process spread stands for the samples' IQR
  if (const auto repeat = larger(repeat_spread(a), repeat_spread(b))) {
    out.band = std::max(floor, kRepeatSpreadMultiple * *repeat);
    out.source = kRepeatSpreadMultiple * *repeat >= floor ? "repeat" : "iqr-floor";
  } else if (const auto placed = larger(placement_spread(a), placement_spread(b))) {
    // The fewer chunks of the two rows sets the multiple (the rows' spreads are each a range).
    const auto chunks = std::min(placement_chunks(a) > 1 ? placement_chunks(a) : placement_chunks(b),
                                 placement_chunks(b) > 1 ? placement_chunks(b) : placement_chunks(a));
    const double term = placement_spread_multiple(chunks) * *placed;
    out.band = std::max(floor, term);
    out.source = term >= floor ? "placements" : "iqr-floor";
    own_spread = true;
  } else if (const auto calibrated = larger(calibrated_spread(meta_a, a.provider, median),
                                            calibrated_spread(meta_b, b.provider, median))) {
    out = {*calibrated, "calibrated"};
  } else {
    out.band = floor;
    out.source = "iqr-floor";
  }
  // The samples' IQR bounds the band only where no spread of the figure itself was measured: a
  // chunk's median already holds its samples' noise, and two IQRs of a noisy machine's samples
  // (a 2-core CPU: 14-60%) hide any change that the median over placements sees.
  if (const auto iqr = either_hypot(relative_iqr(a), relative_iqr(b));
      !own_spread && iqr && kIqrMultiple * *iqr > out.band) {
    out.band = kIqrMultiple * *iqr;
    out.source = "iqr-floor";
  }
  if (min_effect > out.band) {
    out.band = min_effect;
    out.source = "min-effect";
  }
  return out;
}

double placement_spread_multiple(std::int64_t chunks) {
  // Expected range of k normal draws in σ (d2 of quality control), k = 2..10.
  static constexpr double kRangeSigmas[] = {0,     0,     1.128, 1.693, 2.059, 2.326,
                                            2.534, 2.704, 2.847, 2.970, 3.078};
  const auto k = std::clamp<std::int64_t>(chunks, 2, 10);
  const double sigma_per_range = 1.0 / kRangeSigmas[k];
  // A median of k has σ·sqrt(π / 2k); the difference of two runs' medians sqrt(2) of that.
  const double difference_sigmas =
      std::sqrt(2.0) * std::sqrt(std::acos(-1.0) / (2.0 * static_cast<double>(k)));
  return kPlacementSigmas * difference_sigmas * sigma_per_range;
}

std::optional<double> suite_spread_band(const std::vector<double>& ratios) {
  if (ratios.size() < kSuiteSpreadMinRows) return std::nullopt;
  std::vector<double> logs;
  logs.reserve(ratios.size());
  for (double r : ratios)
    if (r > 0) logs.push_back(std::log(r));
  if (logs.size() < kSuiteSpreadMinRows) return std::nullopt;
  std::sort(logs.begin(), logs.end());
  const double centre = quantile_sorted(logs, 0.5);
  for (auto& l : logs) l = std::abs(l - centre);
  std::sort(logs.begin(), logs.end());
  // 1.4826: a normal's σ over its median absolute deviation.
  const double sigma = 1.4826 * quantile_sorted(logs, 0.5);
  return std::exp(kSuiteSpreadSigmas * sigma) - 1;
}

double cross_run_band(bool gpu_kernel_time, double min_effect) {
  return std::max(min_effect, gpu_kernel_time ? kGpuRunToRunFloor : kCpuRunToRunFloor);
}

std::string host_sync_difference(const RowResult& a, const RowResult& b) {
  if (!a.timing || !b.timing || !a.timing->host_sync || !b.timing->host_sync) return "";
  const double x = a.timing->host_sync->mean_us(), y = b.timing->host_sync->mean_us();
  if (x <= 0 || y <= 0 || std::max(x, y) / std::min(x, y) <= kHostSyncTolerance) return "";
  return fmt::format("the machine's thread synchronization differed: {:.2f} us in A, {:.2f} us in B", x, y);
}

std::string core_state_difference(const RowResult& a, const RowResult& b, const TimeRatio& ratio,
                                  double band) {
  if (!a.timing || !b.timing || !a.timing->core_state || !b.timing->core_state) return "";
  const double x = a.timing->core_state->ruler_us, y = b.timing->core_state->ruler_us;
  if (x <= 0 || y <= 0 || std::max(x, y) / std::min(x, y) <= kCoreStateTolerance) return "";
  const double nearest = ratio.ci_lo > 1 ? ratio.ci_lo : ratio.ci_hi < 1 ? ratio.ci_hi : 1;
  if (!(nearest > 0)) return "";
  const double reach = kCoreStateReach * std::abs(std::log(y / x)) + std::log1p(band);
  if (std::abs(std::log(nearest)) > reach) return "";
  return fmt::format("the cores ran the core ruler in {:.2f} us in A, {:.2f} us in B", x, y);
}

std::string core_state_warning(const std::vector<GraphResult>& graphs) {
  std::size_t rows = 0, slowed = 0;
  for (const auto& g : graphs)
    for (const auto& row : g.results)
      if (row.timing && row.timing->core_state) {
        ++rows;
        const auto& c = *row.timing->core_state;
        if (c.best_us > 0 && c.ruler_us > kCoreDisturbedAbove * c.best_us) ++slowed;
      }
  if (slowed == 0) return "";
  return fmt::format(
      "{} of {} CPU rows ran on cores shared or slowed (the core ruler read them over {:.2f}x its best; "
      "timing.core_state): their figures are the slowed cores', and `compare` leaves them UNDECIDED against "
      "rows measured on free cores; re-run them on a quieter machine",
      slowed, rows, kCoreDisturbedAbove);
}

std::string host_sync_warning(const std::vector<GraphResult>& graphs) {
  double lo = 0, hi = 0;
  std::size_t rows = 0;
  for (const auto& g : graphs)
    for (const auto& row : g.results)
      if (row.timing && row.timing->host_sync)
        for (const double us : {row.timing->host_sync->before_us, row.timing->host_sync->after_us}) {
          if (us <= 0) continue;
          lo = rows == 0 ? us : std::min(lo, us);
          hi = rows == 0 ? us : std::max(hi, us);
          ++rows;
        }
  if (rows == 0 || hi / lo <= kHostSyncTolerance) return "";
  return fmt::format(
      "this machine's thread synchronization moved between {:.2f} and {:.2f} us during the run (a VM's "
      "vCPUs): "
      "multi-threaded CPU rows move with it, and `compare` leaves rows measured in different states "
      "UNDECIDED; "
      "OMP_NUM_THREADS=1 measures without it",
      lo, hi);
}

std::string cache_sensitive_note(const std::vector<GraphResult>& graphs) {
  std::size_t rows = 0, timed = 0;
  for (const auto& g : graphs)
    for (const auto& row : g.results)
      if (row.timing && row.timing->cache_fit) {
        ++timed;
        if (cache_sensitive(*row.timing->cache_fit, row.timing->cache_mode)) ++rows;
      }
  if (rows == 0) return "";
  return fmt::format(
      "{} of {} hot rows have working sets of a quarter to twice the last-level cache (timing.cache_fit): "
      "their figures depend on what the cache still holds between executions; --cache-mode cold times them "
      "from memory",
      rows, timed);
}

}  // namespace dnnbench
