#include "report/json_read.hpp"

#include <fmt/format.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace dnnbench {
namespace {

using nlohmann::json;

const json& at(const json& object, const char* key) {
  if (!object.is_object()) throw std::runtime_error(fmt::format("expected an object holding '{}'", key));
  const auto it = object.find(key);
  if (it == object.end()) throw std::runtime_error(fmt::format("missing key '{}'", key));
  return *it;
}

template <class T>
T get(const json& object, const char* key) {
  try {
    return at(object, key).get<T>();
  } catch (const json::exception&) {
    throw std::runtime_error(fmt::format("key '{}' has the wrong type: {}", key, at(object, key).dump()));
  }
}

template <class T>
std::optional<T> get_opt(const json& object, const char* key) {
  if (at(object, key).is_null()) return std::nullopt;
  return get<T>(object, key);
}

// Keys added later (absent from older journals and results) read as null.
template <class T>
std::optional<T> get_if_present(const json& object, const char* key) {
  if (!object.is_object() || !object.contains(key)) return std::nullopt;
  return get_opt<T>(object, key);
}

// The writer turns non-finite numbers into null.
double num(const json& object, const char* key) {
  if (at(object, key).is_null()) return std::numeric_limits<double>::quiet_NaN();
  return get<double>(object, key);
}

std::vector<std::pair<std::string, std::string>> knobs_from_json(const json& knobs) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : knobs.items()) out.emplace_back(name, value.get<std::string>());
  return out;
}

std::vector<std::pair<std::string, std::string>> knob_list_from_json(const json& knobs) {
  std::vector<std::pair<std::string, std::string>> out;
  if (knobs.is_null()) return out;
  if (!knobs.is_array()) throw std::runtime_error("knobs must be an array of [name, value] pairs");
  for (const auto& knob : knobs) {
    if (!knob.is_array() || knob.size() != 2 || !knob[0].is_string() || !knob[1].is_string())
      throw std::runtime_error(
          fmt::format("a knob must be a [name, value] pair of strings, not {}", knob.dump()));
    out.emplace_back(knob[0].get<std::string>(), knob[1].get<std::string>());
  }
  return out;
}

std::optional<Stats> stats_from_json(const json& s) {
  if (s.is_null()) return std::nullopt;
  Stats stats;
  stats.n = get<std::int64_t>(s, "n");
  stats.mean = num(s, "mean_ms");
  stats.median = num(s, "median_ms");
  stats.stddev = num(s, "stddev_ms");
  stats.min = num(s, "min_ms");
  stats.max = num(s, "max_ms");
  stats.p5 = num(s, "p5_ms");
  stats.p95 = num(s, "p95_ms");
  stats.p99 = num(s, "p99_ms");
  const auto& ci = at(s, "median_ci95_ms");
  stats.median_ci_lo = ci.at(0).is_null() ? std::numeric_limits<double>::quiet_NaN() : ci.at(0).get<double>();
  stats.median_ci_hi = ci.at(1).is_null() ? std::numeric_limits<double>::quiet_NaN() : ci.at(1).get<double>();
  return stats;
}

std::optional<MinMaxMean> range_from_json(const json& r) {
  if (r.is_null()) return std::nullopt;
  return MinMaxMean{num(r, "min"), num(r, "max"), num(r, "mean")};
}

std::optional<ClockSummary> clocks_from_json(const json& c, const json& unstable) {
  if (c.is_null()) return std::nullopt;
  ClockSummary out;
  out.readings = get<std::int64_t>(c, "readings");
  out.sm_mhz = range_from_json(at(c, "sm_mhz"));
  out.mem_mhz = range_from_json(at(c, "memory_mhz"));
  out.temperature_c = range_from_json(at(c, "temperature_c"));
  out.power_w = range_from_json(at(c, "power_w"));
  out.clock_unstable = unstable.is_boolean() && unstable.get<bool>();
  out.capped_fraction = get_if_present<double>(c, "capped_fraction");
  return out;
}

