#include "tune/oracle.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "graph/errors.hpp"
#include "measure/host_timer.hpp"
#include "measure/paired.hpp"
#include "session/plan_session.hpp"

namespace dnnbench {
namespace {

PlanSpec to_spec(const PlanRef& ref) {
  return plan_spec_of(ref.engine_id, ref.knobs);
}

struct SweepEntry {
  PlanSpec spec;
  OracleCandidate candidate;
  Stats stats;
};

// Builds, warms and briefly measures one candidate; failures are recorded, never thrown.
SweepEntry sweep_one(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& spec,
                     const RunOptions& options) {
  SweepEntry e{
      spec,
      {spec.name(), false, knob_pairs(spec), std::nullopt, std::nullopt, std::nullopt, false, false, false},
      {}};
  try {
    PlanSession session(data, provider, stream, spec);
    session.set_regime(options.measure.regime);
    session.warm_up(std::max<std::int64_t>(1, options.warmup));
    AdaptiveMedianRule rule(options.oracle.sweep);
    const auto m = session.measure(rule, false);
    e.stats = m.primary();
    e.candidate.measured = true;
    e.candidate.median_ms = e.stats.median;
  } catch (const std::exception& ex) {
    e.candidate.error = describe_exception(ex);
  }
  return e;
}

// The sweep in up to three rungs (successive halving), each on the plan instances built for the
// first (built once):
//  1. screening: every candidate built, warmed and timed with a few short batches
//     (kShortBatchMs); ranks, not figures. Most of a large plan space is several times slower
//     than its best plans, which a millisecond of executions shows.
//  2. finalists: the fastest few (kFinalistsMin..kFinalistsMax, a quarter of the space) and the
//     heuristic plan, timed again in short batches to a tighter interval (finalist_limits).
//  3. leaders: the kLeaders fastest finalists and the heuristic plan, measured to the sweep's
//     precision in the regime's own batches; the winner is chosen among them, and the paired
//     re-timing then compares it with the heuristic plan in that regime.
// A space no larger than the finalists skips the screening; one no larger than the leaders is
// measured fully in one rung. The full measurement is spent where ranks are close.
constexpr std::size_t kFinalistsMin = 3;
constexpr std::size_t kFinalistsMax = 8;
constexpr std::size_t kLeaders = 2;

std::size_t finalist_count(std::size_t space) {
  return std::clamp<std::size_t>((space + 3) / 4, kFinalistsMin, kFinalistsMax);
}

// The first two rungs' batches: 1 ms of back-to-back executions, not the regime's 10 ms. Under
// the H200's power cap the gaps between such batches let the clock rise a little, for every plan
// alike; that ranks hold is assumed (docs/oracle.md), and bounded: the leaders are timed in the
// regime's own batches and the winner paired against the heuristic plan. A ten times shorter
// batch is also a ten times shorter CUDA graph to capture per candidate. Measured:
// a first version that timed the finalists in 10 ms batches
// spent more on their second capture and samples than the short screening saved.
constexpr double kShortBatchMs = 1.0;

// Screening: 3 to 20 short batches, an eighth of the sweep's time cap.
AdaptiveLimits screen_limits(const AdaptiveLimits& sweep) {
  return {std::max(sweep.target_ci_rel, 0.05), 3, std::min(sweep.min_time_ms, 2.0), 20,
          std::max(1.0, sweep.max_time_ms / 8)};
}

// Finalists: 5 to 40 short batches to the sweep's interval, a quarter of its time cap: enough to
// pick the leaders, whose figures the full measurement then gives.
AdaptiveLimits finalist_limits(const AdaptiveLimits& sweep) {
  return {sweep.target_ci_rel, 5, std::min(sweep.min_time_ms, 5.0), 40, std::max(1.0, sweep.max_time_ms / 4)};
}

// A plan whose warm-up execution takes kHopelessFactor times the heuristic plan's median cannot
// win; measuring it would cost its batch probe (8 executions) and its samples. On the H200 one
// cuDNN plan of an EfficientNet convolution took 2.6 s an execution against the heuristic plan's
// 14 ms, and 33 s of screening. It is judged on the faster of its
// first two executions (the first may load modules), by host time: above kHopelessFloorMs the
// launch and the synchronization are a few percent of it, so the kernel time is far behind too.
constexpr double kHopelessFactor = 4;
constexpr double kHopelessFloorMs = 1;

bool hopeless(double execution_ms, double heuristic_median_ms) {
  return execution_ms >= kHopelessFloorMs && execution_ms >= kHopelessFactor * heuristic_median_ms;
}

// The warm-up of a candidate after the heuristic plan: `executions` in all, stopped after two
// when the plan is hopeless. Returns the fastest execution's host time, ms.
double warm_up_unless_hopeless(PlanSession& session, std::int64_t executions, double heuristic_median_ms) {
  double fastest = session.warm_up(1);
  for (std::int64_t i = 1; i < executions; ++i) {
    fastest = std::min(fastest, session.warm_up(1));
    if (hopeless(fastest, heuristic_median_ms)) break;
  }
  return fastest;
}

// A plan instance kept between the rungs.
struct Contender {
  PlanSpec spec;
  std::size_t candidate;  // index in OracleResult::candidates
  std::unique_ptr<PlanSession> session;
  Stats stats;  // the latest rung's
};

// The slowest contender by its latest rung's median, never the heuristic plan (first).
std::vector<Contender>::iterator slowest_after_heuristic(std::vector<Contender>& alive) {
  return std::max_element(alive.begin() + 1, alive.end(), [](const Contender& x, const Contender& y) {
    return x.stats.median < y.stats.median;
  });
}

// Instances of one plan on the H200 differed by up to 0.18 us per execution on 1.5-8 us kernels
// (the A/A over graphs/samples): 6% of a 1.5 us kernel, beyond what
// one control instance showed in 12 of 68 rows. Above ~20 us kernels min_effect rules.
constexpr double kDeviceInstanceFloorMs = 0.0002;
constexpr std::int64_t kDeviceMinRounds = 12;

PairedLimits paired_limits(const RunOptions& options, bool device_timed) {
  PairedLimits limits;
  limits.target_ci_rel = options.adaptive.target_ci_rel;
  limits.min_effect = options.oracle.min_effect;
  if (device_timed) {
    limits.min_effect_ms = kDeviceInstanceFloorMs;
    // Kernel times (CUPTI, per 10 ms batch) are steady enough that 12 rounds (two cycles of the
    // six orders) usually meet the 1% target: on the H200 the oracle's comparisons stopped at
    // their first judgement, 24 rounds, in 40 of 44 rows, their bootstrap CIs a median ±0.1% wide;
    // those rounds were half of the oracle's time. Host-timed
    // rounds keep the default minimum: a load burst spans several of them.
    limits.min_rounds = kDeviceMinRounds;
  }
  limits.max_time_ms = 4500;  // three arms (baseline, oracle, control) share it
  return limits;
}

// The sweep's leading plans timed again in the other regime (--oracle-regimes both): its top
// kRegimeCandidates, the heuristic plan and the winner. When another plan wins there, it is
// compared with this regime's winner paired, in that regime, replicated like the oracle's delta.
constexpr std::size_t kRegimeCandidates = 3;

OracleResult::RegimeCheck check_other_regime(GraphData& data, Provider& provider, Stream& stream,
                                             const std::vector<SweepEntry>& ranked, const PlanSpec& heuristic,
                                             const PlanSpec& winner, const RunOptions& options) {
  RunOptions other = options;
  other.measure.regime = other_regime(options.measure.regime);
  OracleResult::RegimeCheck check;
  check.regime = std::string(regime_name(other.measure.regime));
  std::vector<PlanSpec> specs;
  const auto add = [&](const PlanSpec& s) {
    if (std::none_of(specs.begin(), specs.end(), [&](const PlanSpec& t) { return t.name() == s.name(); }))
      specs.push_back(s);
  };
  for (std::size_t k = 0; k < std::min(kRegimeCandidates, ranked.size()); ++k) add(ranked[k].spec);
  add(heuristic);
  add(winner);
  std::vector<SweepEntry> again;
  for (const auto& spec : specs) {
    auto entry = sweep_one(data, provider, stream, spec, other);
    if (entry.candidate.measured) again.push_back(std::move(entry));
  }
  std::stable_sort(again.begin(), again.end(),
                   [](const SweepEntry& x, const SweepEntry& y) { return x.stats.median < y.stats.median; });
  for (const auto& e : again) check.medians.emplace_back(e.spec.name(), e.stats.median);
  const auto kept = std::find_if(again.begin(), again.end(),
                                 [&](const SweepEntry& e) { return e.spec.name() == winner.name(); });
  if (again.empty() || kept == again.end()) {
    check.note = "this regime's winner could not be measured in the other regime";
    return check;
  }
  const SweepEntry* best = &again.front();
  // As in the sweep: a plan inside the incumbent's noise is a tie, and the incumbent stays.
  if (best->stats.median_ci_hi >= kept->stats.median_ci_lo) best = &*kept;
  check.plan_name = best->spec.name();
  if (check.plan_name == winner.name()) return check;
  auto delta = paired_delta(data, provider, stream, winner, best->spec, other, nullptr, nullptr);
  replicate_with_fresh_instances(delta, data, provider, stream, winner, best->spec, other);
  check.winner_changed = delta.significant && delta.speedup > 1;
  check.delta = delta;
  return check;
}

}  // namespace

std::string describe_exception(const std::exception& e) {
  if (dynamic_cast<const Unsupported*>(&e)) return std::string("Unsupported: ") + e.what();
  if (dynamic_cast<const InputError*>(&e)) return std::string("InputError: ") + e.what();
  if (dynamic_cast<const std::bad_alloc*>(&e)) return std::string("OutOfMemory: ") + e.what();
  if (dynamic_cast<const std::invalid_argument*>(&e)) return std::string("InvalidArgument: ") + e.what();
  return std::string("Error: ") + e.what();
}

std::vector<std::pair<std::string, std::string>> knob_pairs(const PlanSpec& spec) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& k : spec.knobs) out.emplace_back(k.name, k.value);
  return out;
}

