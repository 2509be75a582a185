#include "report/tuning_report.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "report/oracle_report.hpp"

namespace dnnbench {
namespace {

const RetimedPlan* plan_of(const PlansFromResult& p, std::string_view role) {
  for (const auto& plan : p.plans)
    if (plan.role == role) return &plan;
  return nullptr;
}

std::string retimed_cell(const RetimedPlan* plan) {
  if (!plan) return "-";
  if (plan->status == "same-plan") return "= today's heuristic";
  if (plan->status == "skipped") return "skipped";
  if (plan->status == "error") return "error";
  return plan->delta ? speedup_text(*plan->delta) : "-";
}

std::string slower_text(const RetimedPlan* plan) {
  if (!plan || !plan->slower) return "";
  return *plan->slower
             ? fmt::format(" ({} slower than stored)", plan->role == "stored-winner" ? "winner" : "heuristic")
             : "";
}

}  // namespace

void print_plans_from_lines(std::ostream& out, const GraphResult& g) {
  for (const auto& r : g.results) {
    if (!r.plans_from) continue;
    const auto& p = *r.plans_from;
    const auto* winner = plan_of(p, "stored-winner");
    fmt::print(out, "  plans-from ({} / {}): stored winner {} vs today's heuristic {}: {} -> {}{}{}{}\n",
               r.provider, r.engine_id.value_or("-"), p.stored_winner, p.today_heuristic,
               retimed_cell(winner), p.verdict,
               p.heuristic_changed ? fmt::format("; heuristic changed (was {})", p.stored_heuristic) : "",
               slower_text(winner), slower_text(plan_of(p, "stored-heuristic")));
    if (winner && winner->skip_reason) fmt::print(out, "    skipped: {}\n", *winner->skip_reason);
  }
}

void print_plans_from_details(std::ostream& out, const RowResult& r) {
  if (!r.plans_from) return;
  const auto& p = *r.plans_from;
  fmt::print(out, "    Plans from {} ({} on {}): verdict {}\n", p.source, p.stored_library_version,
             p.stored_device, p.verdict);
  for (const auto& plan : p.plans) {
    fmt::print(out, "      {:<16} {:<40} {}", plan.role, plan.plan_name, plan.status);
    if (plan.delta)
      fmt::print(out, ": today's heuristic {:.4f} ms vs {:.4f} ms -> {}", plan.delta->baseline_median_ms,
                 plan.delta->oracle_median_ms, speedup_text(*plan.delta));
    if (plan.stored_median_ms && plan.today_median_ms)
      fmt::print(out, "; stored {:.4f} ms, today {:.4f} ms{}", *plan.stored_median_ms, *plan.today_median_ms,
                 plan.slower && *plan.slower ? " (SLOWER)" : "");
    if (plan.skip_reason) fmt::print(out, ": {}", *plan.skip_reason);
    if (plan.error_message) fmt::print(out, ": {}", *plan.error_message);
    fmt::print(out, "\n");
  }
  if (!p.other_stored_winners.empty())
    fmt::print(out, "      other stored winners (conflicting records): {}\n",
               fmt::join(p.other_stored_winners, ", "));
}

void print_profile_details(std::ostream& out, const RowResult& r) {
  if (!r.profile) return;
  const auto& p = *r.profile;
  if (p.error) {
    fmt::print(out, "    Profile ({}): error: {}\n", p.tool, *p.error);
    return;
  }
  fmt::print(out, "    Profile ({}{}, {} executions): {}\n", p.tool,
             p.sections.empty() ? "" : ":" + fmt::format("{}", fmt::join(p.sections, ",")), p.executions,
             p.report_path.value_or("-"));
  const auto pct = [](const std::optional<double>& v) {
    return v ? fmt::format("{:.1f}", *v) : std::string("-");
  };
  fmt::print(out, "      {:>10} {:>5} {:>6} {:>6} {:>6} {:>5} {:>9} {:>16} {:>14}  {}\n", "ms", "x", "SM%",
             "DRAM%", "occ%", "regs", "smem", "grid", "block", "kernel");
  for (const auto& k : p.kernels)
    fmt::print(out, "      {:>10.4f} {:>5} {:>6} {:>6} {:>6} {:>5} {:>9} {:>16} {:>14}  {}\n", k.duration_ms,
               k.launches, pct(k.sm_throughput_pct), pct(k.dram_throughput_pct),
               pct(k.achieved_occupancy_pct),
               k.registers_per_thread ? std::to_string(*k.registers_per_thread) : "-",
               k.shared_memory_bytes ? std::to_string(*k.shared_memory_bytes) : "-",
               fmt::format("{}x{}x{}", k.grid[0], k.grid[1], k.grid[2]),
               fmt::format("{}x{}x{}", k.block[0], k.block[1], k.block[2]), k.name.substr(0, 80));
  if (p.kernel_sum_ms && p.ratio_to_cupti && r.kernel_sum_stats)
    fmt::print(out, "      kernel sum: ncu {:.4f} ms vs CUPTI {:.4f} ms ({:+.1f}%)\n", *p.kernel_sum_ms,
               r.kernel_sum_stats->median, 100 * (*p.ratio_to_cupti - 1));
  if (p.sm_frequency_mhz)
    fmt::print(out, "      SM clock: ncu's kernels ran at {:.0f} MHz; the row's samples at {}\n",
               *p.sm_frequency_mhz,
               p.row_sm_mhz ? fmt::format("{:.0f} MHz", *p.row_sm_mhz) : std::string("(not read)"));
  if (p.same_kernels_as_row && !*p.same_kernels_as_row)
    fmt::print(out, "      NOT the row's kernels: ncu profiled {}; the row ran {}\n",
               p.kernels_not_in_row.empty() ? "a subset of them"
                                            : fmt::format("{}", fmt::join(p.kernels_not_in_row, ", ")),
               r.kernels.size() == 1 ? r.kernels.front().name : fmt::format("{} kernels", r.kernels.size()));
}

void print_plans_from_summary(std::ostream& out, const SuiteResult& suite) {
  bool any = false;
  for (const auto& g : suite.graphs)
    for (const auto& r : g.results) any = any || r.plans_from.has_value();
  if (!any) return;
  fmt::print(out, "\nPlans from the tuning file: stored winner vs today's pick\n");
  fmt::print(out, "  {:<28} {:<10} {:<28} {:<28} {:>24} {:<22} {}\n", "graph", "engine", "stored winner",
             "today's heuristic", "winner vs today [95% CI]", "verdict", "notes");
  for (const auto& g : suite.graphs)
    for (const auto& r : g.results) {
      if (!r.plans_from) continue;
      const auto& p = *r.plans_from;
      const auto* winner = plan_of(p, "stored-winner");
      std::string notes;
      if (p.heuristic_changed) notes += "heuristic changed (was " + p.stored_heuristic + ")";
      for (const auto* plan : {winner, plan_of(p, "stored-heuristic")})
        if (plan && plan->slower && *plan->slower) {
          // Slower than the same plan was when the file was made: a regression of the library
          // (or the machine), apart from which of today's plans wins.
          notes += (notes.empty() ? "" : "; ") + plan->role + " slower than in the file";
          if (plan->stored_median_ms && plan->today_median_ms)
            notes += fmt::format(" ({:.4f} -> {:.4f} ms)", *plan->stored_median_ms, *plan->today_median_ms);
        }
      fmt::print(out, "  {:<28} {:<10} {:<28} {:<28} {:>24} {:<22} {}\n", g.graph_name.substr(0, 28),
                 r.engine_id.value_or("-").substr(0, 10), p.stored_winner.substr(0, 28),
                 p.today_heuristic.substr(0, 28), retimed_cell(winner), p.verdict, notes);
    }
}

}  // namespace dnnbench
