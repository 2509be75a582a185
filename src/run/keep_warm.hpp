#pragma once
// Warm once, not once a row (--keep-warm): after a group of rows one of which the power cap held
// (sustained), the device's heater (DeviceHeater) keeps it under load while the host works
// before the next group's measurements (graph loads, plans, references, checked runs, writing
// results), so that the next capped row finds the device near the cap instead of climbing back
// from idle. Each row still verifies its state from its own samples (the steady-state warm-up).
// Stopped before any row measures, of any provider. Opt-in: on the H100 a capped row after heat
// warmed up 0.82 s against 1.30 s, but rows that ended below the cap after idle were held at it
// after heat and measured a whole power cycle, so the suite got slower (docs/methodology.md,
// "Power regimes"; bench/results/keep-warm.json).
#include <memory>
#include <optional>

#include "measure/clock_sampler.hpp"
#include "providers/provider.hpp"
#include "report/results.hpp"

namespace dnnbench {

// The heater stops by itself after this long: longer host work (a CPU reference of a large
// graph, a worker waiting for its next graph) lets the device cool as before.
inline constexpr double kKeepWarmMaxMs = 5000;

class KeepWarm {
 public:
  // `heater` nullptr: a no-op. `clocks` (may be nullptr) reads the sensors as the heater stops.
  KeepWarm(std::unique_ptr<DeviceHeater> heater, ClockSource* clocks);
  KeepWarm(const KeepWarm&) = delete;
  KeepWarm& operator=(const KeepWarm&) = delete;
  ~KeepWarm();

  bool available() const { return heater_ != nullptr; }
  // Starts heating (a no-op while it heats).
  void heat();
  // Stops heating, once the device has finished the heater's work; what it did since heat(), or
  // nullopt when it was not heating.
  std::optional<TimingInfo::KeptWarm> stop();

 private:
  std::unique_ptr<DeviceHeater> heater_;
  ClockSource* clocks_;
  std::optional<double> started_at_ms_;  // on the process's steady clock
};

}  // namespace dnnbench
