#include "report/console_report.hpp"

#include "report/oracle_report.hpp"
#include "report/tuning_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <map>

namespace dnnbench {
namespace {

std::string row_verdict(const RowResult& row) {
  switch (row.status) {
    case RowStatus::skipped:
      return "skipped";
    case RowStatus::error:
      return "ERROR";
    case RowStatus::timeout:
      return "TIMEOUT";
    case RowStatus::success:
      return row.passed() ? "passed" : "FAILED";
  }
  return "?";
}

std::string median_text(const std::optional<Stats>& stats) {
  return stats && stats->n > 0 ? fmt::format("{:.4f}", stats->median) : "-";
}

std::string throughput_text(const RowResult& row) {
  const auto& basis = row.gpu_kernel_stats ? row.gpu_kernel_stats : row.host_stats;
  if (!basis || basis->median <= 0 || row.analytical_flops <= 0) return "-";
  return fmt::format("{:.3f}", row.analytical_flops / (basis->median * 1e-3) / 1e12);
}

std::string reason_text(const RowResult& row) {
  if (row.skip_reason) return *row.skip_reason;
  if (row.error_message) return *row.error_message;
  if (row.correctness && !row.correctness->passed) {
    for (const auto& o : row.correctness->outputs)
      if (!o.passed) return fmt::format("{}: {} mismatches, {}", o.tensor, o.mismatches, o.first_mismatch);
  }
  return "";
}

std::string truncate(std::string text, std::size_t width) {
  if (text.size() > width) text = text.substr(0, width - 3) + "...";
  return text;
}

// The rows with the largest median time (kernel time where there is one), slowest first.
void print_slowest_rows(std::ostream& out, const SuiteResult& suite, std::size_t count) {
  std::vector<std::pair<double, std::string>> timed;
  for (const auto& g : suite.graphs)
    for (const auto& r : g.results) {
      const auto& stats = r.gpu_kernel_stats ? r.gpu_kernel_stats : r.host_stats;
      if (r.status == RowStatus::success && stats && stats->n > 0)
        timed.emplace_back(stats->median,
                           fmt::format("{} / {} / {}", g.graph_name, r.provider, r.engine_id.value_or("-")));
    }
  if (timed.empty()) return;
  count = std::min(count, timed.size());
  std::partial_sort(timed.begin(), timed.begin() + static_cast<std::ptrdiff_t>(count), timed.end(),
                    [](const auto& a, const auto& b) { return a.first > b.first; });
  fmt::print(out, "  slowest rows (median ms):\n");
  for (std::size_t k = 0; k < count; ++k)
    fmt::print(out, "    {:>11.4f}  {}\n", timed[k].first, timed[k].second);
}

// Where the suite's time went, by stage (rows' stage_ms and graphs' own stages), and rows a minute
// over the graphs' wall time: what a sustained run costs, and which stage to make cheaper.
void print_time_split(std::ostream& out, const SuiteResult& suite) {
  std::map<std::string, double> stages;
  double wall_ms = 0;
  std::size_t rows = 0;
  for (const auto& g : suite.graphs) {
    for (const auto& [stage, ms] : g.stage_ms) stages[stage] += ms;
    for (const auto& r : g.results) {
      for (const auto& [stage, ms] : r.stage_ms) stages[stage] += ms;
      ++rows;
    }
    wall_ms += g.wall_ms.value_or(0);
  }
  if (rows == 0 || wall_ms <= 0) return;
  std::vector<std::pair<double, std::string>> sorted;
  for (const auto& [stage, ms] : stages)
    if (ms >= 50) sorted.emplace_back(ms, stage);
  std::sort(sorted.rbegin(), sorted.rend());
  std::string split;
  for (const auto& [ms, stage] : sorted)
    split += fmt::format("{}{} {:.1f} s", split.empty() ? "" : ", ", stage, ms / 1000);
  fmt::print(out, "  time: {:.1f} s over the graphs, {:.0f} rows a minute{}{}\n", wall_ms / 1000,
             static_cast<double>(rows) / (wall_ms / 60000), split.empty() ? "" : "; ", split);
}

// What the power cap's rows paid to warm up, and what those right after another capped row paid:
// when the device holds its state between rows the second is a fraction of the first, and when it
// cools while the host builds, checks and writes the two agree (graphs/perf/resnet50 on the H100:
// 1.19 s a row, 1.00 s right after a capped row; bench/RESULTS.md, "Rows a minute at the cap").
// (median_of qualified: a unity batch may put compare.cpp's median_of(const RowResult&) beside it.)
// Capped rows that opened a group after the heater kept the device loaded (run/keep_warm.hpp) are
// counted apart, with the power the heater left the device at.
void print_capped_warmup(std::ostream& out, const SuiteResult& suite) {
  std::vector<double> all_ms, after_capped_ms, after_heat_ms, heat_w;
  bool previous_capped = false;
  for (const auto& g : suite.graphs)
    for (const auto& r : g.results) {
      if (!r.timing) continue;  // the previous row is the previous timed one
      const bool capped = r.timing->other_regime.has_value();
      if (capped) {
        const auto it = r.stage_ms.find("warm-up");
        const double ms = it == r.stage_ms.end() ? 0 : it->second;
        all_ms.push_back(ms);
        if (r.timing->kept_warm) {
          after_heat_ms.push_back(ms);
          if (r.timing->kept_warm->power_w) heat_w.push_back(*r.timing->kept_warm->power_w);
        } else if (previous_capped) {
          after_capped_ms.push_back(ms);
        }
      }
      previous_capped = capped;
    }
  if (all_ms.empty()) return;
  double total_ms = 0;
  for (const double ms : all_ms) total_ms += ms;
  fmt::print(out, "  power cap: {} rows warmed up {:.1f} s, a median {:.2f} s each", all_ms.size(),
             total_ms / 1000, dnnbench::median_of(all_ms) / 1000);
  if (!after_capped_ms.empty())
    fmt::print(out, "; {:.2f} s right after another capped row ({} row{})",
               dnnbench::median_of(after_capped_ms) / 1000, after_capped_ms.size(),
               after_capped_ms.size() == 1 ? "" : "s");
  if (!after_heat_ms.empty()) {
    fmt::print(out, "; {:.2f} s after the heater kept the device loaded ({} row{}",
               dnnbench::median_of(after_heat_ms) / 1000, after_heat_ms.size(),
               after_heat_ms.size() == 1 ? "" : "s");
    if (!heat_w.empty()) fmt::print(out, ", at {:.0f} W", dnnbench::median_of(heat_w));
    fmt::print(out, ")");
  }
  fmt::print(out, "\n");
}

// A run that other work disturbed (metadata.host_conditions, env/host_load.hpp) says so where
// its reader looks: its times are slow and noisy, and `compare` will name the difference.
void print_host_disturbance(std::ostream& out, const nlohmann::json& metadata) {
  if (!metadata.is_object() || !metadata.contains("host_conditions")) return;
  const auto& h = metadata.at("host_conditions");
  if (!h.is_object() || h.value("disturbed", nlohmann::json(false)) != true) return;
  fmt::print(out,
             "  DISTURBED: the machine was busy during this run ({}); CPU times are slower and noisier "
             "than on an idle machine, and `compare` will flag this run\n",
             h.value("disturbed_because", std::string("other work")));
}

// The conditions every figure above was taken in: its regime and its input data, and how many
// rows the power cap held down (they carry the paced figure beside).
void print_conditions_line(std::ostream& out, const SuiteResult& suite) {
  std::map<std::string, int> regimes, fills;
  int capped = 0, reduced = 0;
  for (const auto& g : suite.graphs)
    for (const auto& r : g.results) {
      if (r.reduced_precision && r.status == RowStatus::success) ++reduced;
      if (!r.timing) continue;
      ++regimes[r.timing->regime];
      ++fills[r.timing->fill];
      if (r.timing->other_regime) ++capped;
    }
  if (regimes.empty()) return;
  const auto names = [](const std::map<std::string, int>& m) {
    std::vector<std::string> out;
    for (const auto& [name, n] : m) out.push_back(m.size() > 1 ? fmt::format("{} ({} rows)", name, n) : name);
    return fmt::format("{}", fmt::join(out, ", "));
  };
  fmt::print(out, "  figures: {} regime, {} input fill", names(regimes), names(fills));
  if (capped > 0)
    fmt::print(out, "; {} rows at the power cap (their paced figure beside: the per-kernel best case)",
               capped);
  fmt::print(out, "\n");
  if (reduced > 0)
    fmt::print(out,
               "  {} rows ran engines that accumulate in reduced precision, judged on the normalized error "
               "(--reduced-precision skip leaves them out)\n",
               reduced);
}

}  // namespace

std::string human_flops(double flops) {
  if (flops >= 1e12) return fmt::format("{:.2f} TFLOP", flops / 1e12);
  if (flops >= 1e9) return fmt::format("{:.2f} GFLOP", flops / 1e9);
  if (flops >= 1e6) return fmt::format("{:.2f} MFLOP", flops / 1e6);
  if (flops >= 1e3) return fmt::format("{:.2f} kFLOP", flops / 1e3);
  return fmt::format("{:.0f} FLOP", flops);
}

std::string human_bytes(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return fmt::format("{:.2f} GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return fmt::format("{:.2f} MiB", bytes / (1024.0 * 1024));
  if (bytes >= 1024.0) return fmt::format("{:.1f} KiB", bytes / 1024.0);
  return fmt::format("{:.0f} B", bytes);
}

void print_graph_table(std::ostream& out, const GraphResult& g) {
  if (!g.ok) {
    fmt::print(out, "\n{}  ERROR: {}\n", g.graph_name.empty() ? g.graph_path : g.graph_name,
               g.error_message.value_or("?"));
    return;
  }
  fmt::print(out, "\n{}  ({}, {} moved)  {}\n", g.graph_name, human_flops(g.analytical_flops),
             human_bytes(g.analytical_io_bytes), g.graph_path);
  std::size_t engine_w = 6, plan_w = 4;
  for (const auto& r : g.results) {
    engine_w = std::max(engine_w, r.engine_id.value_or("-").size());
    plan_w = std::max(plan_w, r.plan_name.value_or("-").size());
  }
  engine_w = std::min<std::size_t>(engine_w, 28);
  plan_w = std::min<std::size_t>(plan_w, 40);
  // With --oracle: the oracle's median and its speedup over the heuristic plan, with its CI.
  const bool oracle = graph_has_oracle(g);
  const auto oracle_columns = [&](const RowResult* r) -> std::string {
    if (!oracle) return "";
    if (!r) return fmt::format(" {:>11} {:>24}", "oracle ms", "speedup [95% CI]");
    const auto ms = r->oracle_delta ? fmt::format("{:.4f}", r->oracle_delta->oracle_median_ms) : "-";
    return fmt::format(" {:>11} {:>24}", ms, oracle_cell(*r));
  };
  // The regime names the figure (sustained: what a loop gets; paced: below the power cap).
  std::string regime = "median ms";
  for (const auto& r : g.results)
    if (r.timing && r.timing->regime != "unrecorded") regime = r.timing->regime + " ms";
  fmt::print(out, "  {:<9} {:<{}} {:<{}} {:>12}{} {:>9} {:>9}  {}\n", "provider", "engine", engine_w, "plan",
             plan_w, regime, oracle_columns(nullptr), "TFLOP/s", "norm rel", "status");
  for (const auto& r : g.results) {
    // The normalized error (||got - want|| / ||want||), not the largest elementwise relative one:
    // near-zero reference values made that read 1e+04 on attention rows that passed.
    const std::string rel = r.correctness ? fmt::format("{:.1e}", r.correctness->norm_rel_error) : "-";
    std::string status = row_verdict(r);
    if (r.reduced_precision) status += " [reduced-precision]";
    if (r.timing && r.timing->other_regime)
      status +=
          fmt::format(" ({} {:.4f})", r.timing->other_regime->regime, r.timing->other_regime->median_ms);
    const auto reason = reason_text(r);
    if (!reason.empty()) status += ": " + truncate(reason, 90);
    fmt::print(out, "  {:<9} {:<{}} {:<{}} {:>12}{} {:>9} {:>9}  {}\n", r.provider,
               truncate(r.engine_id.value_or("-"), engine_w), engine_w,
               truncate(r.plan_name.value_or("-"), plan_w), plan_w,
               median_text(r.gpu_kernel_stats ? r.gpu_kernel_stats : r.host_stats), oracle_columns(&r),
               throughput_text(r), rel, status);
  }
  print_graph_regret(out, g);
  print_plans_from_lines(out, g);
}

void print_row_details(std::ostream& out, const RowResult& r) {
  fmt::print(out, "    --- {} / {} ---\n", r.provider, r.engine_id.value_or("-"));
  if (!r.engine_notes.empty()) fmt::print(out, "    engine notes: {}\n", fmt::join(r.engine_notes, "; "));
  if (r.plan_name) fmt::print(out, "    plan: {}\n", *r.plan_name);
  if (!r.plan_notes.empty()) fmt::print(out, "    plan notes: {}\n", fmt::join(r.plan_notes, "; "));
  if (r.cpu_build_time_ms) {
    fmt::print(out, "    build: {:.3f} ms", *r.cpu_build_time_ms);
    if (r.plan_cache == "loaded")
      fmt::print(out, " (loaded from the compiled-plan cache; compiling it took {:.0f} ms)",
                 r.compile_time_ms.value_or(0));
    else if (r.plan_cache)
      fmt::print(out, " (compiled; {} in the compiled-plan cache)", *r.plan_cache);
    fmt::print(out, "\n");
  }
  if (r.bind_time_ms) fmt::print(out, "    bind (reorders, untimed): {:.3f} ms\n", *r.bind_time_ms);
  if (r.workspace_bytes)
    fmt::print(out, "    workspace: {}\n", human_bytes(static_cast<double>(*r.workspace_bytes)));
  auto print_stats = [&](const char* label, const std::optional<Stats>& s) {
    if (!s) return;
    fmt::print(out,
               "    {}: n={} median={:.4f} ms [95% CI {:.4f}, {:.4f}] mean={:.4f} stddev={:.4f} min={:.4f} "
               "p95={:.4f} p99={:.4f} max={:.4f}\n",
               label, s->n, s->median, s->median_ci_lo, s->median_ci_hi, s->mean, s->stddev, s->min, s->p95,
               s->p99, s->max);
  };
  print_stats("host", r.host_stats);
  print_stats("gpu kernel", r.gpu_kernel_stats);
  if (r.timing) {
    const auto& t = *r.timing;
    fmt::print(
        out, "    timing: {} {}, cache {}, {}, rule {} ({}), warm-up {} in {:.1f} ms ({}), {:.1f} ms timed\n",
        t.meaning, t.method, t.cache_mode, t.cache_flush.empty() ? "no flush" : t.cache_flush, t.rule,
        t.converged ? "converged" : "stopped at cap", t.warmup, t.warmup_ms,
        t.warmup_steady ? "steady" : "not steady", t.elapsed_ms);
    if (t.clocks && t.clocks->sm_mhz)
      fmt::print(
          out, "    clocks: SM {:.0f}-{:.0f} MHz{}{}{}{}\n", t.clocks->sm_mhz->min, t.clocks->sm_mhz->max,
          t.clocks->power_w
              ? fmt::format(", power {:.0f}-{:.0f} W", t.clocks->power_w->min, t.clocks->power_w->max)
              : "",
          t.clocks->temperature_c
              ? fmt::format(", {:.0f}-{:.0f} C", t.clocks->temperature_c->min, t.clocks->temperature_c->max)
              : "",
          t.clocks->capped_fraction
              ? fmt::format(", capped in {:.0f}% of readings", *t.clocks->capped_fraction * 100)
              : "",
          t.clocks->clock_unstable ? " — CLOCK UNSTABLE while timed" : "");
    if (t.cache_fit)
      fmt::print(out, "    cache: working set {:.2f} MiB against a {:.0f} MiB last-level cache{}{}\n",
                 static_cast<double>(t.cache_fit->working_set_bytes) / (1 << 20),
                 static_cast<double>(t.cache_fit->cache_bytes) / (1 << 20),
                 t.cache_fit->rotation_copies > 1
                     ? fmt::format(", rotated over {} copies{}", t.cache_fit->rotation_copies,
                                   t.cache_fit->kept_bytes > 0
                                       ? fmt::format(" but {:.2f} MiB of fresh inputs",
                                                     static_cast<double>(t.cache_fit->kept_bytes) / (1 << 20))
                                       : "")
                     : "",
                 cache_sensitive(*t.cache_fit, t.cache_mode)
                     ? " — CACHE-SENSITIVE: the figure depends on what the cache holds (--cache-mode "
                       "rotating or cold)"
                     : "");
    fmt::print(out, "    regime: {}, inputs: {} fill\n", t.regime, t.fill);
    if (t.pacing != "off" && t.pacing != "not needed")
      fmt::print(out, "    pacing: {}, {:.1f} ms idle between samples\n", t.pacing, t.pacing_idle_ms);
    if (t.other_regime)
      fmt::print(out,
                 "    the driver reported the power cap: {} figure {:.4f} ms from {} samples{} (--regime {} "
                 "measures it fully)\n",
                 t.other_regime->regime, t.other_regime->median_ms, t.other_regime->samples,
                 t.other_regime->sm_mhz ? fmt::format(" at {:.0f} MHz", *t.other_regime->sm_mhz) : "",
                 t.other_regime->regime);
  }
  if (r.correctness) {
    for (const auto& o : r.correctness->outputs)
      fmt::print(
          out,
          "    check {}: {} max_abs={:.3e} max_rel={:.3e} norm_rel={:.3e} (rtol {:.1e}, atol {:.1e}; {}){}\n",
          o.tensor, o.passed ? "passed" : "FAILED", o.max_abs_diff, o.max_rel_diff, o.norm_rel_error, o.rtol,
          o.atol, o.tolerance_basis,
          o.passed ? "" : fmt::format(" — {} mismatches, {}", o.mismatches, o.first_mismatch));
    fmt::print(out, "    reference: {}\n", r.correctness->reference);
  }
  if (r.skip_reason) fmt::print(out, "    skipped: {}\n", *r.skip_reason);
  if (r.error_message) fmt::print(out, "    error: {}\n", *r.error_message);
  print_oracle_details(out, r);
  print_plans_from_details(out, r);
  print_profile_details(out, r);
}

void print_suite_summary(std::ostream& out, const SuiteResult& suite) {
  const auto s = suite.summary();
  fmt::print(out,
             "\nSummary: {} graphs ({} failed to load), {} rows: {} passed, {} failed validation, {} "
             "skipped, {} errors\n",
             s.graphs, s.graph_errors, s.rows, s.passed, s.failed, s.skipped, s.errors);
  if (s.duplicates > 0 || s.filtered > 0)
    fmt::print(out,
               "  not run: {} duplicate graphs (same content as an earlier one), {} filtered out by --op\n",
               s.duplicates, s.filtered);
  for (const auto& [provider, p] : s.providers)
    fmt::print(out, "  {}: {} rows: {} passed, {} failed validation, {} skipped, {} errors\n", provider,
               p.rows, p.passed, p.failed, p.skipped, p.errors);
  print_host_disturbance(out, suite.metadata);
  print_conditions_line(out, suite);
  print_slowest_rows(out, suite, 5);
  print_time_split(out, suite);
  print_capped_warmup(out, suite);
  for (const auto& g : suite.graphs) {
    if (!g.ok) fmt::print(out, "  load error: {}\n", g.error_message.value_or("?"));
    for (const auto& r : g.results)
      if (r.status == RowStatus::error || r.status == RowStatus::timeout || r.validation_failed())
        fmt::print(out, "  {} {} / {} / {}: {}\n",
                   r.validation_failed() ? "FAILED" : row_status_name(r.status), g.graph_name, r.provider,
                   r.engine_id.value_or("-"), truncate(reason_text(r), 160));
  }
  print_oracle_footer(out, suite);
  print_plans_from_summary(out, suite);
  if (!suite.complete) fmt::print(out, "The run did not complete.\n");
}

}  // namespace dnnbench
