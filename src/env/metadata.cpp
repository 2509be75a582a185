#include "env/metadata.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "env/calibration.hpp"
#include "env/peak_calibration.hpp"
#include "providers/registry.hpp"
#include "session/planted_slowdown.hpp"
#include "sys/host_name.hpp"
#include "version/git_revision.hpp"

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

// The CPU's vector and matrix extensions that set its peak FLOP/s (report/peaks.hpp), as
// /proc/cpuinfo names them.
nlohmann::json read_cpu_flags() {
  static constexpr const char* kPeakFlags[] = {"sse4_1",   "avx",         "avx2",        "fma",
                                               "avx512f",  "avx512_bf16", "avx512_fp16", "avx512_vnni",
                                               "amx_tile", "amx_bf16",    "amx_int8"};
  std::ifstream file("/proc/cpuinfo");
  std::string line;
  nlohmann::json found = nlohmann::json::array();
  while (std::getline(file, line))
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      std::vector<std::string> flags{std::istream_iterator<std::string>(words), {}};
      for (const char* wanted : kPeakFlags)
        if (std::find(flags.begin(), flags.end(), wanted) != flags.end()) found.push_back(wanted);
      break;
    }
  return found;
}

// The CPU's maximum clock (cpufreq), else the clock /proc/cpuinfo shows now; null when neither
// is readable. MHz.
nlohmann::json read_cpu_mhz() {
  std::ifstream max_freq("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (double khz = 0; max_freq >> khz && khz > 0) return khz / 1000.0;
  std::ifstream file("/proc/cpuinfo");
  std::string line;
  while (std::getline(file, line))
    if (line.rfind("cpu MHz", 0) == 0) return std::stod(line.substr(line.find(':') + 1));
  return nullptr;
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
                                     "NVIDIA_", "OMP_",  "KMP_",   "GOMP_",  "MKL_"};
// Always reported, null when unset, so that "unset" is visible rather than absent.
constexpr const char* kAlwaysReported[] = {"OMP_NUM_THREADS",      "OMP_PROC_BIND",
                                           "OMP_PLACES",           "ONEDNN_MAX_CPU_ISA",
                                           "DNNL_MAX_CPU_ISA",     "ONEDNN_PRIMITIVE_CACHE_CAPACITY",
                                           "ONEDNN_VERBOSE",       "ONEDNN_DEFAULT_FPMATH_MODE",
                                           "CUDA_VISIBLE_DEVICES", "CUDNN_LOGLEVEL_DBG",
                                           "CUBLASLT_LOG_LEVEL",   "DNNBENCH_REFERENCE_THREADS",
                                           "NVIDIA_TF32_OVERRIDE", "DNNBENCH_PLAN_CACHE"};

std::string trim(std::string text) {
  const auto first = text.find_first_not_of(" \t\n");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t\n") - first + 1);
}

nlohmann::json optional_json(const auto& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

nlohmann::json engine_matrix_json(const std::vector<EngineChoice>& matrix) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& c : matrix)
    list.push_back({{"provider", c.provider}, {"id", c.id}, {"label", optional_json(c.label)}});
  return list;
}

}  // namespace

nlohmann::json numa_nodes() {
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<std::pair<int, std::string>> nodes;
  for (const auto& entry : fs::directory_iterator("/sys/devices/system/node", ec)) {
    const auto name = entry.path().filename().string();
    if (name.rfind("node", 0) != 0 || name.size() == 4 ||
        name.find_first_not_of("0123456789", 4) != std::string::npos)
      continue;
    std::ifstream file(entry.path() / "cpulist");
    std::string cpus;
    std::getline(file, cpus);
    nodes.emplace_back(std::stoi(name.substr(4)), trim(cpus));
  }
  if (nodes.empty()) return nullptr;
  std::sort(nodes.begin(), nodes.end());
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [id, cpus] : nodes) list.push_back({{"node", id}, {"cpus", cpus}});
  return list;
}

nlohmann::json os_pretty_name() {
  std::ifstream file("/etc/os-release");
  std::string line;
  while (std::getline(file, line))
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      auto value = trim(line.substr(12));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
          value.back() == value.front())
        value = value.substr(1, value.size() - 2);
      return value;
    }
  return nullptr;
}

nlohmann::json describe_providers(const RunOptions& options) {
  nlohmann::json providers = nlohmann::json::object();
  std::vector<std::string> names = options.providers;
  if (names.empty()) names = default_provider_names();
  for (const auto& name : names) {
    try {
      if (auto p = make_provider(name, options.provider_settings)) {
        nlohmann::json entry = {{"version", p->version()}};
        nlohmann::json device = nlohmann::json::object();
        for (const auto& [key, value] : p->device_properties()) device[key] = value;
        if (!device.empty()) entry["device"] = device;
        providers[name] = entry;
      }
    } catch (const std::exception& e) {
      providers[name] = {{"version", nullptr}, {"error", e.what()}};
    }
  }
  return providers;
}

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

