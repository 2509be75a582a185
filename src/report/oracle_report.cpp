#include "report/oracle_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <cmath>

namespace dnnbench {

bool graph_has_oracle(const GraphResult& graph) {
  return std::any_of(graph.results.begin(), graph.results.end(),
                     [](const RowResult& r) { return r.oracle || r.oracle_error; });
}

std::string speedup_text(const PairedDelta& d) {
  if (!d.significant) return fmt::format("~{:.2f}x (n.s.)", d.speedup);
  return fmt::format("{:.2f}x [{:.2f}, {:.2f}]", d.speedup, d.ci_lo, d.ci_hi);
}

std::string oracle_cell(const RowResult& row) {
  if (row.oracle_error) return "oracle error";
  if (!row.oracle) return "-";
  if (row.oracle_delta) return speedup_text(*row.oracle_delta);
  if (row.oracle->search == "no-search") return "no-search";
  if (row.oracle->verdict == "heuristic-best") return "=heuristic";
  return "withheld";
}

void print_oracle_details(std::ostream& out, const RowResult& r) {
  if (r.oracle_error) {
    fmt::print(out, "    Oracle: error: {}\n", *r.oracle_error);
    return;
  }
  if (!r.oracle) return;
  const auto& o = *r.oracle;
  fmt::print(
      out,
      "    Oracle: {} ({}), winner {}; heuristic plan ranked {} of {} measured ({} candidates, {} failed{}), "
      "sweep {:.1f} ms\n",
      o.search, o.verdict, o.plan_name,
      o.rank_of_heuristic_plan ? std::to_string(*o.rank_of_heuristic_plan) : "-", o.candidates_benchmarked,
      o.candidates_total, o.candidates_failed, o.budget_exhausted ? ", budget exhausted" : "",
      o.sweep_time_ms);
  if (o.screened_out > 0 || o.narrowed_out > 0)
    fmt::print(
        out,
        "      rungs: {} screened out after a few short batches, {} finalists timed briefly, {} leaders "
        "measured fully\n",
        o.screened_out, o.candidates_benchmarked - o.screened_out,
        o.candidates_benchmarked - o.screened_out - o.narrowed_out);
  for (const auto& c : o.candidates)
    fmt::print(out, "      {:<40} {}\n", c.plan_name,
               !c.measured      ? "failed: " + c.error.value_or("?")
               : c.screened_out ? fmt::format("{:.4f} ms (screened out)", c.median_ms.value_or(0))
               : !c.leader      ? fmt::format("{:.4f} ms (finalist, timed briefly)", c.median_ms.value_or(0))
                                : fmt::format("{:.4f} ms", c.median_ms.value_or(0)));
  if (r.oracle_delta) {
    const auto& d = *r.oracle_delta;
    fmt::print(out, "      paired ({} rounds{}, {}): heuristic {:.4f} ms vs oracle {:.4f} ms -> {}\n",
               d.rounds, d.converged ? "" : ", stopped at cap", d.basis, d.baseline_median_ms,
               d.oracle_median_ms, speedup_text(d));
    fmt::print(
        out,
        "      control (heuristic vs itself, same rounds): {:.3f}x [{:.3f}, {:.3f}] -> noise band ±{:.1f}%\n",
        d.control_ratio, d.control_ci_lo, d.control_ci_hi, 100 * d.noise_floor);
  }
  if (o.correctness)
    fmt::print(out, "      oracle plan check: {} (max rel {:.2e})\n",
               o.correctness->passed ? "passed" : "FAILED", o.correctness->max_rel_diff);
  if (o.delta_withheld) fmt::print(out, "      no delta: {}\n", *o.delta_withheld);
  if (const auto& c = o.other_regime) {
    fmt::print(out, "      {} regime: winner {}{}\n", c->regime, c->plan_name.empty() ? "-" : c->plan_name,
               c->winner_changed ? " — THE WINNER CHANGES WITH THE REGIME"
               : c->delta        ? " (not significantly faster there than this regime's winner)"
               : c->note         ? " (" + *c->note + ")"
                                 : " (the same plan)");
    for (const auto& [plan, ms] : c->medians) fmt::print(out, "        {:<38} {:.4f} ms\n", plan, ms);
    if (c->delta)
      fmt::print(out, "        paired in the {} regime: {} {:.4f} ms vs {} {:.4f} ms -> {}\n", c->regime,
                 o.plan_name, c->delta->baseline_median_ms, c->plan_name, c->delta->oracle_median_ms,
                 speedup_text(*c->delta));
  }
}

void print_graph_regret(std::ostream& out, const GraphResult& g) {
  for (const auto& r : g.regret) {
    if (r.delta)
      fmt::print(out, "  regret ({}): pick {} vs best {} (engine {}): {}\n", r.provider, r.pick_plan,
                 r.best_plan, r.best_engine, speedup_text(*r.delta));
    else
      fmt::print(out, "  regret ({}): pick {}: {}\n", r.provider, r.pick_plan, r.note.value_or("-"));
  }
}

void print_oracle_footer(std::ostream& out, const SuiteResult& suite) {
  struct Gap {
    std::string where;
    PairedDelta delta;
  };
  std::vector<Gap> significant;
  std::vector<std::string> regime_changes;
  std::int64_t oracle_rows = 0, regime_checked = 0;
  std::string regime, other;
  OracleResult::TimeSplit time;
  double regret_ms = 0;  // the graphs' pick-vs-best comparisons, outside every row
  for (const auto& g : suite.graphs) {
    if (const auto it = g.stage_ms.find("regret"); it != g.stage_ms.end()) regret_ms += it->second;
    for (const auto& r : g.results) {
      if (!r.oracle && !r.oracle_error) continue;
      ++oracle_rows;
      if (r.oracle && !r.oracle->regime.empty()) regime = r.oracle->regime;
      if (r.oracle) {
        const auto& t = r.oracle->time_split;
        time.build_ms += t.build_ms;
        time.screen_ms += t.screen_ms;
        time.final_ms += t.final_ms;
        time.paired_ms += t.paired_ms;
        time.replication_ms += t.replication_ms;
        time.other_regime_ms += t.other_regime_ms;
      }
      if (r.oracle && r.oracle->other_regime && !r.oracle->other_regime->plan_name.empty()) {
        ++regime_checked;
        other = r.oracle->other_regime->regime;
        if (r.oracle->other_regime->winner_changed)
          regime_changes.push_back(fmt::format("{} / {} / {}: {} {} -> {} {}", g.graph_name, r.provider,
                                               r.engine_id.value_or("-"), regime, r.oracle->plan_name, other,
                                               r.oracle->other_regime->plan_name));
      }
      if (r.oracle_delta && r.oracle_delta->significant && r.oracle_delta->speedup > 1)
        significant.push_back({fmt::format("{} / {} / {} -> {}", g.graph_name, r.provider,
                                           r.engine_id.value_or("-"), r.oracle->plan_name),
                               *r.oracle_delta});
    }
  }
  if (oracle_rows == 0) return;
  double log_sum = 0;
  for (const auto& gap : significant) log_sum += std::log(gap.delta.speedup);
  fmt::print(out, "\nOracle: {} of {} rows have a significant gap ({:.1f}%)", significant.size(), oracle_rows,
             100.0 * static_cast<double>(significant.size()) / static_cast<double>(oracle_rows));
  if (!significant.empty())
    fmt::print(out, "; geometric mean of significant speedups {:.3f}x",
               std::exp(log_sum / static_cast<double>(significant.size())));
  fmt::print(out, "\n");
  std::sort(significant.begin(), significant.end(),
            [](const Gap& a, const Gap& b) { return a.delta.speedup > b.delta.speedup; });
  for (std::size_t i = 0; i < std::min<std::size_t>(10, significant.size()); ++i)
    fmt::print(out, "  {:>2}. {}  {}\n", i + 1, speedup_text(significant[i].delta), significant[i].where);
  if (!regime.empty()) fmt::print(out, "  plans compared in the {} regime\n", regime);
  // Where the time went (the oracle at scale is bounded by these, not by the rows' own timing).
  const double total = time.build_ms + time.screen_ms + time.final_ms + time.paired_ms + time.replication_ms +
                       time.other_regime_ms;
  if (total > 0)
    fmt::print(
        out,
        "  time: {:.1f} s in all: plan builds {:.1f} s, screening {:.1f} s, finalists {:.1f} s, paired "
        "re-timing {:.1f} s, replication {:.1f} s{}{}\n",
        total / 1e3, time.build_ms / 1e3, time.screen_ms / 1e3, time.final_ms / 1e3, time.paired_ms / 1e3,
        time.replication_ms / 1e3,
        time.other_regime_ms > 0 ? fmt::format(", other regime {:.1f} s", time.other_regime_ms / 1e3) : "",
        regret_ms > 0 ? fmt::format("; and the graphs' regret (pick against best) {:.1f} s", regret_ms / 1e3)
                      : "");
  if (regime_checked > 0) {
    fmt::print(out, "  regimes: the winner changes in {} of {} rows checked in the {} regime too\n",
               regime_changes.size(), regime_checked, other);
    for (const auto& change : regime_changes) fmt::print(out, "    {}\n", change);
  }
}

}  // namespace dnnbench
