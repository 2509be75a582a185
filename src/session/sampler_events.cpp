// Device-event samples: one event pair around a batch of back-to-back launches.
#include <fmt/format.h>

#include "measure/host_timer.hpp"
#include "session/sampler.hpp"

namespace dnnbench {
namespace {

class EventSampler final : public Sampler {
 public:
  EventSampler(PlanInstance& instance, std::unique_ptr<KernelTimer> timer)
      : instance_(instance), timer_(std::move(timer)) {}
  Sample take(std::int64_t executions) override {
    auto& stream = instance_.stream();
    // Short samples are gated: the device waits until the start event and every launch are
    // queued, so a single execution's event pair holds no launch latency. Long batches are not
    // (their launches could fill the queue behind the gate; batching already amortizes the
    // latency).
    std::unique_ptr<StreamGate> gate;
    if (executions <= kMaxGatedExecutions) gate = stream.make_gate();
    HostTimer timer;
    timer_->start();
    for (std::int64_t i = 0; i < executions; ++i) instance_.execute();
    timer_->stop();
    if (gate) gate->release();
    stream.synchronize();
    const auto n = static_cast<double>(executions);
    return {timer.elapsed_ms() / n, timer_->elapsed_ms() / n};
  }
  std::string method(std::int64_t batch) const override {
    return batch > 1 ? fmt::format("device-events-batched({} per sample)", batch) : "device-events-single";
  }
  bool device_timed() const override { return true; }

 private:
  PlanInstance& instance_;
  std::unique_ptr<KernelTimer> timer_;
};

}  // namespace

std::unique_ptr<Sampler> make_event_sampler(PlanInstance& instance, std::unique_ptr<KernelTimer> timer) {
  return std::make_unique<EventSampler>(instance, std::move(timer));
}

}  // namespace dnnbench
