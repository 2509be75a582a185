// Integration tests of `dnnbench run`: the real binary on real graph files.
#include <gtest/gtest.h>

#include <set>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

TEST(RunCommand, SampleGraphsAllPassOrSkipAndJsonHasEveryKey) {
  TempDir dir;
  const auto out = (dir / "results.json").string();
  const auto r = run_cli(run_args({"-g", source_path("graphs/samples"), "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  for (const char* key : {"schema_version", "complete", "metadata", "summary", "graphs", "exit_code"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["complete"], true);
  for (const char* key : {"graphs", "rows", "passed", "failed", "skipped", "errors"})
    EXPECT_TRUE(doc["summary"].contains(key)) << key;
  EXPECT_EQ(doc["summary"]["failed"], 0);
  EXPECT_EQ(doc["summary"]["errors"], 0);
  EXPECT_GT(doc["summary"]["passed"].get<int>(), 20);
  for (const char* key :
       {"timestamp_utc", "tool", "command_line", "host", "providers", "seed", "environment"})
    EXPECT_TRUE(doc["metadata"].contains(key)) << key;
  const std::set<std::string> row_keys = {
      "provider",         "engine_id",           "engine_name",       "status",     "skip_reason",
      "error_message",    "plan_name",           "cpu_build_time_ms", "host_stats", "gpu_kernel_stats",
      "analytical_flops", "analytical_io_bytes", "correctness"};
  int success_rows = 0;
  for (const auto& g : doc["graphs"]) {
    for (const char* key : {"graph_name", "graph_path", "status", "error_message", "results"})
      EXPECT_TRUE(g.contains(key)) << key;
    EXPECT_EQ(g["status"], "ok") << g["graph_path"];
    for (const auto& row : g["results"]) {
      for (const auto& key : row_keys) EXPECT_TRUE(row.contains(key)) << key << " in " << g["graph_name"];
      EXPECT_NE(row["status"], "error") << g["graph_name"] << ": " << row["error_message"];
      if (row["status"] == "success") {
        ++success_rows;
        EXPECT_TRUE(row["gpu_kernel_stats"].is_null());
        for (const char* key :
             {"n", "mean_ms", "median_ms", "stddev_ms", "min_ms", "max_ms", "p95_ms", "p99_ms"})
          EXPECT_TRUE(row["host_stats"].contains(key)) << key;
        EXPECT_EQ(row["host_stats"]["n"], 3);
        EXPECT_TRUE(row["correctness"]["passed"].get<bool>()) << g["graph_name"] << " " << row["engine_id"];
        for (const char* key : {"passed", "max_abs_diff", "max_rel_diff", "norm_rel_error", "rtol", "atol"})
          EXPECT_TRUE(row["correctness"].contains(key)) << key;
      } else {
        EXPECT_FALSE(row["skip_reason"].get<std::string>().empty());
      }
    }
  }
  EXPECT_EQ(doc["summary"]["passed"], success_rows);
}

TEST(RunCommand, ConsoleTableShowsEnginesAndTotals) {
  const auto r = run_cli(run_args({"-g", source_path("graphs/samples/conv_fwd_2d_nhwc_fp32.json")}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("conv_fwd_2d_nhwc_fp32"), std::string::npos);
  EXPECT_NE(r.out.find("median ms"), std::string::npos);
  EXPECT_NE(r.out.find("passed"), std::string::npos);
  EXPECT_NE(r.out.find("Summary: 1 graphs"), std::string::npos);
}

TEST(RunCommand, VerboseAddsDetailBlocks) {
  const auto r = run_cli(run_args({"-g", source_path("graphs/samples/matmul_plain_fp32.json"), "-v"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("host: n=3 median="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("check "), std::string::npos);
  EXPECT_NE(r.out.find("reference: cpu-fp64"), std::string::npos);
}

TEST(RunCommand, UnsupportedOpIsASkippedRowNotAnError) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(
      run_args({"-g", source_path("graphs/samples/unsupported_block_scale_quantize.json"), "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = read_json(out);
  const auto& row = doc["graphs"][0]["results"][0];
  EXPECT_EQ(row["status"], "skipped");
  EXPECT_EQ(row["skip_reason"], "unsupported op BlockScaleQuantizeAttributes");
}

TEST(RunCommand, MalformedGraphIsAGraphErrorWithFileAndPathAndTheSuiteGoesOn) {
  TempDir dir;
  std::ofstream(dir / "bad.json") << R"({"name": "bad", "tensors": [{"uid": 1, "name": "x", "dims": [2, "a"],
    "strides": [1, 1], "data_type": "float"}], "nodes": []})";
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(run_args({"-g", (dir / "bad.json").string(), "-g",
                                   source_path("graphs/samples/pointwise_relu.json"), "-o", out}));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  const auto doc = read_json(out);
  ASSERT_EQ(doc["graphs"].size(), 2u);
  EXPECT_EQ(doc["graphs"][0]["status"], "error");
  const auto message = doc["graphs"][0]["error_message"].get<std::string>();
  EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
  EXPECT_NE(message.find("tensors[0].dims[1]"), std::string::npos) << message;
  EXPECT_EQ(doc["graphs"][1]["status"], "ok");
  EXPECT_GT(doc["summary"]["passed"].get<int>(), 0);
  EXPECT_NE(r.out.find("load error"), std::string::npos);
}

TEST(RunCommand, MissingFileIsAGraphError) {
  const auto r = run_cli(run_args({"-g", "/nonexistent/graph.json"}));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("/nonexistent/graph.json"), std::string::npos) << r.out;
}

TEST(RunCommand, ValidationFailureExitsThree) {
  // Zero tolerance: fp32 arithmetic cannot match the fp64 reference on a normalization.
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(run_args({"-g", source_path("graphs/samples/layernorm_training.json"), "--rtol", "0",
                                   "--atol", "0", "-o", out}));
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const auto doc = read_json(out);
  EXPECT_GT(doc["summary"]["failed"].get<int>(), 0);
  EXPECT_NE(r.out.find("FAILED"), std::string::npos);
}

TEST(RunCommand, UsageErrorsExitTwo) {
  EXPECT_EQ(run_cli({"run"}).exit_code, 2);  // no -g
  EXPECT_EQ(run_cli({"run", "-g", source_path("graphs/samples/pointwise_relu.json"), "--bogus"}).exit_code,
            2);
  EXPECT_EQ(
      run_cli({"run", "-g", source_path("graphs/samples/pointwise_relu.json"), "--iters", "0"}).exit_code, 2);
  const auto r =
      run_cli({"run", "-g", source_path("graphs/samples/pointwise_relu.json"), "--provider", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown provider 'nope'"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli({}).exit_code, 2);  // no subcommand
}

TEST(RunCommand, EngineFilterKeepsOrderAndReportsMissingEngines) {
  TempDir dir;
  const auto out = (dir / "r.json").string();
  const auto r = run_cli(run_args({"-g", source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json"), "--engine",
                                   "ref:any,no-such-engine", "-o", out}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto rows = read_json(out)["graphs"][0]["results"];
  ASSERT_EQ(rows.size(), 2u) << rows.dump(1);
  EXPECT_EQ(rows[0]["engine_id"], "ref:any");
  EXPECT_EQ(rows[0]["status"], "success");
  EXPECT_EQ(rows[1]["engine_id"], "no-such-engine");
  EXPECT_EQ(rows[1]["status"], "skipped");
}

TEST(RunCommand, DumpTensorsWritesInputsReferenceAndRowOutputs) {
  TempDir dir;
  const auto dump = dir / "dump";
  const auto r = run_cli(run_args({"-g", source_path("graphs/samples/matmul_plain_fp32.json"), "--engine",
                                   "ref:any", "--dump-tensors", dump.string()}));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto root = dump / "matmul_plain_fp32";
  ASSERT_TRUE(std::filesystem::is_directory(root / "inputs")) << r.out;
  ASSERT_TRUE(std::filesystem::is_directory(root / "reference"));
  ASSERT_TRUE(std::filesystem::is_directory(root / "onednn" / "ref_any"));
  int files = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    ++files;
    EXPECT_EQ(entry.path().extension(), ".npy");
    EXPECT_EQ(read_text(entry.path()).substr(0, 6), "\x93NUMPY");
  }
  EXPECT_GE(files, 4);  // a, b inputs; reference c; onednn c
}

TEST(RunCommand, SameSeedGivesSameInputsAndDifferentSeedDifferent) {
  TempDir dir;
  auto dump_with_seed = [&](const std::string& seed) {
    const auto folder = dir / ("seed" + seed);
    run_cli(run_args({"-g", source_path("graphs/samples/pointwise_relu.json"), "--seed", seed,
                      "--dump-tensors", folder.string(), "--engine", "none"}));
    std::string all;
    for (const auto& e : std::filesystem::recursive_directory_iterator(folder / "pointwise_relu" / "inputs"))
      all += read_text(e.path());
    return all;
  };
  const auto a = dump_with_seed("7");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, dump_with_seed("7"));
  EXPECT_NE(a, dump_with_seed("8"));
}

TEST(ListEngines, PrintsEnginesPerProvider) {
  const auto r = run_cli({"list-engines", "-g", source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("onednn"), std::string::npos);
  EXPECT_NE(r.out.find("ref:any"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace dnnbench::testing
