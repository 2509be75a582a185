#pragma once
// A slowdown planted on purpose, so that `compare` can be shown to find one on a GPU:
// DNNBENCH_PLANT_DEVICE_SLOWDOWN=FACTOR (e.g. 1.05) makes every execution of a device-timed plan
// wait on the device, after the library's own work, for (FACTOR - 1) times the plan's own
// execution time, measured when the plan is bound (as the default sampler times it: one captured
// replay) and again in a rotation's cache state once its copies exist. The wait is a kernel
// (`dnnbench_planted_delay` in the row's kernels[]) inside every timed batch and replay, and the
// run's metadata records the variable. Test-only: the CPU's counterpart is the crashtest
// provider's DNNBENCH_CRASHTEST_SLOWDOWN.
#include <optional>

namespace dnnbench {

inline constexpr const char* kPlantedSlowdownVariable = "DNNBENCH_PLANT_DEVICE_SLOWDOWN";

// The factor in the environment: nullopt unless it is a number in (1, 4].
std::optional<double> planted_device_slowdown();
std::optional<double> parse_planted_slowdown(const char* text);

}  // namespace dnnbench
