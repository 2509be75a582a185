#include "report/compare_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include "report/csv.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

std::string ms(const std::optional<double>& v) {
  return v ? fmt::format("{:.5f}", *v) : "-";
}

std::string ratio_text(const std::optional<TimeRatio>& r) {
  return r ? fmt::format("{:.3f} [{:.3f}, {:.3f}]", r->ratio, r->ci_lo, r->ci_hi) : "-";
}

std::string verdict_text(const ComparedRow& row) {
  if (row.verdict) return std::string(verdict_name(*row.verdict));
  return row.broken ? "BROKEN" : "-";
}

// The band the verdict had to clear and the noise that set it, e.g. "±5.0% iqr-floor".
std::string band_text(const ComparedRow& row) {
  return row.verdict ? fmt::format("±{:.1f}% {}", 100 * row.band, row.noise_source) : "-";
}

std::string engines(const std::string& a, const std::string& b) {
  return a == b ? a : (a.empty() ? "-" : a) + " -> " + (b.empty() ? "-" : b);
}

std::string rank_text(const std::optional<int>& rank, int of) {
  return rank ? fmt::format("{}/{}", *rank, of) : fmt::format("-/{}", of);
}

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

json ratio_json(const std::optional<TimeRatio>& r) {
  if (!r) return nullptr;
  return {{"ratio", r->ratio}, {"ci95", {r->ci_lo, r->ci_hi}}, {"method", r->method}};
}

json rank_json(const std::optional<int>& r) {
  return r ? json(*r) : json(nullptr);
}

}  // namespace

void print_comparison(std::ostream& out, const Comparison& c) {
  fmt::print(out, "A: {}\nB: {}\ncompared by {}; ratio = B time / A time (> 1: B slower), 95% CI\n", c.path_a,
             c.path_b, compare_by_name(c.by));
  if (c.differences.empty()) {
    fmt::print(out,
               "Conditions: identical (device, clocks, libraries, options, cache mode, timing method)\n");
  } else {
    fmt::print(out, "Conditions that differ:\n");
    for (const auto& d : c.differences)
      fmt::print(out, "  {}{}: {}  ->  {}\n", d.condition,
                 d.invalidating ? " (INVALIDATES the comparison)"
                 : d.machine    ? " (MACHINE: times may differ for reasons outside the code)"
                                : "",
                 d.a, d.b);
  }
  fmt::print(out, "\n{:<40} {:<10} {:<28} {:>11} {:>11}  {:<27} {:<9} {}\n", "graph", "provider", "engine",
             "A ms", "B ms", "B/A [95% CI]", "verdict", "noise band");
  for (const auto& row : c.rows) {
    fmt::print(out, "{:<40} {:<10} {:<28} {:>11} {:>11}  {:<27} {:<9} {}{}\n", row.graph, row.provider,
               engines(row.engine_a, row.engine_b), ms(row.median_a_ms), ms(row.median_b_ms),
               ratio_text(row.ratio), verdict_text(row), band_text(row),
               row.note.empty() ? "" : "  " + row.note);
  }
  if (!c.library_view.empty()) {
    fmt::print(out, "\nLibrary-version view ({}): the heuristic's top pick per graph\n",
               fmt::format("{}", fmt::join(c.version_changes, ", ")));
    fmt::print(out, "{:<40} {:<8} {:<28} {:>7} {:>7} {:<28} {:<27} {}\n", "graph", "provider", "pick A -> B",
               "rank A", "rank B", "best A -> B", "pick B/A [95% CI]", "verdict");
    for (const auto& p : c.library_view)
      fmt::print(out, "{:<40} {:<8} {:<28} {:>7} {:>7} {:<28} {:<27} {}{}{}\n", p.graph, p.provider,
                 engines(p.pick_a, p.pick_b), rank_text(p.rank_a, p.engines_a),
                 rank_text(p.rank_b, p.engines_b), engines(p.best_a, p.best_b), ratio_text(p.pick_ratio),
                 p.pick_verdict ? verdict_name(*p.pick_verdict) : "-",
                 !p.pick_changed        ? ""
                 : p.pick_a == p.pick_b ? "  plan changed (same engine, other knobs)"
                                        : "  pick changed",
                 p.best_changed ? "  best changed" : "");
  }
  if (!c.workload_diff.empty()) print_workload_diff(out, c.workload_diff);
  fmt::print(out, "\n{} compared: {} FASTER, {} SLOWER, {} SAME, {} UNDECIDED, {} broken in B\n",
             c.rows.size(), c.faster, c.slower, c.same, c.undecided, c.broken);
  if (const auto sources = c.noise_sources(); !sources.empty()) {
    std::vector<std::string> parts;
    for (const auto& [source, n] : sources) parts.push_back(fmt::format("{} {}", n, source));
    const int judged = c.faster + c.slower + c.same + c.undecided;
    fmt::print(out, "Noise bands set by: {}; UNDECIDED {:.1f}% of {} judged\n", fmt::join(parts, ", "),
               judged ? 100.0 * c.undecided / judged : 0.0, judged);
    if (const auto it = sources.find("host-sync"); it != sources.end())
      fmt::print(out,
                 "{} row(s) UNDECIDED (host-sync): the two runs measured them while the machine's thread "
                 "synchronization differed (a VM's vCPUs); re-run, or measure with OMP_NUM_THREADS=1\n",
                 it->second);
    if (const auto it = sources.find("core-state"); it != sources.end())
      fmt::print(out,
                 "{} row(s) UNDECIDED (core-state): the two runs measured them on differently free cores (a "
                 "VM's host sharing or down-clocking them; timing.core_state); re-run\n",
                 it->second);
  }
  if (!c.only_in_a.empty() || !c.only_in_b.empty())
    fmt::print(out, "Not joined: {} row(s) only in A, {} only in B\n", c.only_in_a.size(),
               c.only_in_b.size());
  if (c.geomean_ratio)
    fmt::print(out, "Geomean B/A time: {:.4f} (B is {:.2f}x as fast as A)\n", *c.geomean_ratio,
               1 / *c.geomean_ratio);
  if (c.suite_band)
    fmt::print(out,
               "Run-to-run spread of the whole comparison: ±{:.1f}% (3 robust σ of the rows' log ratios; "
               "a row's band is at least this)\n",
               100 * *c.suite_band);
  const auto regressions = c.regressions();
  fmt::print(out, "Regressions: {}\n", regressions.size());
  for (const auto* r : regressions)
    fmt::print(out, "  {} {} {}: {}\n", r->graph, r->provider, engines(r->engine_a, r->engine_b),
               r->broken ? "broken in B (" + r->note + ")"
                         : fmt::format("{:.1f}% slower", 100 * (r->ratio->ratio - 1)));
}

