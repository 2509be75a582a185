#pragma once
// GPU clocks, temperature and power sampled during a row's measurement. Under sustained load
// the H200 sits at its ~700 W power cap with the SM clock 13-27% under boost, and a cool card
// times the same kernel faster (shared/reference/ANCHORS.md): each row records what the card
// did while it was timed, and is flagged when the SM clock moved.
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "measure/clock_summary.hpp"

namespace dnnbench {

// The device's sensors. NVML, loaded at run time (dlopen("libnvidia-ml.so.1")): no link
// dependency, and on a machine without it (no GPU, a container without the driver's
// libraries) open() returns nullptr and nothing is sampled.
class ClockSource {
 public:
  virtual ~ClockSource() = default;
  virtual ClockReading read() = 0;
  virtual std::string description() const = 0;
};

// NVML's device by PCI bus id ("0000:3B:00.0", from the CUDA runtime, so it names the same GPU
// whatever CUDA_VISIBLE_DEVICES says), else by index 0. nullptr when NVML or the device is absent.
std::unique_ptr<ClockSource> open_nvml_clock_source(const std::string& pci_bus_id);

// A background thread reading `source` every `period_ms` between start() and stop().
class ClockSampler {
 public:
  explicit ClockSampler(ClockSource& source, double period_ms = 10);
  ClockSampler(const ClockSampler&) = delete;
  ClockSampler& operator=(const ClockSampler&) = delete;
  ~ClockSampler();
  void start();
  // Stops sampling and returns the readings since start() (one is taken at each end, so even
  // a short measurement has two).
  std::vector<ClockReading> stop();
  // The latest reading (every field NaN before the first), for the steady-state warm-up.
  ClockReading latest() const;
  // Whether the latest reading says the power cap or heat held the clocks down (false when the
  // driver does not say), for pacing (session/plan_session.cpp).
  bool latest_capped() const;

 private:
  void loop();
  ClockSource& source_;
  double period_ms_;
  std::atomic<bool> running_{false};
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;  // stop() wakes the loop at once, not at its next period
  std::vector<ClockReading> readings_;
};

}  // namespace dnnbench