// Keys added after schema version 1 was first written: absent in older files, read as null.
const json& at_or_null(const json& object, const char* key) {
  static const json null_value;
  if (!object.is_object()) return null_value;
  const auto it = object.find(key);
  return it == object.end() ? null_value : *it;
}

std::optional<PeakFigures> peak_from_json(const json& p) {
  if (p.is_null()) return std::nullopt;
  PeakFigures peak;
  peak.matrix_flops = get_opt<double>(p, "matrix_flops");
  peak.vector_flops = get_opt<double>(p, "vector_flops");
  peak.dram_bytes_per_s = get_opt<double>(p, "dram_bytes_per_s");
  peak.device = get<std::string>(p, "device");
  peak.source = get<std::string>(p, "source");
  return peak;
}

std::optional<TimingInfo> timing_from_json(const json& t) {
  if (t.is_null()) return std::nullopt;
  TimingInfo timing;
  timing.method = get<std::string>(t, "method");
  timing.batch = get<std::int64_t>(t, "batch");
  timing.meaning = get<std::string>(t, "meaning");
  timing.cache_mode = get<std::string>(t, "cache_mode");
  timing.cache_flush = get_opt<std::string>(t, "cache_flush").value_or("");
  timing.rule = get<std::string>(t, "stopping_rule");
  timing.converged = get<bool>(t, "converged");
  timing.stop_reason = get_if_present<std::string>(t, "stop_reason").value_or("");
  timing.replay_fallback = get_if_present<std::string>(t, "replay_fallback").value_or("");
  timing.warmup = get<std::int64_t>(t, "warmup");
  timing.warmup_ms = num(t, "warmup_ms");
  timing.warmup_steady = get<bool>(t, "warmup_steady");
  timing.elapsed_ms = num(t, "elapsed_ms");
  timing.timed_ms = get_if_present<double>(t, "timed_ms").value_or(0);
  timing.wall_ms = num(t, "wall_ms");
  // Results from before the regimes were named: their default then was paced once capped, and
  // their fill a grid for narrow types; "unrecorded" says neither is known.
  timing.regime = get_if_present<std::string>(t, "regime").value_or("unrecorded");
  timing.fill = get_if_present<std::string>(t, "fill").value_or("unrecorded");
  if (const auto& o = at_or_null(t, "other_regime"); !o.is_null())
    timing.other_regime =
        TimingInfo::OtherRegime{get<std::string>(o, "regime"), get<std::int64_t>(o, "samples"),
                                num(o, "median_ms"), get_opt<double>(o, "sm_mhz")};
  if (const auto& k = at_or_null(t, "kept_warm"); !k.is_null())
    timing.kept_warm =
        TimingInfo::KeptWarm{num(k, "ms"), get_opt<double>(k, "power_w"), get_opt<double>(k, "sm_mhz"),
                             get_if_present<bool>(k, "capped").value_or(false)};
  if (const auto& p = at_or_null(t, "placements"); !p.is_null())
    timing.placements = TimingInfo::Placements{get<std::int64_t>(p, "chunks"),
                                               get<std::vector<double>>(p, "medians_ms"), num(p, "spread")};
  if (const auto& h = at_or_null(t, "host_sync"); !h.is_null())
    timing.host_sync =
        TimingInfo::HostSync{get<std::int64_t>(h, "threads"), num(h, "before_us"), num(h, "after_us")};
  if (const auto& c = at_or_null(t, "core_state"); !c.is_null())
    timing.core_state =
        TimingInfo::CoreState{get<std::int64_t>(c, "threads"), num(c, "ruler_us"), num(c, "best_us"),
                              get<std::int64_t>(c, "windows"), get<std::int64_t>(c, "disturbed_windows")};
  if (const auto& c = at_or_null(t, "cache_fit"); !c.is_null())
    timing.cache_fit =
        TimingInfo::CacheFit{get<std::int64_t>(c, "working_set_bytes"), get<std::int64_t>(c, "cache_bytes"),
                             get_if_present<std::int64_t>(c, "rotation_copies").value_or(1),
                             get_if_present<std::int64_t>(c, "kept_bytes").value_or(0)};
  timing.pacing = get_if_present<std::string>(t, "pacing").value_or("off");
  timing.pacing_idle_ms = get_if_present<double>(t, "pacing_idle_ms").value_or(0);
  timing.clocks = clocks_from_json(at(t, "clocks"), at(t, "clock_unstable"));
  timing.samples_ms = get_opt<std::vector<double>>(t, "samples_ms").value_or(std::vector<double>{});
  return timing;
}