std::string device_name_of(Provider& provider) {
  for (const auto& [key, value] : provider.device_properties())
    if (key == "device") return value;
  return read_cpu_model();
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
  for (const char* name : {"DNNBENCH_REFERENCE_THREADS", "DNNBENCH_PLAN_CACHE", kPlantedSlowdownVariable})
    if (const char* v = std::getenv(name)) env[name] = v;
  return env;
}

nlohmann::json collect_metadata(const std::vector<std::string>& argv, const RunOptions& options) {
  nlohmann::json meta;
  meta["timestamp_utc"] = utc_timestamp();
  meta["tool"] = {{"name", "dnnbench"}, {"version", DNNBENCH_VERSION}, {"git_revision", git_revision()}};
  meta["command_line"] = argv;
  utsname uts{};
  uname(&uts);
  meta["host"] = {{"hostname", this_host_name()},
                  {"os", std::string(uts.sysname)},
                  {"os_pretty_name", os_pretty_name()},
                  {"kernel", std::string(uts.release)},
                  {"machine", std::string(uts.machine)},
                  {"cpu_model", read_cpu_model()},
                  {"cpu_flags", read_cpu_flags()},
                  {"cpu_mhz", read_cpu_mhz()},
                  {"logical_cores", std::thread::hardware_concurrency()},
                  {"memory_bytes", read_memory_bytes()},
                  {"numa_nodes", numa_nodes()},
                  {"load_average_at_end", load_averages()}};
  const auto providers = describe_providers(options);
  meta["providers"] = providers;
  // The device of the first provider that has one (GPU providers); null on CPU-only runs.
  meta["gpu"] = nullptr;
  for (const auto& [name, entry] : providers.items())
    if (entry.contains("device")) {
      meta["gpu"] = entry["device"];
      meta["gpu"]["provider"] = name;
      break;
    }
  meta["seed"] = options.seed;
  meta["noise_floor"] = load_noise_floor(options.calibration_file.value_or(default_calibration_path()));
  meta["measured_peaks"] = load_measured_peaks(options.calibration_file.value_or(default_calibration_path()));
  meta["options"] = {
      {"warmup", options.warmup},
      {"iters", options.iters ? nlohmann::json(*options.iters) : nlohmann::json(nullptr)},
      {"stopping_rule", options.iters ? "fixed" : "adaptive-median-ci"},
      {"target_ci", options.adaptive.target_ci_rel},
      {"min_iters", options.adaptive.min_iters},
      {"min_time_ms", options.adaptive.min_time_ms},
      {"max_iters", options.adaptive.max_iters},
      {"max_time_ms", options.adaptive.max_time_ms},
      {"cache_mode", cache_mode_name(options.measure.cache_mode)},
      {"latency", options.measure.latency},
      {"latency_idle_ms", options.measure.latency_idle_ms},
      {"batch", options.measure.batch ? nlohmann::json(*options.measure.batch) : nlohmann::json(nullptr)},
      {"per_execution_events", options.measure.per_execution_events},
      {"graph_replay", options.measure.graph_replay},
      {"regime", regime_name(options.measure.regime)},
      {"other_regime_samples", options.measure.other_regime_samples},
      {"fill", fill_kind_name(options.fill)},
      {"fp32_math", fp32_math_name(options.fp32_math)},
      {"warmup_max_ms", options.measure.steady.max_ms},
      {"capped_min_ms", options.measure.capped_min_ms},
      {"uncapped_batch_ms", options.measure.uncapped_batch_ms},
      {"group_rows", options.group_rows},
      {"clock_tolerance", options.measure.clock_tolerance},
      {"rtol", options.rtol ? nlohmann::json(*options.rtol) : nlohmann::json(nullptr)},
      {"atol", options.atol ? nlohmann::json(*options.atol) : nlohmann::json(nullptr)},
      {"providers", options.providers},
      {"engines", options.engines},
      {"skip_engines", options.skip_engines},
      {"max_engines", options.max_engines},
      {"engine_matrix", engine_matrix_json(options.engine_matrix)},
      {"ops", options.ops},
      {"graphs", options.graph_arguments},
      {"recipe", optional_json(options.recipe_path)},
      {"output", optional_json(options.output_path)},
      {"dump_tensors", optional_json(options.dump_tensors_dir)},
      {"save_samples", options.save_samples},
      {"repeat", options.repeat},
      {"heur_mode", optional_json(options.provider_settings.cudnn_heur_mode)},
      {"gpu_reference", options.gpu_reference},
      {"oracle",
       {{"enabled", options.oracle.enabled},
        {"aa_self_check", options.oracle.aa_self_check},
        {"max_plans", options.oracle.max_plans},
        {"max_seconds", options.oracle.max_seconds},
        {"min_effect", options.oracle.min_effect}}},
      {"plans_from",
       options.plans_from ? nlohmann::json(options.plans_from->path()) : nlohmann::json(nullptr)},
      {"max_graph_bytes", options.limits.max_graph_bytes},
      {"max_memory", optional_json(options.max_memory)},
      {"max_archive_entry_bytes", options.archive.max_entry_bytes},
      {"max_archive_bytes", options.archive.max_total_bytes},
      {"dry_run", options.dry_run}};
  meta["environment"] = selection_environment();
  return meta;
}

}  // namespace dnnbench
