#pragma once
// The sensors of a device provider's GPU, opened once per process and device (NVML's init costs
// milliseconds; rows are many).
#include "measure/clock_sampler.hpp"
#include "providers/provider.hpp"

namespace dnnbench {

// nullptr for host providers, or when NVML or the device cannot be opened (then rows carry no
// clocks). The source lives until the process ends.
ClockSource* gpu_clock_source(Provider& provider);

// While one lives, gpu_clock_source answers `source` for every provider, host ones included: a
// test's sensors for rows that run through the row runner (a capped device without a GPU).
class ClockSourceOverride {
 public:
  explicit ClockSourceOverride(ClockSource* source);
  ~ClockSourceOverride();
  ClockSourceOverride(const ClockSourceOverride&) = delete;
  ClockSourceOverride& operator=(const ClockSourceOverride&) = delete;

 private:
  ClockSource* previous_;
};

}  // namespace dnnbench
