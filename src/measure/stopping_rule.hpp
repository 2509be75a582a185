#pragma once
// Stopping rules decide when a measurement has enough samples. Each is a small class behind
// one interface; the row runner picks one from the options.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dnnbench {

class StoppingRule {
 public:
  virtual ~StoppingRule() = default;
  virtual std::string name() const = 0;
  // One sample: `sample_ms` is the statistic's value (time per execution), `sample_elapsed_ms`
  // the real time the whole sample took (a batch of N executions takes about N x sample_ms, plus
  // the wait for its result). The time caps count the latter: a cap is a promise about the
  // user's wall clock, and a 10 ms batch of 7 us kernels must count as 10 ms, not 7 us.
  void add(double sample_ms, double sample_elapsed_ms) {
    samples_.push_back(sample_ms);
    elapsed_ms_ += sample_elapsed_ms;
    on_sample();
  }
  // A sample of one execution: its time is also its elapsed time.
  void add(double sample_ms) { add(sample_ms, sample_ms); }
  virtual bool finished() const = 0;
  // True when it stopped because its criterion was met (not a cap).
  virtual bool converged() const = 0;
  // Why it stopped: "ci" (the median's CI met its target), "count" (--iters), "time-cap",
  // "iteration-cap"; empty while running.
  virtual std::string stop_reason() const = 0;
  // True when the rule promises an exact number of samples (--iters N): samples already taken
  // elsewhere (the warm-up's steady ones) must not be added past it. Otherwise every such sample
  // is welcome: it was taken in the steady state and costs nothing more.
  virtual bool exact_count() const { return false; }
  // The fewest samples, and the least elapsed time, the rule takes before it may stop: a
  // measurement split over several placements (session/plan_session.hpp) gives each its share.
  virtual std::int64_t min_samples() const = 0;
  virtual double min_elapsed_ms() const { return 0; }
  // True when the samples are meant to span one cycle of the GPU's power control whole
  // (PowerCycleRule): the row's figure is then their pooled median, not a median of parts of it.
  virtual bool spans_power_cycle() const { return false; }
  const std::vector<double>& samples() const { return samples_; }
  // Elapsed time of the whole samples so far (ms), batches included.
  double elapsed_ms() const { return elapsed_ms_; }

 protected:
  virtual void on_sample() = 0;
  std::vector<double> samples_;
  double elapsed_ms_ = 0;
};

// Exactly `count` samples (--iters N).
class FixedCountRule final : public StoppingRule {
 public:
  explicit FixedCountRule(std::int64_t count) : count_(count) {}
  std::string name() const override { return "fixed"; }
  bool finished() const override { return static_cast<std::int64_t>(samples_.size()) >= count_; }
  bool converged() const override { return finished(); }
  std::string stop_reason() const override { return finished() ? "count" : ""; }
  bool exact_count() const override { return true; }
  std::int64_t min_samples() const override { return count_; }

 private:
  void on_sample() override {}
  std::int64_t count_;
};

struct AdaptiveLimits {
  double target_ci_rel = 0.01;  // stop when the median's 95% CI is within ±1% of it
  std::int64_t min_iters = 10;  // fewer samples make the order-statistic CI meaningless
  double min_time_ms = 50;      // short runs see too little of the machine's noise
  std::int64_t max_iters = 2000;
  // Per row, in elapsed time; keeps a suite of thousands of graphs tractable. 2 s of ~10 ms
  // samples is 200 samples, enough for a 1% CI on all but heavy-tailed timings.
  double max_time_ms = 2000;
};

// Adaptive: stops when the 95% CI of the median is within target of it, after the minimums,
// or at a cap (then converged() is false).
class AdaptiveMedianRule final : public StoppingRule {
 public:
  explicit AdaptiveMedianRule(AdaptiveLimits limits) : limits_(limits) {}
  std::string name() const override { return "adaptive-median-ci"; }
  bool finished() const override { return converged_ || !cap_.empty(); }
  bool converged() const override { return converged_; }
  std::string stop_reason() const override { return converged_ ? "ci" : cap_; }
  const AdaptiveLimits& limits() const { return limits_; }
  std::int64_t min_samples() const override { return limits_.min_iters; }
  double min_elapsed_ms() const override { return limits_.min_time_ms; }

 private:
  void on_sample() override;
  AdaptiveLimits limits_;
  bool converged_ = false;
  std::string cap_;  // "time-cap" / "iteration-cap" once one is hit
};

// A row held at its power cap: the driver moves the SM clock in a cycle of about a second, and a
// capped GEMM's time goes up and down with it by 5-10% (peak to trough up to 15%). A window of
// exactly one cycle holds every phase once: on the H100, pooled medians of 1.0 s windows of 13
// capped GEMM rows' samples read within 0.2-0.7% (sd) wherever the window started; 1.3 s windows
// up to 1.8%, 0.6 s windows up to 3.0%, and a median of three 1/3 s chunks up to 1.7%
// (bench/results/power-cycle.json). An interval that closes (AdaptiveMedianRule) ends at an
// arbitrary phase past the cycle. So the rule stops at the cycle: `cycle_ms` of samples, and at
// least min_iters of them, within the adaptive rule's caps.
class PowerCycleRule final : public StoppingRule {
 public:
  PowerCycleRule(double cycle_ms, AdaptiveLimits caps) : cycle_ms_(cycle_ms), caps_(caps) {}
  std::string name() const override { return "power-cycle"; }
  bool finished() const override { return converged_ || !cap_.empty(); }
  bool converged() const override { return converged_; }
  std::string stop_reason() const override { return converged_ ? "cycle" : cap_; }
  std::int64_t min_samples() const override { return caps_.min_iters; }
  double min_elapsed_ms() const override { return cycle_ms_; }
  bool spans_power_cycle() const override { return true; }

 private:
  void on_sample() override;
  double cycle_ms_;
  AdaptiveLimits caps_;  // min_iters, max_iters and max_time_ms
  bool converged_ = false;
  std::string cap_;
};

}  // namespace dnnbench
