#pragma once
// Paired comparison of two plans: samples taken in interleaved rounds (A B, then B A, ...) so
// that drift in the machine's state (clocks, power cap, temperature, other load) hits both
// sides alike. Result: the ratio of medians (A / B: > 1 means B is faster) with a 95% CI.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "measure/stats.hpp"

namespace dnnbench {

struct PairedResult {
  std::int64_t rounds = 0;
  Stats a, b;
  double ratio = 1;             // median(a) / median(b)
  double ci_lo = 1, ci_hi = 1;  // 95% CI of the ratio (paired percentile bootstrap)
  // The CI excludes 1.0 and the ratio is at least `min_effect` away from 1: an effect smaller
  // than the noise floor is never called significant, however tight its interval.
  bool significant = false;
  bool converged = false;  // the stopping rule's target was met (not a cap)
  std::string method;
  // The control arm (run_paired with a control sampler): a second instance of plan A timed in
  // the same rounds. A / control is what the same plan "gains" by chance here and now (noise,
  // buffer placement, load); an effect is significant only when its CI clears that band.
  bool has_control = false;
  double control_ratio = 1, control_ci_lo = 1, control_ci_hi = 1;
  // max(min_effect and min_effect_ms relative to median(A), the control's distance from 1 incl.
  // its CI)
  double noise_floor = 0;
};

// Ratio of medians with a paired percentile bootstrap CI: rounds are resampled with
// replacement (keeping each round's A and B together, so shared drift cancels), `resamples`
// times, with a fixed seed so that results are reproducible.
PairedResult compare_paired(const std::vector<double>& a, const std::vector<double>& b, int resamples = 2000,
                            std::uint64_t seed = 1, double min_effect = 0.0);

struct PairedLimits {
  std::int64_t min_rounds = 20;
  std::int64_t max_rounds = 400;
  double max_time_ms = 3000;    // both sides together
  double target_ci_rel = 0.01;  // stop when the ratio's CI half-width is within ±1%
  double min_effect = 0.01;     // smallest |ratio - 1| called significant (the A/A noise floor)
  // Smallest |median(A) - median(B)| called significant, in ms: on microsecond GPU kernels two
  // instances of one plan differ by up to ~0.2 us per execution, steadily (buffer placement), more
  // than min_effect of the time. 0: none. The floor is the larger.
  double min_effect_ms = 0;
};

// Judges `r` (A vs B) against `control` (A vs a second instance of A, same rounds): the noise
// floor is the control's largest distance from 1 over its ratio and CI (at least min_effect),
// and B differs significantly only when A/B's whole CI lies outside [1/(1+floor), 1+floor].
void judge_against_control(PairedResult& r, const PairedResult& control, double min_effect);

// Runs interleaved rounds of `sample_a` / `sample_b` (each returns one sample in ms), ABBA
// order, until the CI of the median of per-round ratios is within target or a cap, then
// compares with compare_paired. With a `control` sampler (a second instance of A), each round
// times all three in an order that cycles through the six permutations, and the result is
// judged against the control (judge_against_control).
PairedResult run_paired(const std::function<double()>& sample_a, const std::function<double()>& sample_b,
                        const PairedLimits& limits, const std::function<double()>& control = {});

}  // namespace dnnbench