std::optional<Correctness> correctness_from_json(const json& c) {
  if (c.is_null()) return std::nullopt;
  Correctness out;
  out.passed = get<bool>(c, "passed");
  out.max_abs_diff = num(c, "max_abs_diff");
  out.max_rel_diff = num(c, "max_rel_diff");
  out.norm_rel_error = num(c, "norm_rel_error");
  out.rtol = num(c, "rtol");
  out.atol = num(c, "atol");
  out.reference = get<std::string>(c, "reference");
  // Absent in results written before the device comparison existed: those compared on the host.
  if (const auto& where = at_or_null(c, "compared_on"); where.is_string())
    out.compared_on = where.get<std::string>();
  for (const auto& o : at(c, "outputs")) {
    OutputCheck check;
    check.tensor = get<std::string>(o, "tensor");
    check.passed = get<bool>(o, "passed");
    check.max_abs_diff = num(o, "max_abs_diff");
    check.max_rel_diff = num(o, "max_rel_diff");
    check.norm_rel_error = num(o, "norm_rel_error");
    check.mismatches = get<std::int64_t>(o, "mismatches");
    check.nonfinite = get<std::int64_t>(o, "nonfinite");
    check.first_mismatch = get_opt<std::string>(o, "first_mismatch").value_or("");
    check.rtol = num(o, "rtol");
    check.atol = num(o, "atol");
    check.tolerance_basis = get<std::string>(o, "tolerance_basis");
    out.outputs.push_back(std::move(check));
  }
  return out;
}

std::optional<PairedDelta> delta_from_json(const json& d) {
  if (d.is_null()) return std::nullopt;
  PairedDelta delta;
  delta.basis = get<std::string>(d, "basis");
  delta.baseline_median_ms = num(d, "baseline_median_ms");
  delta.oracle_median_ms = num(d, "oracle_median_ms");
  delta.speedup = num(d, "speedup");
  const auto pair_in = [&](const json& object, const char* key, double& lo, double& hi) {
    const auto& ci = at(object, key);
    lo = ci.at(0).is_null() ? std::numeric_limits<double>::quiet_NaN() : ci.at(0).get<double>();
    hi = ci.at(1).is_null() ? std::numeric_limits<double>::quiet_NaN() : ci.at(1).get<double>();
  };
  const auto pair = [&](const char* key, double& lo, double& hi) { pair_in(d, key, lo, hi); };
  pair("ci95", delta.ci_lo, delta.ci_hi);
  delta.significant = get<bool>(d, "significant");
  delta.control_ratio = num(d, "control_ratio");
  pair("control_ci95", delta.control_ci_lo, delta.control_ci_hi);
  delta.noise_floor = num(d, "noise_floor");
  delta.rounds = get<std::int64_t>(d, "rounds");
  delta.converged = get<bool>(d, "converged");
  delta.method = get<std::string>(d, "method");
  if (d.contains("replication") && !d.at("replication").is_null()) {
    const auto& r = d.at("replication");
    PairedDelta::Replication replication;
    replication.speedup = num(r, "speedup");
    pair_in(r, "ci95", replication.ci_lo, replication.ci_hi);
    replication.significant = get<bool>(r, "significant");
    delta.replication = replication;
  }
  return delta;
}

