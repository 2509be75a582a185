// Host samples with the cores' state beside them (sys/core_ruler.hpp): on the 2-vCPU VM the host
// shared or down-clocked a core for stretches of 0.2 s to seconds, a row measured in such a
// stretch read up to 1.9x its time, and nothing in the row's own samples said so.
#include <algorithm>
#include <chrono>
#include <utility>

#include "session/sampler.hpp"

namespace dnnbench {
namespace {

class CoreRulerSampler final : public SamplerWrapper {
 public:
  CoreRulerSampler(std::unique_ptr<Sampler> inner, CoreRuler ruler, std::int64_t threads)
      : SamplerWrapper(std::move(inner)), ruler_(std::move(ruler)) {
    tally_.threads = threads;
  }
  Sample take(std::int64_t executions) override {
    const auto now = std::chrono::steady_clock::now();
    if (tally_.readings_us.empty() || now - read_at_ >= window_) {
      if (const auto reading = ruler_()) {
        tally_.best_us = reading->best_us;
        tally_.readings_us.push_back(reading->us);
        if (reading->us > kCoreDisturbedAbove * reading->best_us) ++tally_.disturbed_windows;
      }
      // A team that waits for a descheduled thread (more threads than free cores) can take a time
      // slice to read: the window then grows so that reading stays a small share of the row.
      read_at_ = std::chrono::steady_clock::now();
      window_ = std::max(min_window(), std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                           (read_at_ - now) / kCoreRulerMaxShare));
    }
    return inner().take(executions);
  }
  const CoreRulerTally* core_ruler() const override { return &tally_; }

 private:
  static std::chrono::steady_clock::duration min_window() {
    return std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double, std::milli>(kCoreRulerWindowMs));
  }

  CoreRuler ruler_;
  CoreRulerTally tally_;
  std::chrono::steady_clock::time_point read_at_;
  std::chrono::steady_clock::duration window_ = min_window();
};

}  // namespace

std::unique_ptr<Sampler> make_core_ruler_sampler(std::unique_ptr<Sampler> inner, CoreRuler ruler,
                                                 std::int64_t threads) {
  return std::make_unique<CoreRulerSampler>(std::move(inner), std::move(ruler), threads);
}

}  // namespace dnnbench
