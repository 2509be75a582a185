#pragma once
// The noise floor of this machine (`dnnbench calibrate`): the same plan timed as R independent
// measurements (a fresh build, fresh buffers, its own warm-up and stopping rule each time), for
// a short and a long kernel per provider. The spread of the R medians says how far a number
// moves when nothing changed, so no difference smaller than it should be called a speedup.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "graph/graph.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// Kernels shorter than this (per execution) are "short": launch gaps, event resolution and
// clock changes weigh on them most. 100 us separates the ~30 us and ~1 ms classes of the issue.
inline constexpr double kShortKernelMs = 0.1;

struct CalibrationEntry {
  std::string graph, provider, engine, plan, timing_method;
  std::string kind;                  // "short" or "long" (by the median, kShortKernelMs)
  std::vector<double> medians_ms;    // one per repeat, primary figure (kernel time where there is one)
  std::vector<bool> converged;       // per repeat
  std::vector<double> sm_mhz_mean;   // per repeat, NaN without GPU clocks
  std::int64_t clock_unstable = 0;   // repeats flagged clock_unstable
  double spread = 0;                 // max / min - 1 of the medians
  std::optional<std::string> error;  // why this (graph, provider) could not be measured
};

struct Calibration {
  std::string timestamp_utc, hostname;
  std::int64_t repeats = 0;
  std::vector<CalibrationEntry> entries;
  // Worst spread per kind over the entries measured (nullopt: none of that kind).
  std::optional<double> short_spread, long_spread;
};

// (max - min) / min of the values; 0 for fewer than two.
double spread_of(const std::vector<double>& values);

// The graphs calibrated when none are given: a short and a long NHWC 3x3 convolution sized for
// the provider's device (fp16 ~30 us and ~1 ms on an H200; fp32 ~10 us and ~10 ms on a CPU).
std::vector<Graph> default_calibration_graphs(bool device);

// Measures every graph on the first engine each provider offers, `repeats` times.
Calibration run_calibration(const std::vector<Graph>& graphs, const std::vector<std::string>& providers,
                            const RunOptions& options, std::int64_t repeats);

nlohmann::json calibration_to_json(const Calibration& calibration);
// The figure recorded in a run's metadata ("noise_floor") from a calibration file's JSON.
nlohmann::json noise_floor_summary(const nlohmann::json& calibration, const std::string& path);
// $XDG_CACHE_HOME/dnnbench/calibration.json, else ~/.cache/dnnbench/calibration.json.
std::string default_calibration_path();
// The calibration file's noise floor for the metadata; null when the file is absent or unreadable.
nlohmann::json load_noise_floor(const std::string& path);
// Why `path` gives no noise floor, as a warning for the user: it is missing (only when
// `must_exist`: the user named it), unreadable, not JSON, or not a `dnnbench calibrate` file.
// Empty when it is usable, or absent and not named.
std::string calibration_file_problem(const std::string& path, bool must_exist);

}  // namespace dnnbench