json comparison_to_json(const Comparison& c) {
  json differences = json::array();
  for (const auto& d : c.differences)
    differences.push_back({{"condition", d.condition},
                           {"a", d.a},
                           {"b", d.b},
                           {"invalidating", d.invalidating},
                           {"machine", d.machine}});
  json rows = json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"graph", r.graph},
                    {"graph_key", r.graph_key},
                    {"provider", r.provider},
                    {"engine_a", r.engine_a},
                    {"engine_b", r.engine_b},
                    {"plan_a", r.plan_a},
                    {"plan_b", r.plan_b},
                    {"basis", r.basis},
                    {"median_a_ms", opt(r.median_a_ms)},
                    {"median_b_ms", opt(r.median_b_ms)},
                    {"ratio", ratio_json(r.ratio)},
                    {"noise_band", r.band},
                    {"noise_source", r.verdict ? json(r.noise_source) : json(nullptr)},
                    {"verdict", r.verdict ? json(verdict_name(*r.verdict)) : json(nullptr)},
                    {"broken", r.broken},
                    {"regression", r.regression()},
                    {"note", r.note}});
  json view = json::array();
  for (const auto& p : c.library_view)
    view.push_back({{"graph", p.graph},
                    {"provider", p.provider},
                    {"pick_a", p.pick_a},
                    {"pick_b", p.pick_b},
                    {"pick_changed", p.pick_changed},
                    {"rank_a", rank_json(p.rank_a)},
                    {"rank_b", rank_json(p.rank_b)},
                    {"engines_a", p.engines_a},
                    {"engines_b", p.engines_b},
                    {"best_a", p.best_a},
                    {"best_b", p.best_b},
                    {"best_changed", p.best_changed},
                    {"pick_ratio", ratio_json(p.pick_ratio)},
                    {"pick_verdict", p.pick_verdict ? json(verdict_name(*p.pick_verdict)) : json(nullptr)}});
  json regressions = json::array();
  for (const auto* r : c.regressions())
    regressions.push_back({{"graph", r->graph},
                           {"provider", r->provider},
                           {"engine_a", r->engine_a},
                           {"engine_b", r->engine_b},
                           {"broken", r->broken},
                           {"ratio", r->ratio ? json(r->ratio->ratio) : json(nullptr)},
                           {"note", r->note}});
  return {{"a", c.path_a},
          {"b", c.path_b},
          {"by", compare_by_name(c.by)},
          {"invalid", c.invalid()},
          {"machine_conditions_differ", c.disturbed()},
          {"differences", differences},
          {"summary",
           {{"rows", c.rows.size()},
            {"faster", c.faster},
            {"slower", c.slower},
            {"same", c.same},
            {"undecided", c.undecided},
            {"broken", c.broken},
            {"only_in_a", c.only_in_a.size()},
            {"only_in_b", c.only_in_b.size()},
            {"geomean_ratio", opt(c.geomean_ratio)},
            {"noise_sources", c.noise_sources()},
            {"suite_spread_band", opt(c.suite_band)},
            {"regressions", regressions.size()}}},
          {"regressions", regressions},
          {"rows", rows},
          {"version_changes", c.version_changes},
          {"library_view", view},
          {"workload_diff", workload_diff_to_json(c.workload_diff)}};
}

void write_comparison_csv(std::ostream& out, const Comparison& c) {
  write_csv_line(out, {"graph", "graph_key", "provider", "engine_a", "engine_b", "plan_a", "plan_b", "basis",
                       "median_a_ms", "median_b_ms", "ratio", "ci_lo", "ci_hi", "method", "noise_band",
                       "noise_source", "verdict", "regression", "note"});
  for (const auto& r : c.rows)
    write_csv_line(out, {r.graph, r.graph_key, r.provider, r.engine_a, r.engine_b, r.plan_a, r.plan_b,
                         r.basis, csv_number(r.median_a_ms), csv_number(r.median_b_ms),
                         csv_number(r.ratio ? std::optional(r.ratio->ratio) : std::nullopt),
                         csv_number(r.ratio ? std::optional(r.ratio->ci_lo) : std::nullopt),
                         csv_number(r.ratio ? std::optional(r.ratio->ci_hi) : std::nullopt),
                         r.ratio ? r.ratio->method : "", csv_number(r.band), r.noise_source, verdict_text(r),
                         r.regression() ? "true" : "false", r.note});
}

}  // namespace dnnbench
