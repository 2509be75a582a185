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
  // One sample: its time in ms.
  virtual void add(double sample_ms) = 0;
  virtual bool finished() const = 0;
  // True when it stopped because its criterion was met (not a cap).
  virtual bool converged() const = 0;
  const std::vector<double>& samples() const { return samples_; }
  double elapsed_ms() const { return elapsed_ms_; }

 protected:
  void record(double sample_ms) {
    samples_.push_back(sample_ms);
    elapsed_ms_ += sample_ms;
  }
  std::vector<double> samples_;
  double elapsed_ms_ = 0;  // sum of sample times (time inside the timed region)
};

// Exactly `count` samples (--iters N).
class FixedCountRule final : public StoppingRule {
 public:
  explicit FixedCountRule(std::int64_t count) : count_(count) {}
  std::string name() const override { return "fixed"; }
  void add(double sample_ms) override { record(sample_ms); }
  bool finished() const override { return static_cast<std::int64_t>(samples_.size()) >= count_; }
  bool converged() const override { return finished(); }

 private:
  std::int64_t count_;
};

struct AdaptiveLimits {
  double target_ci_rel = 0.01;  // stop when the median's 95% CI is within ±1% of it
  std::int64_t min_iters = 10;  // fewer samples make the order-statistic CI meaningless
  double min_time_ms = 50;      // short runs see too little of the machine's noise
  std::int64_t max_iters = 2000;
  double max_time_ms = 2000;  // per row; keeps a suite of hundreds of graphs tractable
};

// Adaptive: stops when the 95% CI of the median is within target of it, after the minimums,
// or at a cap (then converged() is false).
class AdaptiveMedianRule final : public StoppingRule {
 public:
  explicit AdaptiveMedianRule(AdaptiveLimits limits) : limits_(limits) {}
  std::string name() const override { return "adaptive-median-ci"; }
  void add(double sample_ms) override;
  bool finished() const override { return converged_ || capped_; }
  bool converged() const override { return converged_; }
  const AdaptiveLimits& limits() const { return limits_; }

 private:
  AdaptiveLimits limits_;
  bool converged_ = false, capped_ = false;
};

}  // namespace dnnbench