PlanSpec plan_spec_of(const std::string& engine_id,
                      const std::vector<std::pair<std::string, std::string>>& knobs) {
  PlanSpec spec{engine_id, {}};
  for (const auto& [name, value] : knobs) spec.knobs.push_back({name, value});
  return spec;
}

PairedDelta paired_between(PlanSession& a, PlanSession& b, PlanSession& control, Stream& stream,
                           const RunOptions& options, std::optional<Stats>* baseline_stats,
                           std::optional<Stats>* other_stats) {
  // One regime for all three: a plan's rank can change with it (a plan that wins cool can lose
  // at the power cap).
  for (PlanSession* s : {&a, &b, &control}) s->set_regime(options.measure.regime);
  // All warm before the first timed round, so warm-up is never counted as a speedup.
  const auto warm = std::max<std::int64_t>(1, options.warmup);
  a.warm_up(warm);
  b.warm_up(warm);
  control.warm_up(warm);
  const bool device_timed = stream.make_kernel_timer() != nullptr;
  const auto paired = run_paired([&] { return a.sample(); }, [&] { return b.sample(); },
                                 paired_limits(options, device_timed), [&] { return control.sample(); });
  PairedDelta d;
  d.basis = device_timed ? "gpu_kernel" : "host";
  d.baseline_median_ms = paired.a.median;
  d.oracle_median_ms = paired.b.median;
  d.speedup = paired.ratio;
  d.ci_lo = paired.ci_lo;
  d.ci_hi = paired.ci_hi;
  d.significant = paired.significant;
  d.control_ratio = paired.control_ratio;
  d.control_ci_lo = paired.control_ci_lo;
  d.control_ci_hi = paired.control_ci_hi;
  d.noise_floor = paired.noise_floor;
  d.rounds = paired.rounds;
  d.converged = paired.converged;
  d.method = "interleaved rounds cycling the six orders of baseline, oracle and control; " + paired.method;
  if (baseline_stats) *baseline_stats = paired.a;
  if (other_stats) *other_stats = paired.b;
  return d;
}

