// The oracle against a fake provider whose plans have known, controllable times and failures.
#include "tune/oracle.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <map>

#include "../support/graph_builder.hpp"
#include "run/row_runner.hpp"

namespace dnnbench {
namespace {

struct FakePlanSpec {
  double micros = 100;  // busy time of one execution
  bool wrong = false;   // writes wrong outputs
  bool fail_build = false;
  // Busy time of an execution that follows an idle gap (of any plan's executions) of at least
  // half its rested busy time (a GPU that clocks up when it idles: the paced regime, whose gaps
  // last as long as the samples); 0: always `micros`.
  double rested_micros = 0;
};

class HostStream final : public Stream {
 public:
  void synchronize() override {}
};

// Plans of an identity op: execute busy-waits `micros`, then copies x to y (or writes garbage).
class FakePlan final : public Plan {
 public:
  FakePlan(std::string name, FakePlanSpec spec, std::vector<std::string>& log)
      : name_(std::move(name)), spec_(spec), log_(log) {}
  std::string name() const override { return name_; }
  std::size_t workspace_bytes() const override { return 0; }
  void bind(const Bindings& b, Stream&) override {
    x_ = static_cast<const float*>(b.at(1));
    y_ = static_cast<float*>(b.at(2));
  }
  void execute(Stream&) override {
    ++executions_;
    const auto now = std::chrono::steady_clock::now();
    const bool rested =
        spec_.rested_micros > 0 &&
        std::chrono::duration<double, std::micro>(now - last_end_).count() > spec_.rested_micros / 2;
    const auto until =
        now + std::chrono::duration<double, std::micro>(rested ? spec_.rested_micros : spec_.micros);
    while (std::chrono::steady_clock::now() < until) {
    }
    last_end_ = std::chrono::steady_clock::now();
    for (int i = 0; i < 64; ++i) y_[i] = spec_.wrong ? x_[i] + 1.0f : x_[i];
  }
  void publish_outputs(Stream&) override {}
  ~FakePlan() override { log_.push_back("executed " + name_ + " x" + std::to_string(executions_)); }

 private:
  std::string name_;
  FakePlanSpec spec_;
  std::vector<std::string>& log_;
  const float* x_ = nullptr;
  float* y_ = nullptr;
  int executions_ = 0;
  // When the last execution of any plan ended: a device's rest is the device's, not a plan's.
  static inline std::chrono::steady_clock::time_point last_end_{};
};

class FakeProvider final : public Provider {
 public:
  // Plans of the single engine "e", in plan-space order; the first is the heuristic plan.
  std::vector<std::pair<std::string, FakePlanSpec>> plans;
  std::vector<std::string> log;
  bool plan_space_throws = false;

