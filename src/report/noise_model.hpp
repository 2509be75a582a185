#pragma once
// The noise a verdict between two runs has to beat (docs/compare.md, "The noise model"): not how
// well each run knows its own median (the ratio's interval says that), but how far the same row
// moves between two processes when nothing changed (page placement, frequency, a bimodal kernel,
// a busy neighbour core).
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

// Run-to-run floors used when a row carries no better estimate: the seed successor's 5% on CPU
// rows (issue 32: oneDNN A/A pairs on a 2-core box moved 5-50% between processes on their
// within-run CIs alone), 2% on GPU kernel times (an H200 kernel's A/A spread is ~1% at a fixed
// clock; the 3% default --min-effect sits above it).
inline constexpr double kCpuRunToRunFloor = 0.05;
inline constexpr double kGpuRunToRunFloor = 0.02;

struct NoiseBand {
  double band = 0;  // the change a verdict must clear (0.05: ±5%)
  // Which noise bound it: "repeat" (the rows' between-instance spread, run --repeat),
  // "calibrated" (metadata.noise_floor of `dnnbench calibrate`), "iqr-floor" (the conservative
  // floor: max(floor, 2·hypot(relative IQRs)), floor 5% CPU / 2% GPU), or "min-effect" (the
  // user's --min-effect, larger than every noise estimate).
  std::string source;
};

// Relative interquartile range of the row's primary time: from its saved samples as 2·MAD / median
// (a normal's IQR, robust to up to half the samples being outliers), else estimated from p5/p95
// as a normal's (IQR = 0.41·(p95 − p5)); nullopt without stats.
std::optional<double> relative_iqr(const RowResult& row);

// The calibrated between-process spread for a row of `provider` whose median is `median_ms`,
// from a run's metadata.noise_floor (per provider when recorded, else the run's worst); nullopt
// when the run was not calibrated.
std::optional<double> calibrated_spread(const nlohmann::json& metadata, const std::string& provider,
                                        double median_ms);

// The band of a comparison of row `a` (run with metadata `meta_a`) with row `b`. The run-to-run
// term is the rows' --repeat spread when either has one, else the calibrated spread when either
// run recorded one, else the floor of the row's device kind; the band is the largest of that
// term, 2·hypot(relative IQRs) and `min_effect`, and `source` names the one that bound it.
NoiseBand noise_band_for(const RowResult& a, const RowResult& b, const nlohmann::json& meta_a,
                         const nlohmann::json& meta_b, double min_effect);

// The band for comparing today's time with a time stored by another run (--plans-from): the
// run-to-run floor of the device kind, or `min_effect` when larger.
double cross_run_band(bool gpu_kernel_time, double min_effect);

}  // namespace dnnbench
