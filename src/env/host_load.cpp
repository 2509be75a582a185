#include "env/host_load.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "env/metadata.hpp"

namespace dnnbench {
namespace {

// Busy CPU seconds of the whole machine since boot: user, nice, system, irq, softirq and steal
// jiffies of /proc/stat's "cpu" line (idle and iowait are not busy); nullopt where unreadable.
std::optional<double> machine_busy_s() {
  std::ifstream file("/proc/stat");
  std::string label;
  double user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
  if (!(file >> label >> user >> nice >> system >> idle >> iowait >> irq >> softirq) || label != "cpu")
    return std::nullopt;
  file >> steal;  // absent on old kernels
  const long hz = sysconf(_SC_CLK_TCK);
  return (user + nice + system + irq + softirq + steal) / static_cast<double>(hz > 0 ? hz : 100);
}

double seconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
}

// CPU seconds of this process and of its children that ended (isolated workers, compile-ahead
// children, profilers): the run's own work, whoever did it.
double own_cpu_s() {
  double total = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage usage{};
    if (getrusage(who, &usage) == 0) total += seconds(usage.ru_utime) + seconds(usage.ru_stime);
  }
  return total;
}

nlohmann::json governor() {
  std::ifstream file("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  std::string name;
  if (!(file >> name)) return nullptr;  // no cpufreq (many VMs and containers)
  return name;
}

nlohmann::json loads_json() {
  const auto loads = load_averages();
  return loads.empty() ? nlohmann::json(nullptr) : nlohmann::json(loads);
}

}  // namespace

std::int64_t cpu_threads_used() {
  if (const char* text = std::getenv("OMP_NUM_THREADS")) {
    std::int64_t n = 0;
    const std::string_view view(text);
    const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), n);
    if (ec == std::errc() && n > 0) return n;
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

HostLoadProbe::HostLoadProbe()
    : busy_s_(machine_busy_s()),
      own_s_(own_cpu_s()),
      start_(std::chrono::steady_clock::now()),
      load_start_(loads_json()) {}

nlohmann::json HostLoadProbe::finish(std::int64_t threads) const {
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const auto cores = static_cast<double>(std::max(1u, std::thread::hardware_concurrency()));
  nlohmann::json out = {{"load_average_start", load_start_},
                        {"load_average_end", loads_json()},
                        {"wall_s", wall_s},
                        {"logical_cores", cores},
                        {"threads", threads},
                        {"cpufreq_governor", governor()},
                        {"other_cpu_s", nullptr},
                        {"other_cores", nullptr},
                        {"free_cores", nullptr},
                        {"oversubscribed", nullptr},
                        {"disturbed", nullptr},
                        {"disturbed_because", nullptr}};
  const auto busy_end = machine_busy_s();
  if (!busy_s_ || !busy_end || wall_s <= 0) return out;
  // Jiffies are 10 ms ticks: a short run's own time can exceed the machine's by a tick.
  const double other_s = std::max(0.0, (*busy_end - *busy_s_) - (own_cpu_s() - own_s_));
  const double other_cores = other_s / wall_s;
  const double free_cores = std::max(0.0, cores - other_cores);
  // What other processes may use before a run counts as disturbed: a quarter core, or a tenth of
  // a larger machine's (on the H200's 16-core host, daemons and the CUDA driver's threads took
  // 0.26-0.50 cores during quiet GPU runs).
  const double slack = std::max(kDisturbingOtherCores, 0.1 * cores);
  // A thread more than free cores (less that slack for daemons) waits for a core.
  const bool oversubscribed = static_cast<double>(threads) > free_cores + slack;
  const bool busy = other_cores >= slack;
  out["other_cpu_s"] = other_s;
  out["other_cores"] = other_cores;
  out["free_cores"] = free_cores;
  out["oversubscribed"] = oversubscribed;
  out["disturbed"] = busy || oversubscribed;
  if (busy || oversubscribed) {
    std::ostringstream why;
    why.precision(2);
    why << std::fixed << "other processes used " << other_cores << " of " << cores << " cores on average";
    if (oversubscribed) why << "; " << threads << " threads on " << free_cores << " free cores";
    out["disturbed_because"] = why.str();
  }
  return out;
}

}  // namespace dnnbench
