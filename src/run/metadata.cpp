#include "run/metadata.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <thread>

#include "providers/registry.hpp"

extern char** environ;

namespace dnnbench {
namespace {

std::string read_cpu_model() {
  std::ifstream file("/proc/cpuinfo");
  std::string line;
  while (std::getline(file, line))
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  return "unknown";
}

nlohmann::json read_memory_bytes() {
  std::ifstream file("/proc/meminfo");
  std::string key;
  long long kib = 0;
  std::string unit;
  while (file >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024;
  return nullptr;
}

// Prefixes of variables that steer library dispatch, caching or threading.
constexpr const char* kPrefixes[] = {"ONEDNN_", "DNNL_", "CUDNN_", "CUBLAS", "CUDA_",
                                     "OMP_",    "KMP_",  "GOMP_",  "MKL_"};
// Always reported, null when unset, so that "unset" is visible rather than absent.
constexpr const char* kAlwaysReported[] = {"OMP_NUM_THREADS",      "OMP_PROC_BIND",
                                           "OMP_PLACES",           "ONEDNN_MAX_CPU_ISA",
                                           "DNNL_MAX_CPU_ISA",     "ONEDNN_PRIMITIVE_CACHE_CAPACITY",
                                           "ONEDNN_VERBOSE",       "ONEDNN_DEFAULT_FPMATH_MODE",
                                           "CUDA_VISIBLE_DEVICES", "CUDNN_LOGLEVEL_DBG",
                                           "CUBLASLT_LOG_LEVEL",   "DNNBENCH_REFERENCE_THREADS"};

}  // namespace

std::vector<double> load_averages() {
  std::ifstream file("/proc/loadavg");
  std::vector<double> loads(3);
  if (!(file >> loads[0] >> loads[1] >> loads[2])) return {};
  return loads;
}

std::string busy_machine_warning() {
  const auto loads = load_averages();
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  // One runnable task per core on average means a benchmark thread often waits for a core.
  if (loads.empty() || loads[0] < 0.75 * cores) return "";
  char text[256];
  std::snprintf(
      text, sizeof text,
      "the machine is busy (1-minute load average %.1f on %u cores): CPU timings will be noisy, and "
      "multi-threaded libraries stall waiting for descheduled threads",
      loads[0], cores);
  return text;
}

std::string utc_timestamp() {
  const auto now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

nlohmann::json selection_environment() {
  nlohmann::json env = nlohmann::json::object();
  for (const char* name : kAlwaysReported) env[name] = nullptr;
  for (char** entry = environ; entry && *entry; ++entry) {
    const std::string text(*entry);
    const auto eq = text.find('=');
    if (eq == std::string::npos) continue;
    const auto name = text.substr(0, eq);
    for (const char* prefix : kPrefixes)
      if (name.rfind(prefix, 0) == 0) env[name] = text.substr(eq + 1);
  }
  if (const char* v = std::getenv("DNNBENCH_REFERENCE_THREADS")) env["DNNBENCH_REFERENCE_THREADS"] = v;
  return env;
}

nlohmann::json collect_metadata(const std::vector<std::string>& argv, const RunOptions& options) {
  nlohmann::json meta;
  meta["timestamp_utc"] = utc_timestamp();
  meta["tool"] = {
      {"name", "dnnbench"}, {"version", DNNBENCH_VERSION}, {"git_revision", DNNBENCH_GIT_REVISION}};
  meta["command_line"] = argv;
  utsname uts{};
  uname(&uts);
  char hostname[256] = {};
  gethostname(hostname, sizeof hostname - 1);
  meta["host"] = {{"hostname", hostname},
                  {"os", std::string(uts.sysname)},
                  {"kernel", std::string(uts.release)},
                  {"machine", std::string(uts.machine)},
                  {"cpu_model", read_cpu_model()},
                  {"logical_cores", std::thread::hardware_concurrency()},
                  {"memory_bytes", read_memory_bytes()},
                  {"load_average_at_end", load_averages()}};
  nlohmann::json providers = nlohmann::json::object();
  std::vector<std::string> names = options.providers;
  if (names.empty()) names = default_provider_names();
  for (const auto& name : names) {
    try {
      if (auto p = make_provider(name)) providers[name] = {{"version", p->version()}};
    } catch (const std::exception& e) {
      providers[name] = {{"version", nullptr}, {"error", e.what()}};
    }
  }
  meta["providers"] = providers;
  meta["seed"] = options.seed;
  meta["options"] = {{"warmup", options.warmup},
                     {"iters", options.iters ? nlohmann::json(*options.iters) : nlohmann::json(nullptr)},
                     {"stopping_rule", options.iters ? "fixed" : "adaptive-median-ci"},
                     {"target_ci", options.adaptive.target_ci_rel},
                     {"min_iters", options.adaptive.min_iters},
                     {"min_time_ms", options.adaptive.min_time_ms},
                     {"max_iters", options.adaptive.max_iters},
                     {"max_time_ms", options.adaptive.max_time_ms},
                     {"rtol", options.rtol ? nlohmann::json(*options.rtol) : nlohmann::json(nullptr)},
                     {"atol", options.atol ? nlohmann::json(*options.atol) : nlohmann::json(nullptr)},
                     {"providers", options.providers},
                     {"engines", options.engines}};
  meta["environment"] = selection_environment();
  return meta;
}

}  // namespace dnnbench
