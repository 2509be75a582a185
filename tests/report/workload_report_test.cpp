// The workload report (report/workload_report.hpp): family classification, the verdicts taken
// from the graph regret, the share of graphs where the pick is significantly beaten, geometric
// means and worst gap, the model time saved weighted by each layer's count, the no-oracle totals,
// the JSON round trip of the layer models and the diff between two runs. Expectations are
// computed by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "report/json_read.hpp"
#include "report/json_report.hpp"
#include "report/workload_report.hpp"

namespace dnnbench {
namespace {

RowResult timed_row(const std::string& provider, const std::string& engine, double median_ms) {
  RowResult r;
  r.provider = provider;
  r.engine_id = engine;
  r.correctness = Correctness{};
  r.host_stats = summarize({median_ms, median_ms, median_ms});
  return r;
}

PairedDelta delta(double baseline_ms, double best_ms, bool significant) {
  PairedDelta d;
  d.baseline_median_ms = baseline_ms;
  d.oracle_median_ms = best_ms;
  d.speedup = baseline_ms / best_ms;
  d.ci_lo = d.speedup * 0.99;
  d.ci_hi = d.speedup * 1.01;
  d.significant = significant;
  return d;
}

GraphResult workload_graph(const std::string& path, std::vector<std::string> ops, double pick_ms) {
  GraphResult g;
  g.graph_name = g.graph_path = path;
  g.ops = std::move(ops);
  g.results = {timed_row("cudnn", "e1", pick_ms)};
  return g;
}

GraphRegret regret(std::optional<PairedDelta> d) {
  GraphRegret r;
  r.provider = "cudnn";
  r.pick_engine = "e1";
  r.pick_plan = "e1";
  r.best_engine = d ? "e2" : "e1";
  r.best_plan = d ? "e2" : "e1";
  r.delta = d;
  if (!d) r.note = "the library's pick is the fastest plan measured";
  return r;
}

const WorkloadGroup& find(const ProviderWorkloadReport& p, const std::string& kind, const std::string& name) {
  for (const auto& g : p.groups)
    if (g.kind == kind && g.name == name) return g;
  throw std::runtime_error("no group " + kind + " " + name);
}

// Three graphs of two models:
//   conv  (conv_fwd + pointwise): resnet x3, unet x1; pick 2 ms, beaten 2.0x (2 ms -> 1 ms)
//   mm    (matmul):               bert x4;            pick 1 ms, not significant (1.1x)
//   ln    (layernorm):            bert x2;            pick 1 ms, the pick is the best plan
SuiteResult workload_oracle_suite() {
  SuiteResult suite;
  auto conv = workload_graph("conv", {"conv_fwd", "pointwise"}, 2.0);
  conv.regret = {regret(delta(2.0, 1.0, true))};
  auto mm = workload_graph("mm", {"matmul"}, 1.0);
  mm.regret = {regret(delta(1.0, 1.0 / 1.1, false))};
  auto ln = workload_graph("ln", {"layernorm"}, 1.0);
  ln.regret = {regret(std::nullopt)};
  suite.graphs = {conv, mm, ln};
  suite.layer_models = {{"conv", {{"resnet", 3}, {"unet", 1}}}, {"mm", {{"bert", 4}}}, {"ln", {{"bert", 2}}}};
  suite.metadata = {{"providers", {{"cudnn", {{"version", "9.14.0"}}}}}};
  return suite;
}

TEST(WorkloadReport, FamiliesByTheHeaviestOp) {
  EXPECT_EQ(workload_family({"conv_fwd", "pointwise"}), "conv_fwd");
  EXPECT_EQ(workload_family({"pointwise", "conv_bwd_data"}), "conv_bwd_data");
  EXPECT_EQ(workload_family({"conv_bwd_weights"}), "conv_bwd_weights");
  EXPECT_EQ(workload_family({"matmul", "pointwise"}), "matmul");
  EXPECT_EQ(workload_family({"sdpa_fwd"}), "sdpa_fwd");
  EXPECT_EQ(workload_family({"sdpa_bwd"}), "sdpa_bwd");
  EXPECT_EQ(workload_family({"batchnorm_inference"}), "norm");
  EXPECT_EQ(workload_family({"layernorm"}), "norm");
  EXPECT_EQ(workload_family({"rmsnorm"}), "norm");
  EXPECT_EQ(workload_family({"resample"}), "resample");
  EXPECT_EQ(workload_family({"pointwise"}), "pointwise");
  EXPECT_EQ(workload_family({}), "other");
  EXPECT_EQ(workload_family({"unsupported"}), "other");
}

TEST(WorkloadReport, OracleFiguresPerFamilyAndModel) {
  const auto report = workload_report(workload_oracle_suite());
  ASSERT_EQ(report.providers.size(), 1u);
  const auto& p = report.providers[0];
  EXPECT_EQ(p.provider, "cudnn");
  EXPECT_EQ(p.version, "9.14.0");
  EXPECT_TRUE(p.oracle);
  // all, 3 families (conv_fwd, matmul, norm in that order), 3 models (by name).
  ASSERT_EQ(p.groups.size(), 7u);
  EXPECT_EQ(p.groups[0].kind, "all");
  EXPECT_EQ(p.groups[1].name, "conv_fwd");
  EXPECT_EQ(p.groups[2].name, "matmul");
  EXPECT_EQ(p.groups[3].name, "norm");
  EXPECT_EQ(p.groups[4].name, "bert");
  EXPECT_EQ(p.groups[5].name, "resnet");
  EXPECT_EQ(p.groups[6].name, "unet");

  const auto& all = p.groups[0];
  EXPECT_EQ(all.graphs_judged, 3);
  EXPECT_EQ(all.graphs_beaten, 1);
  EXPECT_NEAR(all.share_beaten(), 1.0 / 3, 1e-12);
  EXPECT_EQ(all.layers_judged, 10);  // 4 + 4 + 2
  EXPECT_EQ(all.layers_beaten, 4);
  EXPECT_NEAR(*all.geomean_gap, 2.0, 1e-12);
  // Over judged graphs, 1 where not beaten: (2 * 1 * 1)^(1/3).
  EXPECT_NEAR(*all.geomean_gap_all, std::cbrt(2.0), 1e-12);
  EXPECT_NEAR(*all.worst_gap, 2.0, 1e-12);
  EXPECT_EQ(all.worst_graph, "conv");
  // Σ count x pick = 4*2 + 4*1 + 2*1 = 14 ms; saved 4*(2-1) = 4 ms (the n.s. gap saves nothing).
  EXPECT_NEAR(all.judged_pick_ms, 14.0, 1e-12);
  EXPECT_NEAR(all.saved_ms, 4.0, 1e-12);
  EXPECT_NEAR(all.time_saved_share(), 4.0 / 14.0, 1e-12);

  // Per model the weight is the layer's count in that model: resnet 3 x (2 - 1) of 3 x 2.
  const auto resnet = find(p, "model", "resnet");
  EXPECT_EQ(resnet.layers_judged, 3);
  EXPECT_NEAR(resnet.time_saved_share(), 0.5, 1e-12);
  EXPECT_NEAR(resnet.share_beaten(), 1.0, 1e-12);
  const auto bert = find(p, "model", "bert");
  EXPECT_EQ(bert.graphs_judged, 2);
  EXPECT_EQ(bert.graphs_beaten, 0);
  EXPECT_FALSE(bert.geomean_gap);
  EXPECT_NEAR(*bert.geomean_gap_all, 1.0, 1e-12);
  EXPECT_NEAR(bert.judged_pick_ms, 6.0, 1e-12);  // 4 x 1 + 2 x 1
  EXPECT_NEAR(bert.time_saved_share(), 0.0, 1e-12);
  const auto norm = find(p, "family", "norm");
  EXPECT_EQ(norm.graphs_judged, 1);
  EXPECT_EQ(norm.layers, 2);
}

TEST(WorkloadReport, WithoutOracleModelTimeIsCountTimesMedian) {
  auto suite = workload_oracle_suite();
  for (auto& g : suite.graphs) g.regret.clear();
  // A second engine of the conv graph is faster: best = 1.5 ms.
  suite.graphs[0].results.push_back(timed_row("cudnn", "e2", 1.5));
  // The matmul's only row failed: untimed.
  suite.graphs[1].results[0].status = RowStatus::error;
  const auto report = workload_report(suite);
  ASSERT_EQ(report.providers.size(), 1u);
  const auto& p = report.providers[0];
  EXPECT_FALSE(p.oracle);
  const auto& all = p.groups[0];
  EXPECT_EQ(all.graphs_judged, 0);
  EXPECT_EQ(all.graphs, 2);
  EXPECT_EQ(all.layers, 6);  // conv 4 + ln 2
  EXPECT_EQ(all.graphs_untimed, 1);
  EXPECT_EQ(all.layers_untimed, 4);
  EXPECT_NEAR(all.pick_total_ms, 4 * 2.0 + 2 * 1.0, 1e-12);
  EXPECT_NEAR(all.best_total_ms, 4 * 1.5 + 2 * 1.0, 1e-12);
  const auto unet = find(p, "model", "unet");
  EXPECT_NEAR(unet.pick_total_ms, 2.0, 1e-12);
  EXPECT_NEAR(unet.best_total_ms, 1.5, 1e-12);
}

TEST(WorkloadReport, DuplicatesAddTheirModelsToTheGraphThatRan) {
  auto suite = workload_oracle_suite();
  GraphResult dup;
  dup.graph_name = dup.graph_path = "conv-again";
  dup.duplicate_of = "conv";
  suite.graphs.push_back(dup);
  suite.layer_models["conv-again"] = {{"vgg", 5}};
  const auto report = workload_report(suite);
  const auto& p = report.providers[0];
  EXPECT_EQ(p.groups[0].layers_judged, 15);  // 10 + the duplicate's 5
  EXPECT_EQ(find(p, "model", "vgg").graphs_beaten, 1);
  EXPECT_EQ(workload_inputs_line(suite), "Workloads: 3 distinct graphs (15 layers) from 4 models");
}

TEST(WorkloadReport, WithoutLayerModelsThereIsNoReport) {
  auto suite = workload_oracle_suite();
  suite.layer_models.clear();
  EXPECT_TRUE(workload_report(suite).empty());
  EXPECT_EQ(workload_inputs_line(suite), "");
}

TEST(WorkloadReport, RegretErrorsAreNotJudged) {
  auto suite = workload_oracle_suite();
  suite.graphs[2].regret[0].best_plan = "e9";  // a comparison that failed: a note, no delta
  suite.graphs[2].regret[0].note = "CudnnError: out of memory";
  const auto report = workload_report(suite);  // kept: a reference into a temporary dangles
  const auto& all = report.providers[0].groups[0];
  EXPECT_EQ(all.graphs_judged, 2);
  EXPECT_EQ(all.graphs, 3);  // still timed
}

TEST(WorkloadReport, ConsoleAndJson) {
  auto suite = workload_oracle_suite();
  const auto report = workload_report(suite);
  std::ostringstream out;
  print_workload_report(out, report);
  EXPECT_NE(out.str().find("Workload report, cudnn 9.14.0: 3 graphs (10 layers) of 3 models"),
            std::string::npos)
      << out.str();
  EXPECT_NE(out.str().find("model resnet"), std::string::npos) << out.str();
  const auto json = workload_report_to_json(report);
  ASSERT_EQ(json.size(), 1u);
  EXPECT_EQ(json[0]["version"], "9.14.0");
  EXPECT_EQ(json[0]["groups"][0]["oracle"]["graphs_beaten"], 1);
  EXPECT_NEAR(json[0]["groups"][0]["oracle"]["time_saved_share"].get<double>(), 4.0 / 14.0, 1e-12);
  // The layer models travel in the results, so `compare` and `report --html` rebuild the report.
  const auto back = suite_from_json(suite_to_json(suite));
  EXPECT_EQ(back.layer_models, suite.layer_models);
}

TEST(WorkloadReport, DiffJoinsGroupsOfTwoRuns) {
  auto a = workload_oracle_suite();
  auto b = workload_oracle_suite();
  b.metadata["providers"]["cudnn"]["version"] = "9.19.0";
  b.graphs[0].regret = {regret(std::nullopt)};  // B's pick for conv is the best plan
  const auto diff = workload_diff(workload_report(a), workload_report(b));
  ASSERT_EQ(diff.size(), 7u);
  EXPECT_EQ(diff[0].version_a, "9.14.0");
  EXPECT_EQ(diff[0].version_b, "9.19.0");
  EXPECT_EQ(diff[0].a.graphs_beaten, 1);
  EXPECT_EQ(diff[0].b.graphs_beaten, 0);
  std::ostringstream out;
  print_workload_diff(out, diff);
  EXPECT_NE(out.str().find("A cudnn 9.14.0 vs B cudnn 9.19.0"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("33.3%→0.0%"), std::string::npos) << out.str();
  const auto json = workload_diff_to_json(diff);
  EXPECT_EQ(json[0]["b"]["oracle"]["graphs_beaten"], 0);
  // A run without oracle verdicts has nothing to diff.
  for (auto& g : b.graphs) g.regret.clear();
  EXPECT_TRUE(workload_diff(workload_report(a), workload_report(b)).empty());
}

// An imported log's graph has a path that is the place in the log; a report line leads it with the
// graph's own name, which a file's path already holds.
TEST(WorkloadReport, AGraphIsNamedByItsPathLedByItsNameWhereThePathLacksIt) {
  EXPECT_EQ(graph_label("cudnn_graph_52", "r50.log.xz:1057703 (process 615; 1 executions; ran eng63)"),
            "cudnn_graph_52  r50.log.xz:1057703 (process 615; 1 executions; ran eng63)");
  EXPECT_EQ(graph_label("conv_fwd_2d", "graphs/samples/conv_fwd_2d.json"), "graphs/samples/conv_fwd_2d.json");
  EXPECT_EQ(graph_label("", "a.json"), "a.json");
}

}  // namespace
}  // namespace dnnbench
