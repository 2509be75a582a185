#include "report/run_conditions.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>

namespace dnnbench {
namespace {

using nlohmann::json;

std::string as_text(const json& value) {
  if (value.is_null()) return "-";
  if (value.is_string()) return value.get<std::string>();
  return value.dump();
}

const json& path_or_null(const json& root, std::initializer_list<const char*> keys) {
  static const json null_value;
  const json* at = &root;
  for (const char* key : keys) {
    if (!at->is_object() || !at->contains(key)) return null_value;
    at = &at->at(key);
  }
  return *at;
}

// Options that change what a time means or how precise it is; the rest (output paths, journal,
// progress) do not bear on a comparison.
constexpr const char* kComparedOptions[] = {"warmup",        "iters",
                                            "stopping_rule", "target_ci",
                                            "min_iters",     "min_time_ms",
                                            "max_iters",     "max_time_ms",
                                            "latency",       "latency_idle_ms",
                                            "batch",         "per_execution_events",
                                            "warmup_max_ms", "clock_tolerance",
                                            "rtol",          "atol",
                                            "capped_min_ms", "uncapped_batch_ms",
                                            "heur_mode",     "gpu_reference",
                                            "engines",       "skip_engines",
                                            "max_engines",   "isolate",
                                            "repeat",        "group_rows"};

// The timing methods of a run's timed rows, as families: batch sizes dropped, and batched and
// single device-event timing counted as one ("device-events"), since the row runner picks the
// batch from the kernel's duration and a kernel near the threshold may flip between runs.
std::string method_family(std::string m) {
  while (true) {  // drop every "(...)"
    const auto open = m.find('(');
    if (open == std::string::npos) break;
    const auto close = m.find(')', open);
    m.erase(open, close == std::string::npos ? std::string::npos : close - open + 1);
  }
  for (const char* batched : {"device-events-batched", "device-events-single"})
    if (m.rfind(batched, 0) == 0) m.replace(0, std::string_view(batched).size(), "device-events");
  return m;
}

std::set<std::string> timing_methods(const SuiteResult& suite, bool meaning) {
  std::set<std::string> methods;
  for (const auto& g : suite.graphs)
    for (const auto& row : g.results)
      if (row.timing) methods.insert(meaning ? row.timing->meaning : method_family(row.timing->method));
  return methods;
}

// Mean SM clock over the rows that read clocks (NVML), MHz; NaN without readings.
double mean_sm_clock(const SuiteResult& suite) {
  double sum = 0;
  int n = 0;
  for (const auto& g : suite.graphs)
    for (const auto& row : g.results)
      if (row.timing && row.timing->clocks && row.timing->clocks->sm_mhz) {
        sum += row.timing->clocks->sm_mhz->mean;
        ++n;
      }
  return n ? sum / n : std::nan("");
}

// How other work loaded the machine during a run, as compare prints it: "quiet (0.02 other
// cores)" or "DISTURBED (other processes used 0.97 of 2 cores on average)"; "-" when not recorded.
std::string load_text(const json& conditions) {
  if (!conditions.is_object() || !conditions.contains("disturbed") || !conditions["disturbed"].is_boolean())
    return "-";
  if (conditions["disturbed"].get<bool>())
    return "DISTURBED (" + as_text(path_or_null(conditions, {"disturbed_because"})) + ")";
  const auto& other = path_or_null(conditions, {"other_cores"});
  return other.is_number() ? fmt::format("quiet ({:.2f} other cores)", other.get<double>()) : "quiet";
}

bool disturbed(const json& conditions) {
  return path_or_null(conditions, {"disturbed"}) == json(true);
}

// The machine's conditions of two runs: a run that other work disturbed is named whatever the
// other run did (two busy runs are not alike: the neighbours differ), as are a changed governor,
// oversubscription and thread count. Runs that recorded no conditions (older files) add nothing.
void machine_differences(const json& ha, const json& hb, std::vector<ConditionDifference>& out) {
  // Equal records are one run compared with itself (two runs never share a wall time).
  if (!ha.is_object() || !hb.is_object() || ha == hb) return;
  if (disturbed(ha) || disturbed(hb))
    out.push_back({"machine load during the run", load_text(ha), load_text(hb), false, true});
  for (const auto& [name, key] : {std::pair{"CPU frequency governor", "cpufreq_governor"},
                                  std::pair{"oversubscribed (threads > free cores)", "oversubscribed"},
                                  std::pair{"CPU threads", "threads"}}) {
    const auto& va = path_or_null(ha, {key});
    const auto& vb = path_or_null(hb, {key});
    if (va != vb) out.push_back({name, as_text(va), as_text(vb), false, true});
  }
}

}  // namespace

std::vector<std::string> providers_with_other_versions(const SuiteResult& a, const SuiteResult& b) {
  std::vector<std::string> names;
  const auto& pa = path_or_null(a.metadata, {"providers"});
  const auto& pb = path_or_null(b.metadata, {"providers"});
  if (!pa.is_object() || !pb.is_object()) return names;
  for (const auto& [name, entry] : pa.items())
    if (pb.contains(name) &&
        as_text(path_or_null(entry, {"version"})) != as_text(path_or_null(pb[name], {"version"})))
      names.push_back(name);
  return names;
}

std::vector<ConditionDifference> condition_differences(const SuiteResult& a, const SuiteResult& b) {
  std::vector<ConditionDifference> out;
  auto add = [&out](std::string condition, const json& va, const json& vb, bool invalidating) {
    if (va != vb) out.push_back({std::move(condition), as_text(va), as_text(vb), invalidating});
  };
  const auto& ma = a.metadata;
  const auto& mb = b.metadata;
  add("device (GPU)", path_or_null(ma, {"gpu", "device"}), path_or_null(mb, {"gpu", "device"}), true);
  add("device (CPU)", path_or_null(ma, {"host", "cpu_model"}), path_or_null(mb, {"host", "cpu_model"}), true);
  add("host", path_or_null(ma, {"host", "hostname"}), path_or_null(mb, {"host", "hostname"}), false);
  add("logical cores", path_or_null(ma, {"host", "logical_cores"}),
      path_or_null(mb, {"host", "logical_cores"}), false);
  add("max SM clock MHz", path_or_null(ma, {"gpu", "max_sm_clock_mhz"}),
      path_or_null(mb, {"gpu", "max_sm_clock_mhz"}), false);
  add("CUDA driver", path_or_null(ma, {"gpu", "cuda_driver_version"}),
      path_or_null(mb, {"gpu", "cuda_driver_version"}), false);
  // Measured clocks: a 3% move in the mean SM clock is worth a reader's attention (the H200 falls
  // 13-27% below boost at its power cap, shared/reference/ANCHORS.md).
  const double ca = mean_sm_clock(a), cb = mean_sm_clock(b);
  if (std::isfinite(ca) && std::isfinite(cb) && std::abs(cb / ca - 1) > 0.03)
    out.push_back(
        {"mean SM clock while timing (MHz)", fmt::format("{:.0f}", ca), fmt::format("{:.0f}", cb), false});
  std::set<std::string> providers;
  for (const auto* m : {&ma, &mb})
    if (const auto& p = path_or_null(*m, {"providers"}); p.is_object())
      for (const auto& [name, entry] : p.items()) providers.insert(name);
  for (const auto& name : providers)
    add("library " + name, path_or_null(ma, {"providers", name.c_str(), "version"}),
        path_or_null(mb, {"providers", name.c_str(), "version"}), false);
  add("tool revision", path_or_null(ma, {"tool", "git_revision"}), path_or_null(mb, {"tool", "git_revision"}),
      false);
  add("cache mode", path_or_null(ma, {"options", "cache_mode"}), path_or_null(mb, {"options", "cache_mode"}),
      true);
  add("seed", path_or_null(ma, {"seed"}), path_or_null(mb, {"seed"}), false);
  for (const char* key : kComparedOptions)
    add(fmt::format("option {}", key), path_or_null(ma, {"options", key}), path_or_null(mb, {"options", key}),
        false);
  add("option oracle", path_or_null(ma, {"options", "oracle", "enabled"}),
      path_or_null(mb, {"options", "oracle", "enabled"}), false);
  const auto join = [](const std::set<std::string>& s) { return fmt::format("{}", fmt::join(s, ", ")); };
  if (const auto ta = timing_methods(a, false), tb = timing_methods(b, false); ta != tb)
    out.push_back({"timing method", join(ta), join(tb), true});
  if (const auto ta = timing_methods(a, true), tb = timing_methods(b, true); ta != tb)
    out.push_back({"timing meaning", join(ta), join(tb), true});
  add("environment", path_or_null(ma, {"environment"}), path_or_null(mb, {"environment"}), false);
  machine_differences(path_or_null(ma, {"host_conditions"}), path_or_null(mb, {"host_conditions"}), out);
  return out;
}

}  // namespace dnnbench
