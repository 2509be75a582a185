#pragma once
// What the machine did while a run measured (metadata.host_conditions): load averages at start
// and end, the CPU time other processes took over the run (/proc/stat's busy time minus this
// process's and its children's), the cpufreq governor, and whether the run's threads had a free
// core each. A run that other work disturbed says so, and `compare` names the difference
// (report/run_conditions.hpp), since a CPU time under a busy neighbour core is not the same number.
#include <chrono>
#include <cstdint>
#include <optional>

#include <nlohmann/json.hpp>

namespace dnnbench {

// Other processes using this many cores on average, or a tenth of the cores on a large machine,
// disturb a CPU measurement: on a 2-core box one busy neighbour took every oneDNN row 1.3-2600x
// slower (issue 32), while an idle box's daemons use under 0.05 cores.
inline constexpr double kDisturbingOtherCores = 0.25;

class HostLoadProbe {
 public:
  HostLoadProbe();  // reads the start
  // The conditions from the start to now; `threads`: the threads the run's libraries use.
  nlohmann::json finish(std::int64_t threads) const;

 private:
  std::optional<double> busy_s_;  // machine-wide busy CPU seconds at the start
  double own_s_ = 0;              // this process's and its children's CPU seconds at the start
  std::chrono::steady_clock::time_point start_;
  nlohmann::json load_start_;
};

// The threads a CPU library of this run uses: OMP_NUM_THREADS when set, else every logical core.
std::int64_t cpu_threads_used();

}  // namespace dnnbench