void replicate_if_significant(PairedDelta& delta, const std::function<PairedDelta()>& again) {
  if (!delta.significant) return;
  const auto second = again();
  PairedDelta::Replication r{second.speedup, second.ci_lo, second.ci_hi, false};
  r.significant = second.significant && (second.speedup > 1) == (delta.speedup > 1);
  delta.replication = r;
  delta.significant = r.significant;
}

PairedDelta paired_delta(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& baseline,
                         const PlanSpec& other, const RunOptions& options,
                         std::optional<Stats>* baseline_stats, std::optional<Stats>* other_stats,
                         BuildOrder order) {
  std::unique_ptr<PlanSession> a, b;
  if (order == BuildOrder::other_first) b = std::make_unique<PlanSession>(data, provider, stream, other);
  a = std::make_unique<PlanSession>(data, provider, stream, baseline);
  if (!b) b = std::make_unique<PlanSession>(data, provider, stream, other);
  PlanSession control(data, provider, stream, baseline);
  return paired_between(*a, *b, control, stream, options, baseline_stats, other_stats);
}

void replicate_with_fresh_instances(PairedDelta& delta, GraphData& data, Provider& provider, Stream& stream,
                                    const PlanSpec& baseline, const PlanSpec& other,
                                    const RunOptions& options, BuildOrder first) {
  const auto again =
      first == BuildOrder::baseline_first ? BuildOrder::other_first : BuildOrder::baseline_first;
  replicate_if_significant(delta, [&] {
    return paired_delta(data, provider, stream, baseline, other, options, nullptr, nullptr, again);
  });
}