  std::string_view name() const override { return "fake"; }
  DeviceKind device() const override { return DeviceKind::host; }
  std::string version() const override { return "fake 1"; }
  std::unique_ptr<Stream> make_stream() override { return std::make_unique<HostStream>(); }
  std::vector<EngineInfo> engines(const Graph&) override { return {{"e", "e", {}}}; }
  PlanSpec heuristic_plan(const Graph&, const EngineInfo&) override {
    return {"e", {{"p", plans.front().first}}};
  }
  std::vector<PlanSpec> plan_space(const Graph&, const EngineInfo&, const SweepLimits&) override {
    log.push_back("plan_space");
    if (plan_space_throws) throw std::invalid_argument("fake plan space is broken");
    std::vector<PlanSpec> space;
    for (const auto& [name, spec] : plans) space.push_back({"e", {{"p", name}}});
    return space;
  }
  std::unique_ptr<Plan> build(const Graph&, const PlanSpec& spec) override {
    const auto& name = spec.knobs.at(0).value;
    log.push_back("build " + name);
    for (const auto& [n, s] : plans)
      if (n == name) {
        if (s.fail_build) throw Unsupported("fake refuses " + name);
        return std::make_unique<FakePlan>(name, s, log);
      }
    throw Unsupported("no plan " + name);
  }
};

Graph identity_graph() {
  testing::GraphBuilder b("identity");
  const auto x = b.tensor("x", {64});
  const auto y = b.tensor("y", {64});
  PointwiseParams p;
  p.op = PointwiseOp::identity;
  b.node("PointwiseAttributes", OpKind::pointwise, {{"in_0", x}}, {{"out_0", y}}, p);
  return b.build();
}

RunOptions oracle_options() {
  RunOptions o;
  o.warmup = 2;
  o.measure.steady.max_ms = 0;  // no steady-state warm-up: the executions below are counted
  o.iters = 15;
  o.oracle.enabled = true;
  return o;
}

RowResult run(FakeProvider& provider, const RunOptions& options) {
  static const Graph graph = identity_graph();
  GraphData data(graph, 1);
  auto stream = provider.make_stream();
  return run_row(data, provider, *stream, provider.engines(graph)[0], options);
}

std::size_t index_of(const std::vector<std::string>& log, const std::string& entry, std::size_t from = 0) {
  for (std::size_t i = from; i < log.size(); ++i)
    if (log[i] == entry) return i;
  return log.size();
}

TEST(Oracle, TwiceFasterPlanIsFoundAndSignificantInPinnedOrder) {
  FakeProvider p;
  p.plans = {{"slow", {400}}, {"fast", {200}}};
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  EXPECT_EQ(row.oracle->search, "searched");
  EXPECT_EQ(row.oracle->verdict, "faster-plan");
  EXPECT_EQ(row.oracle->plan_name, "e_p=fast");
  EXPECT_EQ(row.oracle->rank_of_heuristic_plan, 2);
  EXPECT_EQ(row.oracle->candidates_total, 2);
  EXPECT_EQ(row.oracle->candidates_benchmarked, 2);
  ASSERT_TRUE(row.oracle_delta);
  EXPECT_TRUE(row.oracle_delta->significant);
  EXPECT_NEAR(row.oracle_delta->speedup, 2.0, 0.5);
  EXPECT_GT(row.oracle_delta->ci_lo, 1.0);
  EXPECT_EQ(row.oracle_delta->basis, "host");
  ASSERT_TRUE(row.oracle_delta->replication) << "a significant gap is timed again on fresh instances";
  EXPECT_TRUE(row.oracle_delta->replication->significant);
  EXPECT_NEAR(row.oracle_delta->replication->speedup, 2.0, 0.5);
  EXPECT_TRUE(row.oracle->warm_baseline_stats);
  EXPECT_TRUE(row.oracle->correctness && row.oracle->correctness->passed);
  // OOTB (build slow, measure) -> sweep (plan_space, build slow, build fast) -> paired re-time
  // (build slow, build fast) -> validate (the timed fast instance is destroyed last).
  const auto& log = p.log;
  const auto ootb = index_of(log, "build slow");
  // The OOTB pass: the checked run, 2 warm-up executions, 15 samples, and one untimed execution at
  // each of the two further placements (--placements 3).
  const auto ootb_done = index_of(log, "executed slow x" + std::to_string(1 + 2 + 15 + 2), ootb);
  const auto sweep = index_of(log, "plan_space", ootb_done);
  const auto sweep_fast = index_of(log, "build fast", sweep);
  const auto paired_slow = index_of(log, "build slow", sweep_fast);
  const auto paired_fast = index_of(log, "build fast", paired_slow);
  ASSERT_LT(ootb_done, log.size()) << ::testing::PrintToString(log);
  ASSERT_LT(paired_fast, log.size()) << ::testing::PrintToString(log);
  EXPECT_LT(ootb, ootb_done);
  EXPECT_LT(ootb_done, sweep);
  EXPECT_LT(sweep_fast, paired_slow);
}

// Buffers are allocated in build order, so an instance's placement repeats when the order does:
// the replication builds the winner's instance before the heuristic plan's, the control last.
TEST(Oracle, TheReplicationBuildsItsInstancesInTheOtherOrder) {
  FakeProvider p;
  p.plans = {{"slow", {400}}, {"fast", {200}}};
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle_delta && row.oracle_delta->replication) << row.oracle_error.value_or("");
  // The last six builds: the paired re-timing's (heuristic, winner, control), then the
  // replication's (winner, heuristic, control).
  const std::vector<std::string> builds = [&] {
    std::vector<std::string> b;
    for (const auto& entry : p.log)
      if (entry.rfind("build ", 0) == 0) b.push_back(entry.substr(6));
    return b;
  }();
  ASSERT_GE(builds.size(), 6u);
  const std::vector<std::string> last6(builds.end() - 6, builds.end());
  EXPECT_EQ(last6, (std::vector<std::string>{"slow", "fast", "slow", "fast", "slow", "slow"}))
      << ::testing::PrintToString(builds);
}

// Instances of one plan can differ steadily (buffer placement): a gap counts only when fresh
// instances of both plans show it again, the same way.
TEST(Oracle, ASignificantGapMustShowAgainBetweenFreshInstances) {
  const auto delta = [](double speedup, bool significant) {
    PairedDelta d;
    d.speedup = speedup;
    d.significant = significant;
    return d;
  };
  int calls = 0;
  auto quiet = delta(1.004, false);
  replicate_if_significant(quiet, [&] { return ++calls, delta(1.5, true); });
  EXPECT_EQ(calls, 0);
  EXPECT_FALSE(quiet.replication);
  for (const auto& [again, kept] : {std::pair{delta(1.05, true), true}, std::pair{delta(1.05, false), false},
                                    std::pair{delta(0.95, true), false}}) {
    auto d = delta(1.06, true);
    replicate_if_significant(d, [&, again = again] { return again; });
    ASSERT_TRUE(d.replication);
    EXPECT_EQ(d.significant, kept) << again.speedup << " " << again.significant;
    EXPECT_EQ(d.replication->significant, kept);
    EXPECT_EQ(d.replication->speedup, again.speedup);
    EXPECT_EQ(d.speedup, 1.06);  // the figures stay the first comparison's
  }
}

// A plan that wins back to back can lose with idle gaps (a GPU at its power cap against one that
// clocks up between samples): --oracle-regimes both times the leading plans in the other regime
// and says the winner changes there, only when it is significant.
TEST(Oracle, BothRegimesReportAWinnerThatChangesWithTheRegime) {
  FakeProvider p;
  p.plans = {{"cool", {800, false, false, 200}}, {"steady", {400}}};  // steady wins sustained, cool paced
  auto options = oracle_options();
  options.oracle.both_regimes = true;
  const auto row = run(p, options);
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  EXPECT_EQ(row.oracle->regime, "sustained");
  EXPECT_EQ(row.oracle->plan_name, "e_p=steady");
  ASSERT_TRUE(row.oracle->other_regime);
  const auto& check = *row.oracle->other_regime;
  EXPECT_EQ(check.regime, "paced");
  EXPECT_EQ(check.plan_name, "e_p=cool");
  ASSERT_EQ(check.medians.size(), 2u);
  EXPECT_EQ(check.medians.front().first, "e_p=cool") << "fastest first";
  ASSERT_TRUE(check.delta);
  EXPECT_TRUE(check.winner_changed);
  EXPECT_NEAR(check.delta->speedup, 2.0, 0.6);

  // Plans whose order does not depend on the regime: the same winner, nothing changes.
  FakeProvider q;
  q.plans = {{"slow", {400}}, {"fast", {200}}};
  const auto same = run(q, options);
  ASSERT_TRUE(same.oracle && same.oracle->other_regime) << same.oracle_error.value_or("");
  EXPECT_EQ(same.oracle->other_regime->plan_name, "e_p=fast");
  EXPECT_FALSE(same.oracle->other_regime->winner_changed);
  EXPECT_FALSE(same.oracle->other_regime->delta);
  options.oracle.both_regimes = false;
  EXPECT_FALSE(run(q, options).oracle->other_regime);
}

TEST(Oracle, OOTBFieldsAreIdenticalWithAndWithoutOracle) {
  FakeProvider p;
  p.plans = {{"slow", {300}}, {"fast", {100}}};
  auto options = oracle_options();
  const auto with = run(p, options);
  options.oracle.enabled = false;
  const auto without = run(p, options);
  EXPECT_EQ(with.status, without.status);
  EXPECT_EQ(with.plan_name, without.plan_name);
  EXPECT_EQ(with.host_stats->n, without.host_stats->n);
  EXPECT_EQ(with.correctness->passed, without.correctness->passed);
  EXPECT_FALSE(without.oracle);
  EXPECT_FALSE(without.oracle_delta);
  EXPECT_FALSE(without.oracle_error);
}

TEST(Oracle, SingleCandidateIsNoSearchAndNeverASpeedup) {
  FakeProvider p;
  p.plans = {{"only", {100}}};
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle);
  EXPECT_EQ(row.oracle->search, "no-search");
  EXPECT_FALSE(row.oracle_delta);
  EXPECT_TRUE(row.oracle->delta_withheld);
}