std::optional<OracleResult> oracle_from_json(const json& o) {
  if (o.is_null()) return std::nullopt;
  OracleResult out;
  out.search = get<std::string>(o, "search");
  out.verdict = get<std::string>(o, "verdict");
  out.plan_name = get<std::string>(o, "plan_name");
  out.knobs = knobs_from_json(at(o, "knobs"));
  out.rank_of_heuristic_plan = get_opt<std::int64_t>(o, "rank_of_heuristic_plan");
  out.candidates_total = get<std::int64_t>(o, "candidates_total");
  out.candidates_benchmarked = get<std::int64_t>(o, "candidates_benchmarked");
  out.candidates_failed = get<std::int64_t>(o, "candidates_failed");
  out.budget_exhausted = get<bool>(o, "budget_exhausted");
  out.sweep_time_ms = num(o, "sweep_time_ms");
  out.cpu_build_time_ms = get_opt<double>(o, "cpu_build_time_ms");
  out.gpu_kernel_stats = stats_from_json(at(o, "gpu_kernel_stats"));
  out.host_stats = stats_from_json(at(o, "host_stats"));
  out.warm_baseline_stats = stats_from_json(at(o, "warm_baseline_stats"));
  out.correctness = correctness_from_json(at(o, "correctness"));
  out.delta_withheld = get_opt<std::string>(o, "delta_withheld");
  out.regime = get_if_present<std::string>(o, "regime").value_or("unrecorded");
  if (const auto& c = at_or_null(o, "other_regime"); !c.is_null()) {
    OracleResult::RegimeCheck check;
    check.regime = get<std::string>(c, "regime");
    check.plan_name = get<std::string>(c, "plan_name");
    for (const auto& m : at(c, "medians"))
      check.medians.emplace_back(get<std::string>(m, "plan_name"), num(m, "median_ms"));
    check.winner_changed = get<bool>(c, "winner_changed");
    check.delta = delta_from_json(at(c, "delta"));
    check.note = get_opt<std::string>(c, "note");
    out.other_regime = check;
  }
  for (const auto& c : at(o, "candidates")) {
    const bool finalist = get_if_present<bool>(c, "finalist").value_or(false);
    out.candidates.push_back(
        {get<std::string>(c, "plan_name"), get<bool>(c, "measured"),
         c.contains("knobs") ? knob_list_from_json(c["knobs"]) : decltype(OracleCandidate::knobs){},
         get_opt<double>(c, "median_ms"), get_opt<std::string>(c, "error"),
         get_if_present<double>(c, "screen_median_ms"),
         get_if_present<bool>(c, "screened_out").value_or(false), finalist,
         // Two-rung results: their finalists were measured fully.
         get_if_present<bool>(c, "leader").value_or(finalist)});
  }
  // Results written before the rungs have none of these (nor the time split).
  out.screened_out = get_if_present<std::int64_t>(o, "screened_out").value_or(0);
  out.narrowed_out = get_if_present<std::int64_t>(o, "narrowed_out").value_or(0);
  if (const auto& t = at_or_null(o, "time_split_ms"); !t.is_null())
    out.time_split = {num(t, "build"),  num(t, "screen"),      num(t, "final"),
                      num(t, "paired"), num(t, "replication"), num(t, "other_regime")};
  return out;
}

