// Samplers that change the conditions around another one's samples: a cold cache, an idle gap
// before each (latency), idle gaps after each (the paced regime).
#include <fmt/format.h>

#include <chrono>
#include <optional>
#include <thread>

#include "measure/host_timer.hpp"
#include "session/sampler.hpp"

namespace dnnbench {
namespace {

void idle_for(double ms) {
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
}

class ColdSampler final : public Sampler {
 public:
  ColdSampler(std::unique_ptr<Sampler> inner, std::unique_ptr<CacheFlusher> flusher, Stream& stream)
      : inner_(std::move(inner)), flusher_(std::move(flusher)), stream_(stream) {}
  Sample take(std::int64_t executions) override {
    // Outside the timed region: a device flush is enqueued before the start event, so the event
    // pair holds only the execution; the host waits for it before its own clock starts.
    flush();
    return inner_->take(executions);
  }
  double preparation_ms() override {
    if (!flush_ms_) flush();
    return *flush_ms_ + inner_->preparation_ms();
  }
  std::string method(std::int64_t batch) const override { return inner_->method(batch) + "+cold-flush"; }
  bool device_timed() const override { return inner_->device_timed(); }
  // A batch's later executions would find warm caches.
  bool single_execution() const override { return true; }
  void rebound() override { inner_->rebound(); }
  std::string cache_flush() const override { return flusher_->description(); }
  CacheMode cache_mode() const override { return CacheMode::cold; }

 private:
  void flush() {
    HostTimer timer;
    flusher_->flush();
    stream_.synchronize();
    flush_ms_ = timer.elapsed_ms();
  }

  std::unique_ptr<Sampler> inner_;
  std::unique_ptr<CacheFlusher> flusher_;
  Stream& stream_;
  std::optional<double> flush_ms_;  // the last flush's wall time
};

class IdleGapSampler final : public Sampler {
 public:
  IdleGapSampler(std::unique_ptr<Sampler> inner, Stream& stream, double idle_ms)
      : inner_(std::move(inner)), stream_(stream), idle_ms_(idle_ms) {}
  Sample take(std::int64_t executions) override {
    stream_.synchronize();
    idle_for(idle_ms_);
    return inner_->take(executions);
  }
  std::string method(std::int64_t batch) const override {
    return inner_->method(batch) + fmt::format("+idle-gap({} ms)", idle_ms_);
  }
  bool device_timed() const override { return inner_->device_timed(); }
  // A batch's later executions would find no idle gap.
  bool single_execution() const override { return true; }
  void rebound() override { inner_->rebound(); }
  std::string cache_flush() const override { return inner_->cache_flush(); }
  CacheMode cache_mode() const override { return inner_->cache_mode(); }
  double preparation_ms() override { return idle_ms_ + inner_->preparation_ms(); }

 private:
  std::unique_ptr<Sampler> inner_;
  Stream& stream_;
  double idle_ms_;
};

}  // namespace

std::unique_ptr<Sampler> make_cold_sampler(std::unique_ptr<Sampler> inner,
                                           std::unique_ptr<CacheFlusher> flusher, Stream& stream) {
  return std::make_unique<ColdSampler>(std::move(inner), std::move(flusher), stream);
}

std::unique_ptr<Sampler> make_idle_gap_sampler(std::unique_ptr<Sampler> inner, Stream& stream,
                                               double idle_ms) {
  return std::make_unique<IdleGapSampler>(std::move(inner), stream, idle_ms);
}

Sample PacedSampler::take(std::int64_t executions) {
  HostTimer timer;
  const auto s = inner().take(executions);
  idle_after(timer.elapsed_ms());
  return s;
}

double PacedSampler::idle_after(double sample_ms) {
  if (sample_ms <= 0) return 0;
  const double idle_ms = sample_ms * (1.0 / duty_ - 1.0);
  stream_.synchronize();
  idle_for(idle_ms);
  idle_total_ms_ += idle_ms;
  return idle_ms;
}

}  // namespace dnnbench
