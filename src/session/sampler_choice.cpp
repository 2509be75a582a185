// make_sampler: the one place the measure options choose how samples are taken.
#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "session/sampler.hpp"

namespace dnnbench {
namespace {

// The CPU's LLC flush behind the providers' flusher interface, for host providers.
class HostLlcFlusher final : public CacheFlusher {
 public:
  explicit HostLlcFlusher(std::string why = "") : why_(std::move(why)) {}
  void flush() override { flusher_.flush(); }
  std::string description() const override { return why_ + flusher_.description(); }

 private:
  HostCacheFlusher flusher_;
  std::string why_;
};

}  // namespace

std::unique_ptr<Sampler> make_sampler(PlanInstance& instance, const MeasureOptions& options) {
  auto& stream = instance.stream();
  auto timer = stream.make_kernel_timer();
  const bool host_timed = !timer;
  // A host provider's binding reorders into the plan's own layouts, so its executions cannot
  // rotate through buffers without timing the reorders: without a device timer, a rotating row
  // flushes the LLC before each execution instead (as cold).
  // auto: producer where there is a device timer (a layer inside a network finds its weights
  // evicted and its producer's output still cached: the ResNet-50 step's kernel sum read 1.005
  // against 1.048 rotating, bench/results/capture-check-h100-producer.json), hot where there is none.
  // producer rotates too, keeping the inputs a producer has just written in one set.
  const bool rotation_asked =
      options.cache_mode == CacheMode::rotating || options.cache_mode == CacheMode::producer;
  const bool rotating = (rotation_asked || options.cache_mode == CacheMode::automatic) && timer;
  const bool keep_fresh_inputs =
      options.cache_mode == CacheMode::producer || options.cache_mode == CacheMode::automatic;
  const bool cold = options.cache_mode == CacheMode::cold || (rotation_asked && !timer);
  std::unique_ptr<Sampler> sampler;
  if (!timer) {
    sampler = make_host_sampler(instance);
  } else if (options.per_execution_events && !cold && !options.latency) {
    sampler = make_split_event_sampler(instance);
  } else {
    sampler = make_event_sampler(instance, std::move(timer));
    // A cold or isolated sample is one execution: nothing to replay.
    if (options.graph_replay && !cold && !options.latency)
      sampler = make_replay_sampler(instance, stream.make_kernel_timer(), std::move(sampler));
  }
  // The idle gap sits right before the execution; a cold flush before the gap.
  if (options.latency) sampler = make_idle_gap_sampler(std::move(sampler), stream, options.latency_idle_ms);
  if (rotating) sampler = make_rotating_sampler(std::move(sampler), instance, keep_fresh_inputs);
  if (cold) {
    auto flusher = rotation_asked ? nullptr : stream.make_cache_flusher();
    if (!flusher && instance.provider().device() == DeviceKind::host)
      flusher = std::make_unique<HostLlcFlusher>(
          rotation_asked
              ? fmt::format("{} is for device providers; instead: ", cache_mode_name(options.cache_mode))
              : "");
    if (!flusher) throw std::runtime_error("--cache-mode cold: the provider's stream has no cache flush");
    sampler = make_cold_sampler(std::move(sampler), std::move(flusher), stream);
  }
  // Outermost: its readings sit between whole samples, flushes included.
  if (host_timed && instance.provider().runs_at_core_speed()) {
    const int own = instance.provider().host_threads();
    const std::int64_t threads = own > 0 ? own : std::max<std::int64_t>(1, options.host_sync_threads);
    sampler = make_core_ruler_sampler(
        std::move(sampler), [threads] { return read_core_ruler(threads); }, threads);
  }
  return sampler;
}

}  // namespace dnnbench