std::optional<PlansFromResult> plans_from_from_json(const json& p) {
  if (p.is_null()) return std::nullopt;
  PlansFromResult out;
  out.source = get<std::string>(p, "source");
  out.stored_library_version = get<std::string>(p, "stored_library_version");
  out.stored_device = get<std::string>(p, "stored_device");
  out.stored_winner = get<std::string>(p, "stored_winner");
  out.stored_heuristic = get<std::string>(p, "stored_heuristic");
  out.today_heuristic = get<std::string>(p, "today_heuristic");
  out.other_stored_winners = get<std::vector<std::string>>(p, "other_stored_winners");
  out.heuristic_changed = get<bool>(p, "heuristic_changed");
  out.tuned_still_wins = get_opt<bool>(p, "tuned_still_wins");
  out.verdict = get<std::string>(p, "verdict");
  for (const auto& r : at(p, "plans")) {
    RetimedPlan plan;
    plan.role = get<std::string>(r, "role");
    plan.plan_name = get<std::string>(r, "plan_name");
    plan.knobs = knob_list_from_json(at(r, "knobs"));
    plan.status = get<std::string>(r, "status");
    plan.skip_reason = get_opt<std::string>(r, "skip_reason");
    plan.error_message = get_opt<std::string>(r, "error_message");
    plan.delta = delta_from_json(at(r, "delta"));
    plan.stored_median_ms = get_opt<double>(r, "stored_median_ms");
    plan.stored_ci_hi_ms = get_opt<double>(r, "stored_ci_hi_ms");
    plan.today_median_ms = get_opt<double>(r, "today_median_ms");
    plan.slower = get_opt<bool>(r, "slower");
    out.plans.push_back(std::move(plan));
  }
  return out;
}

std::optional<ProfileResult> profile_from_json(const json& p) {
  if (p.is_null()) return std::nullopt;
  ProfileResult out;
  out.tool = get<std::string>(p, "tool");
  out.sections = get<std::vector<std::string>>(p, "sections");
  out.executions = get<std::int64_t>(p, "executions");
  out.report_path = get_opt<std::string>(p, "report_path");
  out.csv_path = get_opt<std::string>(p, "csv_path");
  for (const auto& k : at(p, "kernels")) {
    ProfiledKernel kernel;
    kernel.name = get<std::string>(k, "name");
    kernel.launches = get<std::int64_t>(k, "launches");
    kernel.duration_ms = num(k, "duration_ms");
    kernel.sm_throughput_pct = get_opt<double>(k, "sm_throughput_pct");
    kernel.dram_throughput_pct = get_opt<double>(k, "dram_throughput_pct");
    kernel.achieved_occupancy_pct = get_opt<double>(k, "achieved_occupancy_pct");
    kernel.registers_per_thread = get_opt<std::int64_t>(k, "registers_per_thread");
    kernel.shared_memory_bytes = get_opt<std::int64_t>(k, "shared_memory_bytes");
    kernel.grid = get<std::array<int, 3>>(k, "grid");
    kernel.block = get<std::array<int, 3>>(k, "block");
    kernel.sm_frequency_mhz = get_opt<double>(k, "sm_frequency_mhz");
    out.kernels.push_back(std::move(kernel));
  }
  out.kernel_sum_ms = get_opt<double>(p, "kernel_sum_ms");
  // Absent in results written before the comparison existed.
  out.ratio_to_cupti = get_opt<double>(p, "ratio_to_cupti");
  out.same_kernels_as_row = get_opt<bool>(p, "same_kernels_as_row");
  out.sm_frequency_mhz = get_opt<double>(p, "sm_frequency_mhz");
  out.row_sm_mhz = get_opt<double>(p, "row_sm_mhz");
  if (p.contains("kernels_not_in_row"))
    out.kernels_not_in_row = get<std::vector<std::string>>(p, "kernels_not_in_row");
  out.error = get_opt<std::string>(p, "error");
  return out;
}

}  // namespace

