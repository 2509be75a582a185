// Integration tests of `dnnbench run --oracle` with oneDNN on real graph files.
#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

json run_json(const std::vector<std::string>& extra, const std::string& graph) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  std::vector<std::string> args = {"run", "-q",       "-g", source_path(graph), "-o",
                                   out,   "--warmup", "1",  "--iters",          "5"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return json::parse(read_text(out));
}

TEST(OracleCommand, ConvRowsCarryOracleFieldsAndOotbFieldsAreUnchanged) {
  const std::string graph = "graphs/samples/conv_fwd_2d_nhwc_fp32.json";
  const auto with = run_json({"--oracle", "--oracle-max-seconds", "5"}, graph);
  const auto without = run_json({}, graph);
  const auto& rows = with["graphs"][0]["results"];
  const auto& plain = without["graphs"][0]["results"];
  ASSERT_EQ(rows.size(), plain.size());
  ASSERT_GE(rows.size(), 2u) << "oneDNN offers several implementations of this conv";
  int searched = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    // OOTB fields: same rows, plans, statuses and verdicts as a run without --oracle.
    for (const char* key : {"provider", "engine_id", "plan_name", "status", "passed"})
      EXPECT_EQ(r[key], plain[i][key]) << key;
    EXPECT_EQ(r["host_stats"]["n"], 5);
    for (const char* key : {"oracle", "oracle_delta", "oracle_error"}) {
      EXPECT_TRUE(r.contains(key));
      EXPECT_TRUE(plain[i][key].is_null()) << key << " must be null without --oracle";
    }
    ASSERT_TRUE(r["oracle_error"].is_null()) << r["oracle_error"];
    const auto& o = r["oracle"];
    for (const char* key :
         {"search", "verdict", "plan_name", "knobs", "rank_of_heuristic_plan", "candidates_total",
          "candidates_benchmarked", "candidates_failed", "sweep_time_ms", "cpu_build_time_ms",
          "gpu_kernel_stats", "host_stats", "warm_baseline_stats", "correctness", "candidates"})
      EXPECT_TRUE(o.contains(key)) << key;
    EXPECT_GE(o["candidates_total"].get<int>(), 1);
    EXPECT_GE(o["rank_of_heuristic_plan"].get<int>(), 1);
    if (o["search"] == "searched") ++searched;
    if (!r["oracle_delta"].is_null()) {
      const auto& d = r["oracle_delta"];
      for (const char* key :
           {"basis", "baseline_median_ms", "oracle_median_ms", "speedup", "ci95", "significant"})
        EXPECT_TRUE(d.contains(key)) << key;
      EXPECT_EQ(d["basis"], "host");
      EXPECT_LE(d["ci95"][0].get<double>(), d["speedup"].get<double>());
      EXPECT_GE(d["ci95"][1].get<double>(), d["speedup"].get<double>());
      EXPECT_TRUE(o["correctness"]["passed"].get<bool>());
      EXPECT_FALSE(o["warm_baseline_stats"].is_null());
    } else {
      EXPECT_FALSE(o["delta_withheld"].is_null());
    }
  }
  EXPECT_GT(searched, 0) << "at least one engine has a layout knob to sweep";
  const auto& regret = with["graphs"][0]["regret"];
  ASSERT_EQ(regret.size(), 1u);
  EXPECT_EQ(regret[0]["provider"], "onednn");
  EXPECT_EQ(regret[0]["pick_engine"], rows[0]["engine_id"]);
  EXPECT_TRUE(without["graphs"][0]["regret"].empty());
  EXPECT_EQ(with["metadata"]["options"]["oracle"]["enabled"], true);
}

TEST(OracleCommand, AASelfCheckComparesTheHeuristicPlanWithItself) {
  const auto doc = run_json({"--oracle-aa"}, "graphs/samples/matmul_plain_fp32.json");
  for (const auto& r : doc["graphs"][0]["results"]) {
    ASSERT_TRUE(r["oracle_error"].is_null()) << r["oracle_error"];
    EXPECT_EQ(r["oracle"]["search"], "aa-self-check");
    EXPECT_EQ(r["oracle"]["plan_name"], r["plan_name"]);
    ASSERT_FALSE(r["oracle_delta"].is_null());
  }
}

TEST(OracleCommand, ConsoleShowsSpeedupColumnAndFooter) {
  const auto r = run_cli({"run", "-g", source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json"), "--oracle",
                          "-v", "--warmup", "1", "--iters", "5"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("speedup [95% CI]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Oracle: "), std::string::npos);
  EXPECT_NE(r.out.find("rows have a significant gap"), std::string::npos);
  EXPECT_NE(r.out.find("regret (onednn)"), std::string::npos);
  EXPECT_EQ(r.err.find("primitive cache"), std::string::npos)
      << "oneDNN's cache is off: nothing to warn about";
}

TEST(OracleCommand, WarmupZeroWarns) {
  const auto r = run_cli({"run", "-q", "-g", source_path("graphs/samples/pointwise_relu.json"), "--oracle",
                          "--warmup", "0", "--iters", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("--warmup 0"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dnnbench::testing