TEST(Oracle, EqualPlansAreATieThatKeepsTheHeuristicPlan) {
  FakeProvider p;
  p.plans = {{"a", {200}}, {"b", {200}}, {"c", {200}}};
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle);
  // Either the heuristic plan measured fastest, or the winner was inside its noise: never a
  // reported speedup of equal plans.
  if (row.oracle_delta)
    EXPECT_FALSE(row.oracle_delta->significant && row.oracle_delta->speedup > 1.1);
  else
    EXPECT_EQ(row.oracle->verdict, "heuristic-best");
}

TEST(Oracle, AASelfCheckReportsNoSignificantSpeedup) {
  FakeProvider p;
  p.plans = {{"a", {200}}, {"b", {50}}};
  auto options = oracle_options();
  options.oracle.aa_self_check = true;
  const auto row = run(p, options);
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  EXPECT_EQ(row.oracle->search, "aa-self-check");
  EXPECT_EQ(row.oracle->plan_name, "e_p=a");
  ASSERT_TRUE(row.oracle_delta);
  EXPECT_NEAR(row.oracle_delta->speedup, 1.0, 0.1);
}

TEST(Oracle, FailedCandidatesAreRecordedWithoutTouchingTheRow) {
  FakeProvider p;
  p.plans = {{"slow", {300}}, {"broken", {10, false, true}}, {"fast", {100}}};
  const auto row = run(p, oracle_options());
  EXPECT_EQ(row.status, RowStatus::success);
  ASSERT_TRUE(row.oracle);
  EXPECT_EQ(row.oracle->candidates_failed, 1);
  EXPECT_EQ(row.oracle->candidates_benchmarked, 2);
  EXPECT_EQ(row.oracle->candidates[1].error, "Unsupported: fake refuses broken");
  EXPECT_EQ(row.oracle->plan_name, "e_p=fast");
}

