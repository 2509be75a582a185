#include "report/json_report.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace dnnbench {
namespace {

using nlohmann::json;

template <class T>
json opt(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// Non-finite numbers are not JSON: they are written as null.
json num(double value) {
  return std::isfinite(value) ? json(value) : json(nullptr);
}

json range_to_json(const std::optional<MinMaxMean>& r) {
  if (!r) return nullptr;
  return {{"min", num(r->min)}, {"max", num(r->max)}, {"mean", num(r->mean)}};
}

json clocks_to_json(const std::optional<ClockSummary>& c) {
  if (!c) return nullptr;
  return {{"readings", c->readings},
          {"sm_mhz", range_to_json(c->sm_mhz)},
          {"memory_mhz", range_to_json(c->mem_mhz)},
          {"temperature_c", range_to_json(c->temperature_c)},
          {"power_w", range_to_json(c->power_w)},
          {"capped_fraction", c->capped_fraction ? json(*c->capped_fraction) : json(nullptr)}};
}

json other_regime_to_json(const std::optional<TimingInfo::OtherRegime>& other) {
  if (!other) return nullptr;
  return {{"regime", other->regime},
          {"samples", other->samples},
          {"median_ms", other->median_ms},
          {"sm_mhz", other->sm_mhz ? json(*other->sm_mhz) : json(nullptr)}};
}

json kept_warm_to_json(const std::optional<TimingInfo::KeptWarm>& k) {
  if (!k) return nullptr;
  return {{"ms", k->ms},
          {"power_w", k->power_w ? json(*k->power_w) : json(nullptr)},
          {"sm_mhz", k->sm_mhz ? json(*k->sm_mhz) : json(nullptr)},
          {"capped", k->capped}};
}

json placements_to_json(const std::optional<TimingInfo::Placements>& p) {
  if (!p) return nullptr;
  return {{"chunks", p->chunks}, {"medians_ms", p->medians_ms}, {"spread", p->spread}};
}

json host_sync_to_json(const std::optional<TimingInfo::HostSync>& h) {
  if (!h) return nullptr;
  return {{"threads", h->threads}, {"before_us", h->before_us}, {"after_us", h->after_us}};
}

json core_state_to_json(const std::optional<TimingInfo::CoreState>& c) {
  if (!c) return nullptr;
  return {{"threads", c->threads},
          {"ruler_us", c->ruler_us},
          {"best_us", c->best_us},
          {"windows", c->windows},
          {"disturbed_windows", c->disturbed_windows}};
}

json cache_fit_to_json(const std::optional<TimingInfo::CacheFit>& c, const std::string& cache_mode) {
  if (!c) return nullptr;
  json out = {{"working_set_bytes", c->working_set_bytes},
              {"cache_bytes", c->cache_bytes},
              {"rotation_copies", c->rotation_copies},
              {"cache_sensitive", cache_sensitive(*c, cache_mode)}};
  if (c->kept_bytes > 0) out["kept_bytes"] = c->kept_bytes;
  return out;
}

json timing_to_json(const std::optional<TimingInfo>& timing) {
  if (!timing) return nullptr;
  return {
      {"method", timing->method},
      {"batch", timing->batch},
      {"meaning", timing->meaning},
      {"cache_mode", timing->cache_mode},
      {"cache_flush", timing->cache_flush.empty() ? json(nullptr) : json(timing->cache_flush)},
      {"stopping_rule", timing->rule},
      {"converged", timing->converged},
      {"stop_reason", timing->stop_reason},
      {"replay_fallback", timing->replay_fallback.empty() ? json(nullptr) : json(timing->replay_fallback)},
      {"warmup", timing->warmup},
      {"warmup_ms", timing->warmup_ms},
      {"warmup_steady", timing->warmup_steady},
      {"elapsed_ms", timing->elapsed_ms},
      {"timed_ms", timing->timed_ms},
      {"wall_ms", timing->wall_ms},
      {"regime", timing->regime},
      {"fill", timing->fill},
      {"pacing", timing->pacing},
      {"pacing_idle_ms", timing->pacing_idle_ms},
      {"other_regime", other_regime_to_json(timing->other_regime)},
      {"kept_warm", kept_warm_to_json(timing->kept_warm)},
      {"placements", placements_to_json(timing->placements)},
      {"host_sync", host_sync_to_json(timing->host_sync)},
      {"core_state", core_state_to_json(timing->core_state)},
      {"cache_fit", cache_fit_to_json(timing->cache_fit, timing->cache_mode)},
      {"clocks", clocks_to_json(timing->clocks)},
      {"clock_unstable", timing->clocks ? json(timing->clocks->clock_unstable) : json(nullptr)},
      {"samples_ms", timing->samples_ms.empty() ? json(nullptr) : json(timing->samples_ms)}};
}

json kernels_to_json(const std::vector<KernelSummary>& kernels) {
  json out = json::array();
  for (const auto& k : kernels)
    out.push_back({{"name", k.name},
                   {"grid", k.grid},
                   {"block", k.block},
                   {"launches", k.launches},
                   {"median_ms", k.median_ms}});
  return out;
}

json correctness_to_json(const std::optional<Correctness>& c) {
  if (!c) return nullptr;
  json outputs = json::array();
  for (const auto& o : c->outputs)
    outputs.push_back({{"tensor", o.tensor},
                       {"passed", o.passed},
                       {"max_abs_diff", num(o.max_abs_diff)},
                       {"max_rel_diff", num(o.max_rel_diff)},
                       {"norm_rel_error", num(o.norm_rel_error)},
                       {"mismatches", o.mismatches},
                       {"nonfinite", o.nonfinite},
                       {"first_mismatch", o.first_mismatch.empty() ? json(nullptr) : json(o.first_mismatch)},
                       {"rtol", o.rtol},
                       {"atol", o.atol},
                       {"tolerance_basis", o.tolerance_basis}});
  return {{"passed", c->passed},
          {"max_abs_diff", num(c->max_abs_diff)},
          {"max_rel_diff", num(c->max_rel_diff)},
          {"norm_rel_error", num(c->norm_rel_error)},
          {"rtol", c->rtol},
          {"atol", c->atol},
          {"reference", c->reference},
          {"compared_on", c->compared_on},
          {"outputs", outputs}};
}

double per_second(double amount, const std::optional<Stats>& stats) {
  return stats && stats->median > 0 ? amount / (stats->median * 1e-3) : 0.0;
}

json provider_summaries_to_json(const Summary& s) {
  json providers = json::object();
  for (const auto& [name, p] : s.providers)
    providers[name] = {{"rows", p.rows},
                       {"passed", p.passed},
                       {"failed", p.failed},
                       {"skipped", p.skipped},
                       {"errors", p.errors}};
  return providers;
}

json peak_to_json(const std::optional<PeakFigures>& p) {
  if (!p) return nullptr;
  return {{"matrix_flops", opt(p->matrix_flops)},
          {"vector_flops", opt(p->vector_flops)},
          {"dram_bytes_per_s", opt(p->dram_bytes_per_s)},
          {"device", p->device},
          {"source", p->source}};
}

json knobs_to_json(const std::vector<std::pair<std::string, std::string>>& knobs) {
  json out = json::object();
  for (const auto& [name, value] : knobs) out[name] = value;
  return out;
}

json plans_from_to_json(const std::optional<PlansFromResult>& p) {
  if (!p) return nullptr;
  json plans = json::array();
  for (const auto& r : p->plans)
    plans.push_back({{"role", r.role},
                     {"plan_name", r.plan_name},
                     {"knobs", knob_list_to_json(r.knobs)},
                     {"status", r.status},
                     {"skip_reason", opt(r.skip_reason)},
                     {"error_message", opt(r.error_message)},
                     {"delta", delta_to_json(r.delta)},
                     {"stored_median_ms", opt(r.stored_median_ms)},
                     {"stored_ci_hi_ms", opt(r.stored_ci_hi_ms)},
                     {"today_median_ms", opt(r.today_median_ms)},
                     {"slower", opt(r.slower)}});
  return {{"source", p->source},
          {"stored_library_version", p->stored_library_version},
          {"stored_device", p->stored_device},
          {"stored_winner", p->stored_winner},
          {"stored_heuristic", p->stored_heuristic},
          {"today_heuristic", p->today_heuristic},
          {"other_stored_winners", p->other_stored_winners},
          {"heuristic_changed", p->heuristic_changed},
          {"tuned_still_wins", opt(p->tuned_still_wins)},
          {"verdict", p->verdict},
          {"plans", plans}};
}

json profile_to_json(const std::optional<ProfileResult>& p) {
  if (!p) return nullptr;
  json kernels = json::array();
  for (const auto& k : p->kernels)
    kernels.push_back({{"name", k.name},
                       {"launches", k.launches},
                       {"duration_ms", k.duration_ms},
                       {"sm_throughput_pct", opt(k.sm_throughput_pct)},
                       {"dram_throughput_pct", opt(k.dram_throughput_pct)},
                       {"achieved_occupancy_pct", opt(k.achieved_occupancy_pct)},
                       {"registers_per_thread", opt(k.registers_per_thread)},
                       {"shared_memory_bytes", opt(k.shared_memory_bytes)},
                       {"grid", k.grid},
                       {"block", k.block},
                       {"sm_frequency_mhz", opt(k.sm_frequency_mhz)}});
  return {{"tool", p->tool},
          {"sections", p->sections},
          {"executions", p->executions},
          {"report_path", opt(p->report_path)},
          {"csv_path", opt(p->csv_path)},
          {"kernels", kernels},
          {"kernel_sum_ms", opt(p->kernel_sum_ms)},
          {"ratio_to_cupti", opt(p->ratio_to_cupti)},
          {"sm_frequency_mhz", opt(p->sm_frequency_mhz)},
          {"row_sm_mhz", opt(p->row_sm_mhz)},
          {"same_kernels_as_row", opt(p->same_kernels_as_row)},
          {"kernels_not_in_row", p->kernels_not_in_row},
          {"error", opt(p->error)}};
}

}  // namespace

json knob_list_to_json(const std::vector<std::pair<std::string, std::string>>& knobs) {
  json out = json::array();
  for (const auto& [name, value] : knobs) out.push_back({name, value});
  return out;
}

json delta_to_json(const std::optional<PairedDelta>& d) {
  if (!d) return nullptr;
  return {{"basis", d->basis},
          {"baseline_median_ms", d->baseline_median_ms},
          {"oracle_median_ms", d->oracle_median_ms},
          {"speedup", num(d->speedup)},
          {"ci95", {num(d->ci_lo), num(d->ci_hi)}},
          {"significant", d->significant},
          {"control_ratio", num(d->control_ratio)},
          {"control_ci95", {num(d->control_ci_lo), num(d->control_ci_hi)}},
          {"noise_floor", num(d->noise_floor)},
          {"rounds", d->rounds},
          {"converged", d->converged},
          {"method", d->method},
          {"replication", d->replication
                              ? json{{"speedup", num(d->replication->speedup)},
                                     {"ci95", {num(d->replication->ci_lo), num(d->replication->ci_hi)}},
                                     {"significant", d->replication->significant}}
                              : json(nullptr)}};
}

json regime_check_to_json(const std::optional<OracleResult::RegimeCheck>& c) {
  if (!c) return nullptr;
  json medians = json::array();
  for (const auto& [plan, ms] : c->medians) medians.push_back({{"plan_name", plan}, {"median_ms", ms}});
  return {{"regime", c->regime},
          {"plan_name", c->plan_name},
          {"medians", medians},
          {"winner_changed", c->winner_changed},
          {"delta", delta_to_json(c->delta)},
          {"note", opt(c->note)}};
}

json oracle_to_json(const std::optional<OracleResult>& o) {
  if (!o) return nullptr;
  json candidates = json::array();
  for (const auto& c : o->candidates)
    candidates.push_back({{"plan_name", c.plan_name},
                          {"knobs", knob_list_to_json(c.knobs)},
                          {"measured", c.measured},
                          {"median_ms", opt(c.median_ms)},
                          {"error", opt(c.error)},
                          {"screen_median_ms", opt(c.screen_median_ms)},
                          {"screened_out", c.screened_out},
                          {"finalist", c.finalist},
                          {"leader", c.leader}});
  const auto& t = o->time_split;
  return {{"search", o->search},
          {"verdict", o->verdict},
          {"plan_name", o->plan_name},
          {"knobs", knobs_to_json(o->knobs)},
          {"rank_of_heuristic_plan", opt(o->rank_of_heuristic_plan)},
          {"candidates_total", o->candidates_total},
          {"candidates_benchmarked", o->candidates_benchmarked},
          {"candidates_failed", o->candidates_failed},
          {"budget_exhausted", o->budget_exhausted},
          {"sweep_time_ms", o->sweep_time_ms},
          {"screened_out", o->screened_out},
          {"narrowed_out", o->narrowed_out},
          {"time_split_ms",
           {{"build", t.build_ms},
            {"screen", t.screen_ms},
            {"final", t.final_ms},
            {"paired", t.paired_ms},
            {"replication", t.replication_ms},
            {"other_regime", t.other_regime_ms}}},
          {"cpu_build_time_ms", opt(o->cpu_build_time_ms)},
          {"gpu_kernel_stats", stats_to_json(o->gpu_kernel_stats)},
          {"host_stats", stats_to_json(o->host_stats)},
          {"warm_baseline_stats", stats_to_json(o->warm_baseline_stats)},
          {"correctness", correctness_to_json(o->correctness)},
          {"delta_withheld", opt(o->delta_withheld)},
          {"candidates", candidates},
          {"regime", o->regime},
          {"other_regime", regime_check_to_json(o->other_regime)}};
}

json stats_to_json(const std::optional<Stats>& s) {
  if (!s) return nullptr;
  return {{"n", s->n},
          {"mean_ms", s->mean},
          {"median_ms", s->median},
          {"stddev_ms", s->stddev},
          {"min_ms", s->min},
          {"max_ms", s->max},
          {"p5_ms", s->p5},
          {"p95_ms", s->p95},
          {"p99_ms", s->p99},
          {"median_ci95_ms", {s->median_ci_lo, s->median_ci_hi}}};
}

namespace {

json repeat_to_json(const std::optional<RepeatResult>& repeat) {
  if (!repeat) return nullptr;
  json out{{"medians_ms", repeat->medians_ms}, {"spread", repeat->spread}, {"method", repeat->method}};
  if (!repeat->passes.empty()) {
    out["passes"] = repeat->passes;
    json pids = json::array();
    for (const auto pid : repeat->pids) pids.push_back(pid >= 0 ? json(pid) : json(nullptr));
    out["pids"] = pids;
    out["chosen_pass"] = opt(repeat->chosen_pass);
  }
  return out;
}

}  // namespace

json row_to_json(const RowResult& row) {
  // Throughput from the kernel time where there is one, else from the host time.
  const auto& basis = row.gpu_kernel_stats ? row.gpu_kernel_stats : row.host_stats;
  const bool timed = basis.has_value() && basis->n > 0;
  return {{"provider", row.provider},
          {"engine_id", opt(row.engine_id)},
          {"engine_name", opt(row.engine_name)},
          {"engine_notes", row.engine_notes},
          {"engine_label", opt(row.engine_label)},
          {"status", row_status_name(row.status)},
          {"passed", row.passed()},
          {"skip_reason", opt(row.skip_reason)},
          {"error_message", opt(row.error_message)},
          {"plan_name", opt(row.plan_name)},
          {"plan_knobs", knob_list_to_json(row.plan_knobs)},
          {"plan_notes", row.plan_notes},
          {"fp32_math", opt(row.fp32_math)},
          {"reduced_precision", row.reduced_precision},
          {"row_time_ms", opt(row.row_time_ms)},
          {"stage_ms", row.stage_ms},
          {"cpu_build_time_ms", opt(row.cpu_build_time_ms)},
          {"plan_cache", opt(row.plan_cache)},
          {"compile_time_ms", opt(row.compile_time_ms)},
          {"bind_time_ms", opt(row.bind_time_ms)},
          {"workspace_bytes", opt(row.workspace_bytes)},
          {"host_stats", stats_to_json(row.host_stats)},
          {"gpu_kernel_stats", stats_to_json(row.gpu_kernel_stats)},
          {"kernel_sum_stats", stats_to_json(row.kernel_sum_stats)},
          {"kernels", kernels_to_json(row.kernels)},
          {"timing", timing_to_json(row.timing)},
          {"analytical_flops", row.analytical_flops},
          {"analytical_io_bytes", row.analytical_io_bytes},
          {"flops_per_second", timed ? json(per_second(row.analytical_flops, basis)) : json(nullptr)},
          {"io_bytes_per_second", timed ? json(per_second(row.analytical_io_bytes, basis)) : json(nullptr)},
          {"correctness", correctness_to_json(row.correctness)},
          {"oracle", oracle_to_json(row.oracle)},
          {"oracle_delta", delta_to_json(row.oracle_delta)},
          {"oracle_error", opt(row.oracle_error)},
          {"plans_from", plans_from_to_json(row.plans_from)},
          {"profile", profile_to_json(row.profile)},
          {"peak", peak_to_json(row.peak)},
          {"measured_by", row.measured_by
                              ? json{{"rank", opt(row.measured_by->rank)}, {"host", row.measured_by->host}}
                              : json(nullptr)},
          {"repeat", repeat_to_json(row.repeat)}};
}

json graph_to_json(const GraphResult& g) {
  json rows = json::array();
  for (const auto& row : g.results) rows.push_back(row_to_json(row));
  json regret = json::array();
  for (const auto& r : g.regret)
    regret.push_back({{"provider", r.provider},
                      {"pick_engine", r.pick_engine},
                      {"pick_plan", r.pick_plan},
                      {"best_engine", r.best_engine},
                      {"best_plan", r.best_plan},
                      {"delta", delta_to_json(r.delta)},
                      {"note", opt(r.note)}});
  return {{"graph_name", g.graph_name},
          {"graph_path", g.graph_path},
          {"status", graph_status_name(g)},
          {"duplicate_of", opt(g.duplicate_of)},
          {"content_hash", opt(g.content_hash)},
          {"data_type", g.data_type.empty() ? json(nullptr) : json(g.data_type)},
          {"ops", g.ops},
          {"error_message", opt(g.error_message)},
          {"analytical_flops", g.analytical_flops},
          {"analytical_io_bytes", g.analytical_io_bytes},
          {"stage_ms", g.stage_ms},
          {"wall_ms", opt(g.wall_ms)},
          {"results", rows},
          {"regret", regret}};
}

json suite_to_json(const SuiteResult& suite) {
  const auto s = suite.summary();
  json graphs = json::array();
  for (const auto& g : suite.graphs) graphs.push_back(graph_to_json(g));
  json document = {{"schema_version", kResultsSchemaVersion},
                   {"complete", suite.complete},
                   {"metadata", suite.metadata},
                   {"summary",
                    {{"graphs", s.graphs},
                     {"graph_errors", s.graph_errors},
                     {"rows", s.rows},
                     {"passed", s.passed},
                     {"failed", s.failed},
                     {"skipped", s.skipped},
                     {"errors", s.errors},
                     {"duplicates", s.duplicates},
                     {"filtered", s.filtered},
                     {"providers", provider_summaries_to_json(s)}}},
                   {"exit_code", exit_code_for(suite)},
                   {"graphs", graphs}};
  if (!suite.layer_models.empty()) document["layer_models"] = suite.layer_models;
  return document;
}

void write_json_file(const std::filesystem::path& path, const json& document) {
  const auto temporary = path.string() + ".tmp";
  {
    std::ofstream file(temporary);
    if (!file) throw std::runtime_error("cannot write results file " + temporary);
    // `replace`: a path that is not UTF-8 (a Latin-1 file name) is written with U+FFFD instead of
    // making the dump throw after the whole run.
    file << document.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!file) throw std::runtime_error("error writing results file " + temporary);
  }
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  if (ec) throw std::runtime_error("cannot move " + temporary + " to " + path.string() + ": " + ec.message());
}

void check_writable_file(const std::filesystem::path& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw std::runtime_error(path.string() + " is a folder; expected the path of a file to write");
  const fs::path folder = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::exists(folder, ec))
    throw std::runtime_error("the folder " + folder.string() + " of " + path.string() +
                             " does not exist (dnnbench creates no folders; make it first)");
  if (!fs::is_directory(folder, ec))
    throw std::runtime_error(folder.string() + " (the folder of " + path.string() + ") is not a folder");
  // The file is written beside itself (PATH.tmp) and renamed over PATH: creating that file is
  // the test, whatever the permissions, file system or quota say.
  const std::string probe = path.string() + ".tmp";
  bool created = true;
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0 && errno == EEXIST) {
    created = false;
    fd = ::open(probe.c_str(), O_WRONLY | O_CLOEXEC);
  }
  if (fd < 0) throw std::runtime_error("cannot write " + path.string() + ": " + std::strerror(errno));
  ::close(fd);
  if (created) ::unlink(probe.c_str());
}

}  // namespace dnnbench
