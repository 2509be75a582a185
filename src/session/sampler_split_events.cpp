// --per-execution-events: single-execution times taken inside a back-to-back batch, to check that
// batching does not bias the per-execution figure.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <vector>

#include "measure/host_timer.hpp"
#include "measure/stats.hpp"
#include "session/sampler.hpp"

namespace dnnbench {
namespace {

class SplitEventSampler final : public Sampler {
 public:
  explicit SplitEventSampler(PlanInstance& instance) : instance_(instance) {}
  Sample take(std::int64_t executions) override {
    auto& stream = instance_.stream();
    while (static_cast<std::int64_t>(timers_.size()) < executions) {
      auto timer = stream.make_kernel_timer();
      if (!timer) throw std::runtime_error("--per-execution-events: the provider has no device timer");
      timers_.push_back(std::move(timer));
    }
    // Gated like the batched sample, so that no execution's event pair waits on the host's launches.
    std::unique_ptr<StreamGate> gate;
    if (executions <= kMaxGatedExecutions) gate = stream.make_gate();
    HostTimer timer;
    for (std::int64_t i = 0; i < executions; ++i) {
      auto& t = *timers_[static_cast<std::size_t>(i)];
      t.start();
      instance_.execute();
      t.stop();
    }
    if (gate) gate->release();
    stream.synchronize();
    std::vector<double> times;
    for (std::int64_t i = 0; i < executions; ++i)
      times.push_back(timers_[static_cast<std::size_t>(i)]->elapsed_ms());
    std::sort(times.begin(), times.end());
    return {timer.elapsed_ms() / static_cast<double>(executions), quantile_sorted(times, 0.5)};
  }
  std::string method(std::int64_t batch) const override {
    return fmt::format("device-events-per-execution(median of {} back-to-back per sample)", batch);
  }
  bool device_timed() const override { return true; }

 private:
  PlanInstance& instance_;
  std::vector<std::unique_ptr<KernelTimer>> timers_;
};

}  // namespace

std::unique_ptr<Sampler> make_split_event_sampler(PlanInstance& instance) {
  return std::make_unique<SplitEventSampler>(instance);
}

}  // namespace dnnbench
