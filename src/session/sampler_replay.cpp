// Graph-replay samples: a batch captured once (a CUDA graph) and replayed between one event pair,
// so the host's per-execution launch cost never shows in a short kernel's time.
#include <fmt/format.h>

#include "measure/host_timer.hpp"
#include "session/sampler.hpp"

namespace dnnbench {
namespace {

class ReplaySampler final : public Sampler {
 public:
  ReplaySampler(PlanInstance& instance, std::unique_ptr<KernelTimer> timer, std::unique_ptr<Sampler> fallback)
      : instance_(instance), timer_(std::move(timer)), fallback_(std::move(fallback)) {}
  Sample take(std::int64_t executions) override {
    auto* replay = replay_for(executions);
    if (!replay) return fallback_->take(executions);
    HostTimer timer;
    timer_->start();
    replay->launch();
    timer_->stop();
    instance_.stream().synchronize();
    const auto n = static_cast<double>(executions);
    return {timer.elapsed_ms() / n, timer_->elapsed_ms() / n};
  }
  std::string method(std::int64_t batch) const override {
    return replayed(batch) ? fmt::format("cuda-graph-replay({} per sample)", batch)
                           : fallback_->method(batch);
  }
  bool device_timed() const override { return true; }
  // The captured graph holds the old buffers' addresses.
  void rebound() override {
    replay_.reset();
    executions_ = 0;
    fallback_->rebound();
  }
  std::string replay_fallback(std::int64_t batch) const override {
    return batch > 1 && !replayed(batch) ? why_not_ : "";
  }

 private:
  bool replayed(std::int64_t batch) const { return replay_ && executions_ == batch; }
  // The replay of a batch of `executions`, captured on first use; nullptr for a single execution
  // or once a capture failed (it is not retried).
  BatchReplay* replay_for(std::int64_t executions) {
    if (executions <= 1 || !why_not_.empty()) return nullptr;
    if (replayed(executions)) return replay_.get();
    replay_.reset();
    std::string why_not;
    replay_ = instance_.stream().capture([this] { instance_.execute(); }, executions, why_not);
    if (!replay_) {
      why_not_ = why_not.empty() ? "the provider's stream cannot capture" : why_not;
      return nullptr;
    }
    executions_ = executions;
    return replay_.get();
  }

  PlanInstance& instance_;
  std::unique_ptr<KernelTimer> timer_;
  std::unique_ptr<Sampler> fallback_;
  std::unique_ptr<BatchReplay> replay_;
  std::int64_t executions_ = 0;
  std::string why_not_;  // why capture failed
};

}  // namespace

std::unique_ptr<Sampler> make_replay_sampler(PlanInstance& instance, std::unique_ptr<KernelTimer> timer,
                                             std::unique_ptr<Sampler> fallback) {
  return std::make_unique<ReplaySampler>(instance, std::move(timer), std::move(fallback));
}

}  // namespace dnnbench