RowResult row_from_json(const json& r) {
  RowResult row;
  row.provider = get<std::string>(r, "provider");
  row.engine_id = get_opt<std::string>(r, "engine_id");
  row.engine_name = get_opt<std::string>(r, "engine_name");
  row.engine_notes = get<std::vector<std::string>>(r, "engine_notes");
  row.engine_label = get_opt<std::string>(r, "engine_label");
  const auto status = get<std::string>(r, "status");
  const auto parsed = row_status_from_name(status);
  if (!parsed) throw std::runtime_error(fmt::format("unknown row status '{}'", status));
  row.status = *parsed;
  row.skip_reason = get_opt<std::string>(r, "skip_reason");
  row.error_message = get_opt<std::string>(r, "error_message");
  row.plan_name = get_opt<std::string>(r, "plan_name");
  if (const auto it = r.find("plan_knobs"); it != r.end()) row.plan_knobs = knob_list_from_json(*it);
  row.plan_notes = get<std::vector<std::string>>(r, "plan_notes");
  row.fp32_math = get_if_present<std::string>(r, "fp32_math");
  row.reduced_precision = get_if_present<bool>(r, "reduced_precision").value_or(false);
  row.row_time_ms = get_if_present<double>(r, "row_time_ms");
  row.stage_ms =
      get_if_present<std::map<std::string, double>>(r, "stage_ms").value_or(std::map<std::string, double>{});
  row.cpu_build_time_ms = get_opt<double>(r, "cpu_build_time_ms");
  row.plan_cache = get_if_present<std::string>(r, "plan_cache");
  row.compile_time_ms = get_if_present<double>(r, "compile_time_ms");
  row.bind_time_ms = get_opt<double>(r, "bind_time_ms");
  row.workspace_bytes = get_opt<std::int64_t>(r, "workspace_bytes");
  row.host_stats = stats_from_json(at(r, "host_stats"));
  row.gpu_kernel_stats = stats_from_json(at(r, "gpu_kernel_stats"));
  if (r.contains("kernel_sum_stats")) row.kernel_sum_stats = stats_from_json(at(r, "kernel_sum_stats"));
  if (const auto kernels = get_if_present<json>(r, "kernels"))
    for (const auto& k : *kernels)
      row.kernels.push_back(KernelSummary{get<std::string>(k, "name"), get<std::array<int, 3>>(k, "grid"),
                                          get<std::array<int, 3>>(k, "block"),
                                          get<std::int64_t>(k, "launches"), num(k, "median_ms")});
  row.timing = timing_from_json(at(r, "timing"));
  row.analytical_flops = num(r, "analytical_flops");
  row.analytical_io_bytes = num(r, "analytical_io_bytes");
  row.correctness = correctness_from_json(at(r, "correctness"));
  row.oracle = oracle_from_json(at(r, "oracle"));
  row.oracle_delta = delta_from_json(at(r, "oracle_delta"));
  row.oracle_error = get_opt<std::string>(r, "oracle_error");
  if (const auto it = r.find("plans_from"); it != r.end()) row.plans_from = plans_from_from_json(*it);
  if (const auto it = r.find("profile"); it != r.end()) row.profile = profile_from_json(*it);
  row.peak = peak_from_json(at_or_null(r, "peak"));
  // Optional when reading: results and journals written before it have no such key.
  if (const auto it = r.find("measured_by"); it != r.end() && !it->is_null())
    row.measured_by = MeasuredBy{get_opt<int>(*it, "rank"), get<std::string>(*it, "host")};
  if (const auto it = r.find("repeat"); it != r.end() && !it->is_null()) {
    row.repeat.emplace();
    row.repeat->medians_ms = get<std::vector<double>>(*it, "medians_ms");
    row.repeat->spread = num(*it, "spread");
    row.repeat->method = get<std::string>(*it, "method");
    // Passes only (isolate/repeat_passes.hpp); absent in results written before them.
    if (const auto passes = it->find("passes"); passes != it->end() && passes->is_array())
      row.repeat->passes = passes->get<std::vector<int>>();
    if (const auto pids = it->find("pids"); pids != it->end() && pids->is_array())
      for (const auto& pid : *pids)
        row.repeat->pids.push_back(pid.is_number_integer() ? pid.get<std::int64_t>() : -1);
    row.repeat->chosen_pass = get_opt<int>(*it, "chosen_pass");
  }
  return row;
}