TEST(Oracle, DeltaIsWithheldWhenTheWinnerFailsValidation) {
  FakeProvider p;
  p.plans = {{"slow", {300}}, {"fast_but_wrong", {100, true}}};
  const auto row = run(p, oracle_options());
  EXPECT_TRUE(row.passed()) << "the OOTB row is untouched";
  ASSERT_TRUE(row.oracle);
  EXPECT_FALSE(row.oracle_delta);
  ASSERT_TRUE(row.oracle->correctness);
  EXPECT_FALSE(row.oracle->correctness->passed);
  EXPECT_EQ(row.oracle->delta_withheld, "the oracle's plan failed validation");
}

TEST(Oracle, BudgetBoundsTheSearchButTheHeuristicPlanIsAlwaysMeasured) {
  FakeProvider p;
  p.plans = {{"h", {100}}, {"other", {50}}};
  auto options = oracle_options();
  options.oracle.max_seconds = 0;
  const auto row = run(p, options);
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  EXPECT_TRUE(row.oracle->budget_exhausted);
  EXPECT_EQ(row.oracle->candidates_benchmarked, 1);
  EXPECT_EQ(row.oracle->verdict, "heuristic-best");
}

// A large plan space is swept in three rungs: every plan is built once and screened with a few
// short batches; the fastest quarter (3 to 8) and the heuristic plan are timed briefly, and only
// the two fastest of those and the heuristic plan are measured fully, all on the instances they
// were screened with. The winner here sits late in the space, among slow plans.
TEST(Oracle, LargePlanSpaceIsScreenedAndOnlyItsLeadersAreMeasuredFully) {
  FakeProvider p;
  p.plans = {{"heuristic", {300}}};
  for (int i = 0; i < 14; ++i) p.plans.push_back({"slow" + std::to_string(i), {900}});
  p.plans.insert(p.plans.begin() + 12, {"best", {150}});
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  const auto& o = *row.oracle;
  EXPECT_EQ(o.candidates_total, 16);
  EXPECT_EQ(o.candidates_benchmarked, 16);
  EXPECT_EQ(o.screened_out, 11) << "16 plans: 4 finalists and the heuristic plan go on";
  EXPECT_EQ(o.plan_name, "e_p=best");
  EXPECT_EQ(o.rank_of_heuristic_plan, 2) << "the screened-out plans were all slower";
  EXPECT_EQ(o.narrowed_out, 2) << "5 finalists: the 2 fastest and the heuristic plan go on";
  int finalists = 0, leaders = 0;
  for (const auto& c : o.candidates) {
    ASSERT_TRUE(c.measured) << c.plan_name;
    ASSERT_TRUE(c.screen_median_ms) << c.plan_name;
    EXPECT_NE(c.screened_out, c.finalist) << c.plan_name;
    finalists += c.finalist;
    leaders += c.leader;
    if (c.leader) {
      EXPECT_TRUE(c.finalist) << c.plan_name;
    }
    if (c.plan_name == "e_p=heuristic" || c.plan_name == "e_p=best") {
      EXPECT_TRUE(c.leader) << c.plan_name;
    }
    if (c.screened_out) {
      EXPECT_EQ(c.median_ms, c.screen_median_ms) << c.plan_name;
    }
  }
  EXPECT_EQ(finalists, 5);
  EXPECT_EQ(leaders, 3);
  // Each plan built once in the sweep (between plan_space and the paired re-timing); a screened-out
  // plan ran its warm-up and at most 20 screening executions.
  const auto sweep = index_of(p.log, "plan_space");
  for (const auto& c : o.candidates) {
    const auto name = c.plan_name.substr(std::strlen("e_p="));
    if (name != "heuristic" && name != "best") {
      EXPECT_EQ(std::count(p.log.begin() + static_cast<std::ptrdiff_t>(sweep), p.log.end(), "build " + name),
                1)
          << name;
    }
    if (!c.screened_out) continue;
    for (const auto& entry : p.log) {
      if (entry.rfind("executed " + name + " x", 0) == 0) {
        EXPECT_LE(std::stoi(entry.substr(entry.find(" x") + 2)), 2 + 20) << entry;
      }
    }
  }
  ASSERT_TRUE(row.oracle_delta);
  EXPECT_TRUE(row.oracle_delta->significant);
  EXPECT_NEAR(row.oracle_delta->speedup, 2.0, 0.5);
  EXPECT_GT(o.time_split.screen_ms, 0);
  EXPECT_GT(o.time_split.final_ms, 0);
  EXPECT_GT(o.time_split.paired_ms, 0);
  EXPECT_GE(o.time_split.build_ms, 0);
}

