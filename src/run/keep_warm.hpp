#pragma once
// Warm once, not once a row: after a group of rows one of which the power cap held (sustained),
// the device's heater (DeviceHeater) keeps it under load while the host works before the next
// group's measurements (graph loads, plans, references, checked runs, writing results), so that
// the next capped row finds the device at the cap instead of climbing back from idle. Without
// it a capped row waited 1.00 s for the cap even right after another capped row, 65 s of a
// 183 s ResNet-50 run (bench/RESULTS.md, "Rows a minute at the cap"). Each row still verifies the
// state from its own samples (the steady-state warm-up), so a row below the cap that follows a
// heated gap waits for its clock as before. Stopped before any row measures, of any provider.
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
