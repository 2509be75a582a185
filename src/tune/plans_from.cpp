#include "tune/plans_from.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "env/metadata.hpp"
#include "report/json_read.hpp"
#include "report/noise_model.hpp"
#include "report/tuning_db.hpp"
#include "session/plan_session.hpp"
#include "tune/oracle.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

std::optional<double> number_at(const json& object, const char* key) {
  if (object.is_object() && object.contains(key) && object[key].is_number()) return object[key].get<double>();
  return std::nullopt;
}

// The stored median of a plan (its stats, else the sweep's median) and its CI's upper end.
void stored_time(const json& plan, RetimedPlan& out) {
  const auto& stats = plan.contains("stats") ? plan["stats"] : json(nullptr);
  if (stats.is_object()) {
    out.stored_median_ms = number_at(stats, "median_ms");
    if (stats.contains("median_ci95_ms") && stats["median_ci95_ms"].is_array() &&
        stats["median_ci95_ms"].size() == 2 && stats["median_ci95_ms"][1].is_number())
      out.stored_ci_hi_ms = stats["median_ci95_ms"][1].get<double>();
  }
  if (!out.stored_median_ms) out.stored_median_ms = number_at(plan, "sweep_median_ms");
}

std::optional<bool> slower_than_stored(const RetimedPlan& plan, const Stats& today, double band) {
  if (!plan.stored_median_ms) return std::nullopt;
  return got_slower(today.median_ci_lo, plan.stored_ci_hi_ms.value_or(*plan.stored_median_ms), band);
}

RetimedPlan retime(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                   const PlanSpec& heuristic, const RunOptions& options, const RowResult& row,
                   const std::string& role, const json& stored, bool same_basis) {
  RetimedPlan out;
  out.role = role;
  out.plan_name = stored["plan_name"].get<std::string>();
  out.knobs = read_knob_list(stored["knobs"]);
  stored_time(stored, out);
  // The stored time came from another process (another run, often another day): a change must
  // clear the run-to-run noise, not only the within-run CI (report/noise_model.hpp).
  const double band = cross_run_band(row.gpu_kernel_stats.has_value(), options.oracle.min_effect);
  const auto spec = plan_spec_of(row.engine_id.value_or(""), out.knobs);
  if (spec.name() == heuristic.name()) {
    // Today's heuristic plan: its OOTB measurement is today's time; there is nothing to pair.
    out.status = "same-plan";
    const auto& today = row.gpu_kernel_stats ? row.gpu_kernel_stats : row.host_stats;
    if (today) {
      out.today_median_ms = today->median;
      if (same_basis) out.slower = slower_than_stored(out, *today, band);
    }
    return out;
  }
  try {
    // The stored plan first: a plan today's library refuses is told apart from anything else.
    PlanSession b(data, provider, stream, spec);
    b.judge_outputs(OutputRules::of(engine, options));
    PlanSession a(data, provider, stream, heuristic);
    PlanSession control(data, provider, stream, heuristic);
    std::optional<Stats> stored_plan_stats;
    out.delta = paired_between(a, b, control, stream, options, nullptr, &stored_plan_stats);
    replicate_with_fresh_instances(*out.delta, data, provider, stream, heuristic, spec, options,
                                   BuildOrder::other_first);
    out.status = "measured";
    if (stored_plan_stats) {
      out.today_median_ms = stored_plan_stats->median;
      if (same_basis) out.slower = slower_than_stored(out, *stored_plan_stats, band);
    }
  } catch (const Unsupported& e) {
    out.status = "skipped";
    out.skip_reason =
        fmt::format("{} {} cannot build the stored plan: {}", provider.name(), provider.version(), e.what());
  } catch (const std::exception& e) {
    out.status = "error";
    out.error_message = describe_exception(e);
  }
  return out;
}

}  // namespace

bool got_slower(double today_ci_lo_ms, double stored_ci_hi_ms, double min_effect) {
  return today_ci_lo_ms > stored_ci_hi_ms * (1 + min_effect);
}

void retime_stored_plans(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                         const PlanSpec& heuristic, const RunOptions& options, RowResult& row) {
  try {
    const auto& db = *options.plans_from;
    const auto records = db.find(data.content_hash(), std::string(provider.name()), engine.id, row.fp32_math,
                                 device_name_of(provider));
    if (records.empty()) return;
    const auto& record = *records.front();
    PlansFromResult p;
    p.source = db.path();
    p.stored_library_version = record["key"]["library_version"].is_string()
                                   ? record["key"]["library_version"].get<std::string>()
                                   : "?";
    p.stored_device = record["key"]["device"].get<std::string>();
    p.stored_winner = record["winner"]["plan_name"].get<std::string>();
    p.stored_heuristic = record["heuristic"]["plan_name"].get<std::string>();
    p.today_heuristic = heuristic.name();
    for (std::size_t i = 1; i < records.size(); ++i) {
      const auto other = (*records[i])["winner"]["plan_name"].get<std::string>();
      if (other != p.stored_winner && std::find(p.other_stored_winners.begin(), p.other_stored_winners.end(),
                                                other) == p.other_stored_winners.end())
        p.other_stored_winners.push_back(other);
    }
    p.heuristic_changed = p.stored_heuristic != p.today_heuristic;
    // A stored time is comparable with today's only on the same basis (kernel time or host time).
    const std::string today_basis = row.gpu_kernel_stats ? "gpu_kernel" : "host";
    const bool same_basis = record.value("basis", "") == today_basis;
    p.plans.push_back(retime(data, provider, stream, engine, heuristic, options, row, "stored-winner",
                             record["winner"], same_basis));
    if (p.stored_heuristic != p.stored_winner)
      p.plans.push_back(retime(data, provider, stream, engine, heuristic, options, row, "stored-heuristic",
                               record["heuristic"], same_basis));
    const auto& winner = p.plans.front();
    if (winner.status == "same-plan") {
      p.verdict = "heuristic-picks-tuned";
    } else if (winner.status == "skipped") {
      p.verdict = "stored-plan-skipped";
    } else if (winner.status == "error") {
      p.verdict = "stored-plan-error";
    } else {
      p.tuned_still_wins = winner.delta->significant && winner.delta->speedup > 1;
      p.verdict = *p.tuned_still_wins ? "tuned-still-wins" : "no-longer-wins";
    }
    row.plans_from = std::move(p);
  } catch (const std::exception& e) {
    PlansFromResult p;
    p.source = options.plans_from->path();
    p.verdict = "stored-plan-error";
    RetimedPlan failed;
    failed.role = "stored-winner";
    failed.status = "error";
    failed.error_message = describe_exception(e);
    p.plans.push_back(std::move(failed));
    row.plans_from = std::move(p);
  }
}

}  // namespace dnnbench
