#pragma once
// What a GPU's clocks, temperature and power did during one row's measurement (read by
// measure/clock_sampler.hpp; recorded in the row's timing).
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

namespace dnnbench {

// One reading; a field the device does not report stays NaN.
struct ClockReading {
  double sm_mhz, mem_mhz, temperature_c, power_w;
  // 1 when the driver reports the clocks held down by the power cap or a thermal slowdown at the
  // reading, 0 when not, NaN when it cannot say (NVML's clock event reasons).
  double capped = std::numeric_limits<double>::quiet_NaN();
  // 1 when NVML's instant power reading is at or above the enforced power limit, 0 when
  // below, NaN when it cannot say. It is read at the driver's ~100 ms tick before the clock is
  // cut: a row's warm-up may end before `capped` says so.
  double at_power_limit = std::numeric_limits<double>::quiet_NaN();
  // The power limit the driver enforces, in W (NaN when it cannot say): where a capped row's
  // averaged power settles.
  double power_limit_w = std::numeric_limits<double>::quiet_NaN();
};

struct MinMaxMean {
  double min = 0, max = 0, mean = 0;
};

// Summary of one row's readings.
struct ClockSummary {
  std::int64_t readings = 0;
  std::optional<MinMaxMean> sm_mhz, mem_mhz, temperature_c, power_w;
  // The SM clock's (max - min) / max exceeded the tolerance: the row's samples were taken at
  // different clocks and its spread is partly the clock's.
  bool clock_unstable = false;
  // Fraction of the readings taken while the power cap or a thermal slowdown held the clocks
  // down; nullopt when the driver does not say.
  std::optional<double> capped_fraction;
};

// Summarizes readings; `sm_tolerance` is the relative SM clock movement still called stable.
ClockSummary summarize_clocks(const std::vector<ClockReading>& readings, double sm_tolerance);

}  // namespace dnnbench
