#include "report/json_read.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "report/json_report.hpp"

namespace dnnbench {
namespace {

// A row with every optional part filled, including values written as null (NaN).
RowResult full_row() {
  RowResult row;
  row.provider = "onednn";
  row.engine_id = "jit:avx2";
  row.engine_name = "JIT AVX2";
  row.engine_notes = {"note a", "note b"};
  row.engine_label = "tuned";
  row.status = RowStatus::success;
  row.plan_name = "jit:avx2_k=1";
  row.plan_notes = {"reorder src"};
  row.cpu_build_time_ms = 1.25;
  row.plan_cache = "loaded";
  row.compile_time_ms = 2496.5;
  row.bind_time_ms = 0.5;
  row.workspace_bytes = 4096;
  row.host_stats = summarize({1.0, 2.0, 3.5});
  row.gpu_kernel_stats = summarize({0.25, 0.5});
  row.timing = TimingInfo{"device-events-single+cold-flush",
                          2,
                          "throughput",
                          "cold",
                          "memset 2x L2",
                          "adaptive",
                          true,
                          "ci",
                          "cudaStreamBeginCapture: not permitted",
                          3,
                          1.5,
                          true,
                          12.5,
                          11.0,
                          20.0,
                          "sustained",
                          "uniform",
                          "duty 50% (--regime paced)",
                          9.5,
                          TimingInfo::OtherRegime{"paced", 7, 0.42, 1950.0},
                          TimingInfo::KeptWarm{420, 690.0, std::nullopt, true},
                          ClockSummary{4, MinMaxMean{1700, 1980, 1800}, MinMaxMean{2619, 2619, 2619},
                                       MinMaxMean{40, 45, 42}, std::nullopt, true, 0.25},
                          {1.0, 2.0},
                          TimingInfo::Placements{3, {0.5, 0.52, 0.49}, 0.52 / 0.49 - 1},
                          TimingInfo::HostSync{2, 0.97, 1.31},
                          TimingInfo::CoreState{2, 1.27, 1.26, 40, 3},
                          TimingInfo::CacheFit{24 << 20, 50 << 20}};
  row.fp32_math = "tf32";
  row.kernels = {KernelSummary{"nvjet_sm90_hsh_64x384", {132, 1, 1}, {384, 1, 1}, 1, 0.0071}};
  row.kernel_sum_stats = summarize({0.0071, 0.0072});
  row.row_time_ms = 42.5;
  row.stage_ms = {{"plan", 1.5}, {"reference", 3.0}, {"check", 20.0}, {"measure", 21.0}};
  row.analytical_flops = 2e9;
  row.analytical_io_bytes = 3e6;
  Correctness c;
  c.passed = false;
  c.max_abs_diff = std::numeric_limits<double>::infinity();  // written as null
  c.max_rel_diff = 0.5;
  c.reference = "fp64 cpu";
  c.compared_on = "device";
  c.outputs.push_back({"y", false, 1, 0.5, 0.1, 3, 1, "at [0,1]", 1e-3, 1e-5, "fp32 default"});
  c.outputs.push_back({"z", true, 0, 0, 0, 0, 0, "", 1e-3, 1e-5, "fp32 default"});
  row.correctness = c;
  OracleResult o;
  o.search = "searched";
  o.verdict = "faster-plan";
  o.plan_name = "jit:avx2_k=2";
  o.knobs = {{"k", "2"}, {"a", "x"}};  // not in key order: kept as written
  o.rank_of_heuristic_plan = 2;
  o.candidates_total = 4;
  o.candidates_benchmarked = 3;
  o.candidates_failed = 1;
  o.budget_exhausted = true;
  o.sweep_time_ms = 40;
  o.cpu_build_time_ms = 2;
  o.host_stats = summarize({1.0});
  o.warm_baseline_stats = summarize({2.0});
  o.correctness = Correctness{};
  o.delta_withheld = "why";
  o.candidates = {{"p1", true, {{"k", "1"}, {"a", "2"}}, 1.5, std::nullopt, 1.6, false, true, true},
                  {"p2", false, {}, std::nullopt, "Unsupported: no", std::nullopt, false, false, false},
                  {"p3", true, {}, 3.0, std::nullopt, 3.0, true, false, false},
                  {"p4", true, {}, 2.0, std::nullopt, 2.5, false, true, false}};
  o.screened_out = 1;
  o.narrowed_out = 1;
  o.time_split = {10, 20, 30, 40, 50, 0};
  row.oracle = o;
  row.oracle_delta = PairedDelta{"host", 2,    1,    2,        1.5,
                                 2.5,    true, 1.01, 0.99,     1.03,
                                 0.03,   10,   true, "paired", PairedDelta::Replication{2.1, 1.6, 2.6, true}};
  row.oracle_error = "Type: message";
  row.plan_knobs = {{"k", "1"}, {"a", "0"}};  // order kept: not alphabetical
  PlansFromResult p;
  p.source = "plans.jsonl";
  p.stored_library_version = "9.14.0";
  p.stored_device = "NVIDIA H200";
  p.stored_winner = "jit:avx2_k=2";
  p.stored_heuristic = "jit:avx2_k=1";
  p.today_heuristic = "jit:avx2_k=1";
  p.other_stored_winners = {"jit:avx2_k=3"};
  p.tuned_still_wins = true;
  p.verdict = "tuned-still-wins";
  RetimedPlan retimed;
  retimed.role = "stored-winner";
  retimed.plan_name = "jit:avx2_k=2";
  retimed.knobs = {{"k", "2"}};
  retimed.status = "measured";
  retimed.delta = row.oracle_delta;
  retimed.stored_median_ms = 1.0;
  retimed.today_median_ms = 1.1;
  retimed.slower = false;
  p.plans = {retimed};
  row.plans_from = p;
  ProfileResult profile;
  profile.tool = "ncu";
  profile.sections = {"SpeedOfLight"};
  profile.executions = 3;
  profile.report_path = "p/001.ncu-rep";
  profile.kernels = {{"k1", 2, 0.5, 80.0, std::nullopt, 40.0, 64, 1024, {1, 2, 3}, {128, 1, 1}, 1965.0}};
  profile.kernel_sum_ms = 1.0;
  profile.row_sm_mhz = 1972.0;
  row.profile = profile;
  return row;
}

TEST(JsonRead, RowRoundTripIsExact) {
  const auto written = row_to_json(full_row());
  EXPECT_EQ(row_to_json(row_from_json(written)), written);
  RowResult skipped;
  skipped.provider = "cudnn";
  skipped.status = RowStatus::skipped;
  skipped.skip_reason = "unsupported op X";
  EXPECT_EQ(row_to_json(row_from_json(row_to_json(skipped))), row_to_json(skipped));
}

// Results of the two-rung sweep (before the leaders' rung) measured their finalists fully: read
// back, those are leaders.
TEST(JsonRead, TwoRungResultsReadTheirFinalistsAsLeaders) {
  auto written = row_to_json(full_row());
  for (auto& c : written["oracle"]["candidates"]) c.erase("leader");
  written["oracle"].erase("narrowed_out");
  const auto back = row_from_json(written);
  ASSERT_TRUE(back.oracle);
  const auto& c = back.oracle->candidates;
  EXPECT_TRUE(c.at(0).leader) << "a finalist";
  EXPECT_TRUE(c.at(3).leader) << "a finalist";
  EXPECT_FALSE(c.at(2).leader) << "screened out";
  EXPECT_EQ(back.oracle->narrowed_out, 0);
}

TEST(JsonRead, NullNumbersReadBackAsNaN) {
  const auto row = row_from_json(row_to_json(full_row()));
  EXPECT_TRUE(std::isnan(row.correctness->max_abs_diff));
  EXPECT_EQ(row.correctness->max_rel_diff, 0.5);
}

TEST(JsonRead, TimeoutStatusRoundTrips) {
  RowResult row;
  row.provider = "crashtest";
  row.engine_id = "hang";
  row.status = RowStatus::timeout;
  row.error_message = "killed";
  const auto back = row_from_json(row_to_json(row));
  EXPECT_EQ(back.status, RowStatus::timeout);
  EXPECT_EQ(row_status_name(back.status), "timeout");
}

TEST(JsonRead, GraphRoundTripIsExact) {
  GraphResult g;
  g.graph_name = "conv";
  g.graph_path = "suite.tar.gz:conv.json";
  g.analytical_flops = 10;
  g.results = {full_row(), full_row()};
  g.stage_ms = {{"inputs", 81.0}, {"engines", 196.5}};
  g.wall_ms = 402.25;
  g.regret.push_back({"onednn", "e1", "p1", "e2", "p2", PairedDelta{}, "note"});
  const auto written = graph_to_json(g);
  EXPECT_EQ(graph_to_json(graph_from_json(written)), written);

  GraphResult failed;
  failed.graph_name = "bad";
  failed.graph_path = "bad.json";
  failed.ok = false;
  failed.error_message = "bad.json: $.nodes: expected an array";
  EXPECT_EQ(graph_to_json(graph_from_json(graph_to_json(failed))), graph_to_json(failed));
  GraphResult duplicate;
  duplicate.graph_name = "b";
  duplicate.duplicate_of = "a.json";
  EXPECT_EQ(graph_to_json(graph_from_json(graph_to_json(duplicate))), graph_to_json(duplicate));
}

TEST(JsonRead, PlanRefRoundTrips) {
  const PlanRef plan{"eng1", {{"k2", "3"}, {"k1", "1"}}, 0.75};
  const auto back = plan_ref_from_json(plan_ref_to_json(plan));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->engine_id, "eng1");
  EXPECT_EQ(back->knobs, plan.knobs);
  EXPECT_EQ(back->median_ms, 0.75);
  EXPECT_FALSE(plan_ref_from_json(nullptr));
}

TEST(JsonRead, ErrorsNameTheKey) {
  auto j = row_to_json(full_row());
  j.erase("plan_notes");
  try {
    row_from_json(j);
    FAIL() << "a row without plan_notes was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("plan_notes"), std::string::npos) << e.what();
  }
  j = row_to_json(full_row());
  j["status"] = "exploded";
  EXPECT_THROW(row_from_json(j), std::runtime_error);
}

}  // namespace
}  // namespace dnnbench