GraphResult graph_from_json(const json& g) {
  GraphResult graph;
  graph.graph_name = get<std::string>(g, "graph_name");
  graph.graph_path = get<std::string>(g, "graph_path");
  const auto status = get<std::string>(g, "status");
  graph.ok = status != "error";
  graph.filtered = status == "filtered";
  graph.interrupted = status == "interrupted";
  graph.duplicate_of = get_opt<std::string>(g, "duplicate_of");
  graph.error_message = get_opt<std::string>(g, "error_message");
  graph.analytical_flops = num(g, "analytical_flops");
  graph.analytical_io_bytes = num(g, "analytical_io_bytes");
  if (const auto& hash = at_or_null(g, "content_hash"); hash.is_string())
    graph.content_hash = hash.get<std::string>();
  if (const auto& type = at_or_null(g, "data_type"); type.is_string())
    graph.data_type = type.get<std::string>();
  if (const auto& ops = at_or_null(g, "ops"); ops.is_array()) graph.ops = ops.get<std::vector<std::string>>();
  graph.stage_ms =
      get_if_present<std::map<std::string, double>>(g, "stage_ms").value_or(std::map<std::string, double>{});
  graph.wall_ms = get_opt<double>(g, "wall_ms");
  for (const auto& row : at(g, "results")) graph.results.push_back(row_from_json(row));
  for (const auto& r : at(g, "regret"))
    graph.regret.push_back({get<std::string>(r, "provider"), get<std::string>(r, "pick_engine"),
                            get<std::string>(r, "pick_plan"), get<std::string>(r, "best_engine"),
                            get<std::string>(r, "best_plan"), delta_from_json(at(r, "delta")),
                            get_opt<std::string>(r, "note")});
  return graph;
}

SuiteResult suite_from_json(const json& doc) {
  SuiteResult suite;
  if (!doc.is_object()) throw std::runtime_error("a results file holds a JSON object");
  suite.complete = get<bool>(doc, "complete");
  suite.metadata = at(doc, "metadata");
  if (const auto it = doc.find("layer_models"); it != doc.end() && !it->is_null()) {
    try {
      suite.layer_models = it->get<LayerModels>();
    } catch (const json::exception&) {
      throw std::runtime_error("layer_models: expected {graph_path: {model: count}}");
    }
  }
  const auto& graphs = at(doc, "graphs");
  for (std::size_t i = 0; i < graphs.size(); ++i) {
    try {
      suite.graphs.push_back(graph_from_json(graphs.at(i)));
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("graphs[{}]: {}", i, e.what()));
    }
  }
  return suite;
}

SuiteResult read_results_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw std::runtime_error(fmt::format("{}: cannot read the file", path));
  std::stringstream text;
  text << file.rdbuf();
  try {
    return suite_from_json(json::parse(text.str()));
  } catch (const json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not JSON: {}", path, e.what()));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a dnnbench results file: {}", path, e.what()));
  }
}

std::vector<std::pair<std::string, std::string>> read_knob_list(const json& knobs) {
  return knob_list_from_json(knobs);
}

json plan_ref_to_json(const std::optional<PlanRef>& plan) {
  if (!plan) return nullptr;
  json knobs = json::array();
  for (const auto& [name, value] : plan->knobs) knobs.push_back({name, value});
  return {{"engine_id", plan->engine_id}, {"knobs", knobs}, {"median_ms", plan->median_ms}};
}

std::optional<PlanRef> plan_ref_from_json(const json& p) {
  if (p.is_null()) return std::nullopt;
  PlanRef plan;
  plan.engine_id = get<std::string>(p, "engine_id");
  for (const auto& knob : at(p, "knobs"))
    plan.knobs.emplace_back(knob.at(0).get<std::string>(), knob.at(1).get<std::string>());
  plan.median_ms = num(p, "median_ms");
  return plan;
}

}  // namespace dnnbench