void run_oracle(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                const PlanSpec& heuristic, const RunOptions& options, RowResult& row) {
  try {
    const auto& graph = data.graph();
    OracleResult o;
    o.regime = std::string(regime_name(options.measure.regime));
    HostTimer sweep_timer;
    std::vector<PlanSpec> space;
    if (options.oracle.aa_self_check) {
      space = {heuristic};
      o.search = "aa-self-check";
    } else {
      space = provider.plan_space(graph, engine, SweepLimits{options.oracle.max_plans});
      const auto is_heuristic = [&](const PlanSpec& s) { return s.name() == heuristic.name(); };
      // The heuristic plan is always a candidate, first, so that its rank is known.
      space.erase(std::remove_if(space.begin(), space.end(), is_heuristic), space.end());
      space.insert(space.begin(), heuristic);
      o.search = space.size() > 1 ? "searched" : "no-search";
    }
    o.candidates_total = static_cast<std::int64_t>(space.size());

    // Rungs (see finalist_count): which this space takes.
    const bool screened = space.size() > finalist_count(space.size()) + 1;
    const bool narrowed = std::min(space.size(), finalist_count(space.size()) + 1) > kLeaders + 1;
    const auto first_rung = screened   ? screen_limits(options.oracle.sweep)
                            : narrowed ? finalist_limits(options.oracle.sweep)
                                       : options.oracle.sweep;
    const double first_batch_ms =
        screened || narrowed ? kShortBatchMs : PlanSession::default_batch_target_ms();
    std::vector<Contender> alive;  // the heuristic plan (first) and the fastest so far
    // The medians of plans a rung left behind, beside the heuristic plan's in that rung: its rank
    // counts those that were faster than it there.
    std::int64_t ahead_of_heuristic = 0;
    std::optional<double> heuristic_median_ms;  // its first rung's, once measured
    const auto drop = [&](std::vector<Contender>::iterator it) {
      if (it->stats.median < alive.front().stats.median) ++ahead_of_heuristic;
      alive.erase(it);
    };
    for (std::size_t i = 0; i < space.size(); ++i) {
      // The heuristic plan (first) is always measured: the budget bounds the search around it.
      if (i > 0 && (static_cast<int>(i) >= options.oracle.max_plans ||
                    sweep_timer.elapsed_ms() > options.oracle.max_seconds * 1e3)) {
        o.budget_exhausted = true;
        break;
      }
      OracleCandidate candidate{space[i].name(), false,        knob_pairs(space[i]),
                                std::nullopt,    std::nullopt, std::nullopt,
                                false,           false,        false};
      try {
        HostTimer build_timer;
        auto session = std::make_unique<PlanSession>(data, provider, stream, space[i]);
        o.time_split.build_ms += build_timer.elapsed_ms();
        HostTimer measure_timer;
        session->set_regime(options.measure.regime);
        session->set_batch_target_ms(first_batch_ms);
        const auto warm = std::max<std::int64_t>(2, options.warmup);
        if (heuristic_median_ms) {
          const double fastest = warm_up_unless_hopeless(*session, warm, *heuristic_median_ms);
          o.time_split.screen_ms += measure_timer.elapsed_ms();
          if (hopeless(fastest, *heuristic_median_ms)) {
            candidate.measured = true;
            candidate.median_ms = candidate.screen_median_ms = fastest;
            candidate.screened_out = true;
            ++o.screened_out;
            o.candidates.push_back(std::move(candidate));
            continue;
          }
          measure_timer.restart();
        } else {
          session->warm_up(warm);
        }
        AdaptiveMedianRule rule(first_rung);
        const auto stats = session->measure(rule, false).primary();
        o.time_split.screen_ms += measure_timer.elapsed_ms();
        candidate.measured = true;
        candidate.median_ms = stats.median;
        if (screened) candidate.screen_median_ms = stats.median;
        candidate.finalist = !screened && narrowed;
        candidate.leader = !screened && !narrowed;
        if (i == 0) heuristic_median_ms = stats.median;
        alive.push_back({space[i], o.candidates.size(), std::move(session), stats});
      } catch (const std::exception& ex) {
        candidate.error = describe_exception(ex);
        ++o.candidates_failed;
      }
      o.candidates.push_back(std::move(candidate));
      // Past the finalists, the slowest screened plan (never the heuristic's) lets its instance go.
      if (screened && alive.size() > finalist_count(space.size()) + 1) {
        const auto slowest = slowest_after_heuristic(alive);
        o.candidates[slowest->candidate].screened_out = true;
        ++o.screened_out;
        drop(slowest);
      }
    }
    o.candidates_benchmarked = static_cast<std::int64_t>(o.candidates.size()) - o.candidates_failed;
    if (alive.empty() || alive.front().spec.name() != heuristic.name())
      throw std::runtime_error("the heuristic plan failed in the sweep: " +
                               (o.candidates.empty()
                                    ? std::string("the sweep budget ran out before it")
                                    : o.candidates.front().error.value_or("no measurement")));
    HostTimer final_timer;
    // Second rung: the finalists timed again, still in short batches.
    if (screened) {
      for (auto& c : alive) {
        AdaptiveMedianRule rule(finalist_limits(options.oracle.sweep));
        c.stats = c.session->measure(rule, false).primary();
        o.candidates[c.candidate].median_ms = c.stats.median;
        o.candidates[c.candidate].finalist = true;
      }
    }
    // Third rung: the leaders (and the heuristic plan) measured to the sweep's precision.
    if (narrowed) {
      while (alive.size() > kLeaders + 1) {
        drop(slowest_after_heuristic(alive));
        ++o.narrowed_out;
      }
      for (auto& c : alive) {
        c.session->set_batch_target_ms(PlanSession::default_batch_target_ms());
        AdaptiveMedianRule rule(options.oracle.sweep);
        c.stats = c.session->measure(rule, false).primary();
        o.candidates[c.candidate].median_ms = c.stats.median;
        o.candidates[c.candidate].leader = true;
      }
    }
    if (screened || narrowed) o.time_split.final_ms = final_timer.elapsed_ms();
    o.sweep_time_ms = sweep_timer.elapsed_ms();
    std::vector<SweepEntry> measured;
    for (auto& c : alive) {
      const auto& cand = o.candidates[c.candidate];
      measured.push_back({c.spec, cand, c.stats});
    }
    alive.clear();  // every instance released before the paired re-timing builds fresh ones

    // Rank by median; the heuristic plan is measured[0] before sorting.
    const auto heuristic_stats = measured.front().stats;
    std::stable_sort(measured.begin(), measured.end(), [](const SweepEntry& x, const SweepEntry& y) {
      return x.stats.median < y.stats.median;
    });
    for (std::size_t i = 0; i < measured.size(); ++i)
      if (measured[i].spec.name() == heuristic.name())
        o.rank_of_heuristic_plan = static_cast<std::int64_t>(i + 1) + ahead_of_heuristic;
    const SweepEntry* winner = &measured.front();
    // A winner whose median sits inside the heuristic plan's noise is a tie: keep the heuristic.
    if (winner->spec.name() != heuristic.name() && winner->stats.median_ci_hi >= heuristic_stats.median_ci_lo)
      for (const auto& m : measured)
        if (m.spec.name() == heuristic.name()) winner = &m;
    o.plan_name = winner->spec.name();
    o.knobs = knob_pairs(winner->spec);
    row.best_plan = PlanRef{winner->spec.engine_id, o.knobs, winner->stats.median};
    const bool faster_plan = winner->spec.name() != heuristic.name();
    o.verdict = faster_plan ? "faster-plan" : "heuristic-best";

    if (o.search == "no-search") {
      o.delta_withheld = "no-search: the plan space has one candidate";
    } else if (!faster_plan && !options.oracle.aa_self_check) {
      o.delta_withheld = "the heuristic plan is the fastest measured (or tied within noise)";
    } else if (!row.correctness || !row.correctness->passed) {
      o.delta_withheld = "the heuristic plan failed validation";
    } else {
      // Paired re-timing of fresh instances of both plans, then the winner's instance that was
      // timed is validated; a failure withholds the delta.
      HostTimer paired_timer;
      PlanSession a(data, provider, stream, heuristic);
      PlanSession b(data, provider, stream, winner->spec);
      PlanSession control(data, provider, stream, heuristic);
      b.judge_outputs(OutputRules::of(engine, options));
      o.cpu_build_time_ms = b.build_ms();
      std::optional<Stats> winner_stats;
      auto delta = paired_between(a, b, control, stream, options, &o.warm_baseline_stats, &winner_stats);
      if (delta.basis == "gpu_kernel")
        o.gpu_kernel_stats = winner_stats;
      else
        o.host_stats = winner_stats;
      o.correctness = b.checked_run();
      o.time_split.paired_ms = paired_timer.elapsed_ms();
      if (o.correctness->passed) {
        HostTimer replication_timer;
        replicate_with_fresh_instances(delta, data, provider, stream, heuristic, winner->spec, options);
        o.time_split.replication_ms = replication_timer.elapsed_ms();
        row.oracle_delta = delta;
      } else {
        o.delta_withheld = "the oracle's plan failed validation";
      }
    }
    if (options.oracle.both_regimes && o.search == "searched") {
      HostTimer regime_timer;
      o.other_regime = check_other_regime(data, provider, stream, measured, heuristic, winner->spec, options);
      o.time_split.other_regime_ms = regime_timer.elapsed_ms();
    }
    row.oracle = std::move(o);
  } catch (const std::exception& e) {
    row.oracle_error = describe_exception(e);
  }
}

