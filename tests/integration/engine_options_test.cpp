// Integration tests of the engine and reference options of `dnnbench run`: --heur-mode,
// --max-engines, --cpu-reference and --max-plans-per-engine are checked and recorded in the
// metadata; a bad --heur-mode is a usage error naming the flag.
#include <gtest/gtest.h>

#include <map>

#include "cli_runner.hpp"

namespace dnnbench::testing {
namespace {

using nlohmann::json;

TEST(EngineOptions, BadHeuristicModeIsAUsageError) {
  const auto r =
      run_cli({"run", "-g", source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json"), "--heur-mode", "c"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--heur-mode"), std::string::npos) << r.err;
}

TEST(EngineOptions, RecordedInTheMetadataAndMaxEnginesCapsRows) {
  TempDir dir;
  const auto out = (dir / "results.json").string();
  std::vector<std::string> args = {"run",
                                   "-q",
                                   "-g",
                                   source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json"),
                                   "--heur-mode",
                                   "b",
                                   "--max-engines",
                                   "1",
                                   "--cpu-reference",
                                   "--max-plans-per-engine",
                                   "5",
                                   "-o",
                                   out};
  for (const auto& a : quick_timing()) args.push_back(a);
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto doc = json::parse(read_text(out));
  const auto& options = doc["metadata"]["options"];
  EXPECT_EQ(options["heur_mode"], "b");
  EXPECT_EQ(options["max_engines"], 1);
  EXPECT_EQ(options["gpu_reference"], false);
  EXPECT_EQ(options["oracle"]["max_plans"], 5);
  std::map<std::string, int> rows_per_provider;
  for (const auto& row : doc["graphs"][0]["results"]) {
    ++rows_per_provider[row["provider"].get<std::string>()];
    if (row["correctness"].is_object()) {
      EXPECT_EQ(row["correctness"]["reference"], "cpu-fp64");
    }
  }
  ASSERT_FALSE(rows_per_provider.empty());
  for (const auto& [provider, rows] : rows_per_provider) EXPECT_EQ(rows, 1) << provider;
}

TEST(EngineOptions, DefaultsAreRecorded) {
  TempDir dir;
  const auto out = (dir / "results.json").string();
  std::vector<std::string> args = {
      "run", "-q", "-g", source_path("graphs/samples/conv_fwd_2d_nchw_fp32.json"), "-o", out};
  for (const auto& a : quick_timing()) args.push_back(a);
  ASSERT_EQ(run_cli(args).exit_code, 0);
  const auto options = json::parse(read_text(out))["metadata"]["options"];
  EXPECT_TRUE(options["heur_mode"].is_null());
  EXPECT_EQ(options["max_engines"], 0);
  EXPECT_EQ(options["gpu_reference"], true);
}

}  // namespace
}  // namespace dnnbench::testing
