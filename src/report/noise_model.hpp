#pragma once
// The noise a verdict between two runs has to beat (docs/compare.md, "The noise model"): not how
// well each run knows its own median (the ratio's interval says that), but how far the same row
// moves between two processes when nothing changed (page placement, frequency, a bimodal kernel,
// a busy neighbour core).
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results.hpp"
#include "report/verdict.hpp"

namespace dnnbench {

// Run-to-run floors used when a row carries no better estimate: the seed successor's 5% on CPU
// rows (issue 32: oneDNN A/A pairs on a 2-core box moved 5-50% between processes on their
// within-run CIs alone), 2% on GPU kernel times (an H200 kernel's A/A spread is ~1% at a fixed
// clock; the 3% default --min-effect sits above it).
inline constexpr double kCpuRunToRunFloor = 0.05;
inline constexpr double kGpuRunToRunFloor = 0.02;

// --repeat's term: this many times the larger of the two rows' spreads (max / min - 1 of their
// pass medians). Each row reports its middle pass, whose spread between two runs is about half
// a range of three; 1.5 ranges is then ~3 standard deviations of the difference of two runs'
// middle passes (a range of 3 normal draws averages 1.7σ, a median of 3 has σ ≈ 0.67σ, the
// difference of two of them ≈ 0.95σ), before the ratio's own interval adds its margin.
inline constexpr double kRepeatSpreadMultiple = 1.5;
// Standard deviations of the difference between two runs' figures that the placement term
// (placement_spread_multiple) asks a change to clear: 3, as for the suite spread.
inline constexpr double kPlacementSigmas = 3.0;
// The suite-spread term (suite_spread_band): used only over at least this many judged rows, so
// that a small comparison (a handful of rows, most of them changed on purpose) is judged on each
// row's own noise; 30 rows give the median of |log ratio| to about ±20%.
inline constexpr std::size_t kSuiteSpreadMinRows = 30;
// Standard deviations of the suite's ratio spread a row must clear: a normal's two-sided tail past
// 3σ is 0.27%, ~0.5 false verdict over 196 rows, before the ratio's own interval adds margin.
inline constexpr double kSuiteSpreadSigmas = 3.0;

struct NoiseBand {
  double band = 0;  // the change a verdict must clear (0.05: ±5%)
  // Which noise bound it: "repeat" (kRepeatSpreadMultiple x the larger of the rows' --repeat
  // spreads, between passes in fresh processes or, under MPI, fresh plan instances),
  // "calibrated" (metadata.noise_floor of `dnnbench calibrate`), "iqr-floor" (the conservative
  // floor: max(floor, 2·hypot(relative IQRs)), floor 5% CPU / 2% GPU), or "min-effect" (the
  // user's --min-effect, larger than every noise estimate), "placements" (the rows' spread over
  // buffer placements, TimingInfo::placements, times placement_spread_multiple), or
  // "suite-spread" (compare.cpp:
  // suite_spread_band, the bulk of the whole comparison's ratios).
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
// term is kRepeatSpreadMultiple x the larger of the rows' --repeat spreads when either has one,
// but never below the floor of the row's device kind (three passes that agree by chance do not
// make a machine quieter than its floor); else placement_spread_multiple x the larger of the rows'
// spreads over buffer placements (--placements, the default), with the same floor; else the
// calibrated spread when either run recorded one; else the floor. The band is the largest of that
// term, 2·hypot(relative IQRs) (only where no --repeat or placement spread was measured) and
// `min_effect`, and `source` names the one that bound it.
NoiseBand noise_band_for(const RowResult& a, const RowResult& b, const nlohmann::json& meta_a,
                         const nlohmann::json& meta_b, double min_effect);

// What a spread (max / min - 1) over `chunks` placements is multiplied by to bound, at
// kPlacementSigmas, the difference between two runs' medians over their placements: the range of k
// normal draws is d2(k)·σ (1.69σ for 3), a median of k has σ·sqrt(π / 2k), a difference of two
// such sqrt(2) times that. 1.81 for 3 chunks, 1.02 for 5, 0.66 for 8.
double placement_spread_multiple(std::int64_t chunks);

// The run-to-run noise the whole comparison shows (Efron's "empirical null"): most rows of an A/B
// do not change, so the bulk of their ratios B/A scatters by the noise between the two runs,
// including what neither run's passes could see (a machine slowed for longer than one run lasts:
// issue 32's oneDNN A/A pairs). Robust σ of log ratio about its median = 1.4826 · median
// |log ratio − median log ratio|; the band is exp(kSuiteSpreadSigmas · σ) − 1. nullopt with fewer
// than kSuiteSpreadMinRows ratios. About the median, not about 1: a change that moves every row
// alike (a planted 10% on every crashtest row, a library or driver slower everywhere) shifts the
// ratios without scattering them, and taken about 1 it widened every band past itself (±62% on
// the CPU VM) and was called SAME on every row. A real change on a minority of rows moves neither.
std::optional<double> suite_spread_band(const std::vector<double>& ratios);

// Two multi-threaded CPU rows measured in different machine states: their fork-join times
// (TimingInfo::host_sync, the mean of before and after) differ by more than this ratio. On a
// 2-vCPU VM the fast state read 0.95-1.00 us and the slow one 1.15-1.35 us, and rows moved up to
// 2.8x between them (bench/results/cpu-thread-sync.json); within one state the probe varied by
// under 5%.
inline constexpr double kHostSyncTolerance = 1.10;

// "the machine's thread synchronization differed: 0.97 us in A, 1.31 us in B" when both rows
// recorded it and it differs by more than kHostSyncTolerance; "" otherwise. Such a pair is not
// judged (UNDECIDED): its ratio is the machine's as much as the code's.
std::string host_sync_difference(const RowResult& a, const RowResult& b);

// Two host rows measured on differently free cores: their core-ruler readings
// (TimingInfo::core_state, sys/core_ruler.hpp) differ by more than this ratio. The ruler is the
// same loop in every run, and its undisturbed readings lay within 1.008x of each other on the
// 2-vCPU VM; the shared or down-clocked cores read 1.07-1.73x.
inline constexpr double kCoreStateTolerance = 1.10;

// How far a difference of cores can move a row, as a power of the readings' ratio: on the VM a
// one-thread eltwise moved 1.71x with the ruler's 1.38x (1.66 in logs), a two-thread one 1.40x
// with 1.70x (bench/results/core-ruler.json), and in an A/A pair a one-thread gelu 1.42x with
// readings 1.16x apart (2.4); 3 covers them with a margin.
inline constexpr double kCoreStateReach = 3.0;

// "the cores ran the core ruler in 1.27 us in A, 1.76 us in B" when both rows recorded readings
// that differ by more than kCoreStateTolerance and the change B/A (`ratio`, at the edge of its
// interval nearest 1) is one such a difference could make: within `band` of kCoreStateReach
// powers of the readings' ratio. "" otherwise: the same cores, or a change no core explains (a
// reference engine 10x slower than the library's) is judged as any row. A pair with the text is
// not judged (UNDECIDED, noise source "core-state").
std::string core_state_difference(const RowResult& a, const RowResult& b, const TimeRatio& ratio,
                                  double band);

// A warning when CPU rows ran on cores the core ruler read over kCoreDisturbedAbove times its
// best (TimingInfo::core_state): how many of how many, and what compare does with them; "" when
// none did.
std::string core_state_warning(const std::vector<GraphResult>& graphs);

// A warning when the machine's thread synchronization moved by more than kHostSyncTolerance over
// one run's rows (their TimingInfo::host_sync); "" when it held (or no row recorded it).
std::string host_sync_warning(const std::vector<GraphResult>& graphs);
// A note on the hot rows whose working set is a quarter to twice the device's last-level cache
// (cache_sensitive): how many, and that their figures depend on what the cache holds, which a
// re-run or a layer inside a network need not share; "" when there are none.
std::string cache_sensitive_note(const std::vector<GraphResult>& graphs);

// The band for comparing today's time with a time stored by another run (--plans-from): the
// run-to-run floor of the device kind, or `min_effect` when larger.
double cross_run_band(bool gpu_kernel_time, double min_effect);

}  // namespace dnnbench