// A heuristic plan slower than everything screened stays a finalist, and its rank counts the
// plans screened out ahead of it.
TEST(Oracle, ScreenedOutPlansFasterThanTheHeuristicPlanRankBeforeIt) {
  FakeProvider p;
  p.plans = {{"heuristic", {900}}};
  for (int i = 0; i < 11; ++i) p.plans.push_back({"mid" + std::to_string(i), {300 + 10.0 * i}});
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  EXPECT_EQ(row.oracle->screened_out, 12 - 3 - 1);
  EXPECT_EQ(row.oracle->narrowed_out, 1);
  EXPECT_EQ(row.oracle->rank_of_heuristic_plan, 12) << "11 faster: 2 leaders, 1 finalist, 8 screened out";
  EXPECT_TRUE(row.oracle->candidates.front().leader);
}

// A space no larger than its finalists skips the screening: every plan is timed briefly, and the
// two fastest and the heuristic plan are measured fully.
// A plan many times slower than the heuristic plan is dropped after its first two executions: it
// cannot win, and its probe and samples would cost many of its executions.
TEST(Oracle, AHopelessPlanIsDroppedAfterTwoExecutions) {
  FakeProvider p;
  p.plans = {{"base", {400}}, {"fast", {200}}, {"glacial", {20000}}};
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  const auto& glacial = row.oracle->candidates.at(2);
  EXPECT_TRUE(glacial.measured);
  EXPECT_TRUE(glacial.screened_out);
  ASSERT_TRUE(glacial.median_ms);
  EXPECT_GE(*glacial.median_ms, 20.0);
  EXPECT_EQ(row.oracle->screened_out, 1);
  EXPECT_EQ(row.oracle->plan_name, "e_p=fast");
  // Its two warm-up executions only: no batch probe, no samples.
  EXPECT_LT(index_of(p.log, "executed glacial x2"), p.log.size()) << ::testing::PrintToString(p.log);
}