std::optional<GraphRegret> graph_regret(GraphData& data, Provider& provider, Stream& stream,
                                        const std::vector<const RowResult*>& rows,
                                        const RunOptions& options) {
  const RowResult* pick = nullptr;
  const RowResult* best = nullptr;
  for (const auto* row : rows) {
    if (row->status != RowStatus::success || !row->best_plan) continue;
    if (!pick) pick = row;  // rows come in the library's order: the first engine is its pick
    if (!best || row->best_plan->median_ms < best->best_plan->median_ms) best = row;
  }
  if (!pick) return std::nullopt;
  GraphRegret regret;
  regret.provider = pick->provider;
  regret.pick_engine = pick->engine_id.value_or("");
  regret.pick_plan = pick->plan_name.value_or("");
  regret.best_engine = best->engine_id.value_or("");
  const auto best_spec = to_spec(*best->best_plan);
  regret.best_plan = best_spec.name();
  if (regret.best_plan == regret.pick_plan) {
    regret.note = "the library's pick is the fastest plan measured";
    return regret;
  }
  // The best plan is the pick engine's own winner: its row already compared the two, paired,
  // validated and replicated, in the same conditions; timing them again would only repeat it.
  if (best == pick) {
    if (pick->oracle_delta)
      regret.delta = pick->oracle_delta;
    else
      regret.note = pick->oracle ? pick->oracle->delta_withheld.value_or("the pick's row has no oracle delta")
                                 : std::string("the pick's row has no oracle result");
    return regret;
  }
  try {
    PlanSpec pick_spec = provider.heuristic_plan(data.graph(), EngineInfo{regret.pick_engine, "", {}});
    regret.delta = paired_delta(data, provider, stream, pick_spec, best_spec, options, nullptr, nullptr);
    replicate_with_fresh_instances(*regret.delta, data, provider, stream, pick_spec, best_spec, options);
  } catch (const std::exception& e) {
    regret.note = describe_exception(e);
  }
  return regret;
}

std::vector<std::string> oracle_warnings(const RunOptions& options) {
  std::vector<std::string> warnings;
  if (!options.oracle.enabled) return warnings;
  if (options.warmup == 0)
    warnings.push_back(
        "--warmup 0: the OOTB numbers include cold first executions; the oracle still warms both plans "
        "before its paired re-timing, so its deltas and the OOTB column are not comparable");
  return warnings;
}

}  // namespace dnnbench
