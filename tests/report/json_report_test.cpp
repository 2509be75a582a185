#include "report/json_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace dnnbench {
namespace {

RowResult passed_row() {
  RowResult row;
  row.provider = "onednn";
  row.engine_id = "jit:avx2";
  row.plan_name = "jit:avx2_layout=any";
  row.host_stats = summarize({1.0, 2.0, 3.0});
  row.analytical_flops = 2e9;
  row.correctness = Correctness{};
  return row;
}

TEST(JsonReport, EveryRowKeyIsPresentEvenWhenEmpty) {
  RowResult skipped;
  skipped.provider = "onednn";
  skipped.status = RowStatus::skipped;
  skipped.skip_reason = "unsupported op X";
  const auto j = row_to_json(skipped);
  for (const char* key : {"provider", "engine_id", "engine_name", "status", "skip_reason", "error_message",
                          "plan_name", "cpu_build_time_ms", "host_stats", "gpu_kernel_stats",
                          "analytical_flops", "analytical_io_bytes", "correctness"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["engine_id"].is_null());
  EXPECT_TRUE(j["host_stats"].is_null());
  EXPECT_EQ(j["status"], "skipped");
}

TEST(JsonReport, ThroughputComesFromTheMedian) {
  const auto j = row_to_json(passed_row());
  EXPECT_DOUBLE_EQ(j["flops_per_second"].get<double>(), 2e9 / 2e-3);
  EXPECT_EQ(j["host_stats"]["median_ms"], 2.0);
}

TEST(JsonReport, NonFiniteErrorsBecomeNull) {
  auto row = passed_row();
  row.correctness->passed = false;
  row.correctness->norm_rel_error = INFINITY;
  EXPECT_TRUE(row_to_json(row)["correctness"]["norm_rel_error"].is_null());
}

TEST(JsonReport, SummaryAndExitCodeFollowRowStatuses) {
  SuiteResult suite;
  GraphResult g;
  g.results.push_back(passed_row());
  suite.graphs.push_back(g);
  EXPECT_EQ(exit_code_for(suite), 0);
  GraphResult broken;
  broken.ok = false;
  suite.graphs.push_back(broken);
  EXPECT_EQ(exit_code_for(suite), 1);
  auto failed = passed_row();
  failed.correctness->passed = false;
  suite.graphs[0].results.push_back(failed);
  EXPECT_EQ(exit_code_for(suite), 3);
  const auto j = suite_to_json(suite);
  EXPECT_EQ(j["summary"]["passed"], 1);
  EXPECT_EQ(j["summary"]["failed"], 1);
  EXPECT_EQ(j["summary"]["graph_errors"], 1);
  EXPECT_EQ(j["schema_version"], kResultsSchemaVersion);
}

TEST(JsonReport, WriteIsAtomicAndLeavesNoTemporary) {
  const auto dir = std::filesystem::temp_directory_path() / "dnnbench-json-test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto path = dir / "r.json";
  write_json_file(path, {{"a", 1}});
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path.string() + ".tmp"));
  std::ifstream in(path);
  EXPECT_EQ(nlohmann::json::parse(in)["a"], 1);
  std::filesystem::remove_all(dir);
}

// Before a run: a folder, a missing folder, an unwritable place are refused with the path, and
// the check leaves nothing behind (no PATH.tmp, no folder made).
TEST(JsonReport, CheckWritableFile) {
  namespace fs = std::filesystem;
  const auto dir = fs::temp_directory_path() / "dnnbench-writable-test";
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto refusal = [](const fs::path& path) {
    try {
      check_writable_file(path);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(refusal(dir / "r.json"), "");
  EXPECT_FALSE(fs::exists(dir / "r.json.tmp"));
  EXPECT_FALSE(fs::exists(dir / "r.json"));
  EXPECT_NE(refusal(dir).find("is a folder"), std::string::npos) << refusal(dir);
  EXPECT_NE(refusal(dir / "missing" / "r.json").find("does not exist"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "missing"));
  // /sys refuses new files even to root, so this holds whoever runs the tests.
  EXPECT_NE(refusal("/sys/dnnbench-r.json").find("cannot write"), std::string::npos);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace dnnbench