TEST(Oracle, MidSizedPlanSpaceSkipsTheScreening) {
  FakeProvider p;
  p.plans = {{"a", {300}}, {"b", {200}}, {"c", {400}}, {"d", {350}}};
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  const auto& o = *row.oracle;
  EXPECT_EQ(o.screened_out, 0);
  EXPECT_EQ(o.narrowed_out, 1);
  for (const auto& c : o.candidates) {
    EXPECT_FALSE(c.screen_median_ms) << c.plan_name;
    EXPECT_TRUE(c.finalist) << c.plan_name;
    EXPECT_EQ(c.leader, c.plan_name != "e_p=c") << c.plan_name << ": the slowest after the heuristic plan";
  }
  EXPECT_EQ(o.plan_name, "e_p=b");
  EXPECT_EQ(o.rank_of_heuristic_plan, 2);
  EXPECT_GT(o.time_split.final_ms, 0);
}

// A space no larger than its leaders is measured fully in one rung, as before.
TEST(Oracle, SmallPlanSpaceIsMeasuredInOneRung) {
  FakeProvider p;
  p.plans = {{"a", {300}}, {"b", {200}}, {"c", {400}}};
  const auto row = run(p, oracle_options());
  ASSERT_TRUE(row.oracle) << row.oracle_error.value_or("");
  EXPECT_EQ(row.oracle->screened_out, 0);
  EXPECT_EQ(row.oracle->narrowed_out, 0);
  for (const auto& c : row.oracle->candidates) {
    EXPECT_FALSE(c.screen_median_ms) << c.plan_name;
    EXPECT_FALSE(c.screened_out || c.finalist) << c.plan_name;
    EXPECT_TRUE(c.leader) << c.plan_name;
  }
  EXPECT_EQ(row.oracle->plan_name, "e_p=b");
  EXPECT_EQ(row.oracle->time_split.final_ms, 0);
}

// When a graph's best plan is the pick engine's own winner, the graph's regret is that row's
// paired comparison, not a second one: no plan is built after the row.
TEST(Oracle, RegretAgainstThePickEnginesOwnWinnerReusesItsRowsComparison) {
  FakeProvider p;
  p.plans = {{"slow", {400}}, {"fast", {200}}};
  static const Graph graph = identity_graph();
  GraphData data(graph, 1);
  auto stream = p.make_stream();
  const auto options = oracle_options();
  const auto row = run_row(data, p, *stream, p.engines(graph)[0], options);
  ASSERT_TRUE(row.oracle_delta) << row.oracle_error.value_or("");
  const auto builds_before = std::count_if(p.log.begin(), p.log.end(),
                                           [](const std::string& e) { return e.rfind("build ", 0) == 0; });
  const auto regret = graph_regret(data, p, *stream, {&row}, options);
  ASSERT_TRUE(regret);
  EXPECT_EQ(regret->best_plan, "e_p=fast");
  ASSERT_TRUE(regret->delta);
  EXPECT_EQ(regret->delta->speedup, row.oracle_delta->speedup);
  EXPECT_EQ(regret->delta->rounds, row.oracle_delta->rounds);
  EXPECT_EQ(std::count_if(p.log.begin(), p.log.end(),
                          [](const std::string& e) { return e.rfind("build ", 0) == 0; }),
            builds_before);
}

TEST(Oracle, FailureInsideTheOracleIsAnOracleErrorNotARowError) {
  FakeProvider p;
  p.plans = {{"h", {100}}};
  p.plan_space_throws = true;
  const auto row = run(p, oracle_options());
  EXPECT_EQ(row.status, RowStatus::success);
  EXPECT_TRUE(row.passed());
  EXPECT_FALSE(row.oracle);
  ASSERT_TRUE(row.oracle_error);
  EXPECT_EQ(*row.oracle_error, "InvalidArgument: fake plan space is broken");
}

}  // namespace
}  // namespace dnnbench

namespace dnnbench {
namespace {

bool warns_about(const std::vector<std::string>& warnings, const char* what) {
  for (const auto& w : warnings)
    if (w.find(what) != std::string::npos) return true;
  return false;
}

// The oneDNN provider keeps its primitive cache off (providers/onednn/dnnl_shim.cpp), so re-built
// plans are real creations and no run is warned about the cache.
TEST(Oracle, NoPrimitiveCacheWarning) {
  unsetenv("ONEDNN_PRIMITIVE_CACHE_CAPACITY");
  RunOptions options;
  options.oracle.enabled = true;
  EXPECT_FALSE(warns_about(oracle_warnings(options), "primitive cache"));
  options.oracle.enabled = false;
  EXPECT_TRUE(oracle_warnings(options).empty());
}

}  // namespace
}  // namespace dnnbench
