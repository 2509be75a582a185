#pragma once
// The sensors of a device provider's GPU, opened once per process and device (NVML's init costs
// milliseconds; rows are many).
#include "measure/clock_sampler.hpp"
#include "providers/provider.hpp"

namespace dnnbench {

// nullptr for host providers, or when NVML or the device cannot be opened (then rows carry no
// clocks). The source lives until the process ends.
ClockSource* gpu_clock_source(Provider& provider);

}  // namespace dnnbench
