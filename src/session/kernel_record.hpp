#pragma once
// The kernels one plan's execution runs, as the device's activity records see them (CUPTI).
#include <cstdint>

#include "session/measurement.hpp"
#include "session/plan_instance.hpp"

namespace dnnbench {

// A short batch of back-to-back executions (a quarter of `batch`, 3 to 100) with kernel activity
// recorded: fills m.kernels and m.kernel_sum. A no-op where the stream has no recorder.
void record_kernels(PlanInstance& instance, std::int64_t batch, Measurement& m);

}  // namespace dnnbench
