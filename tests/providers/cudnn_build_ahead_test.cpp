// Building ahead on the GPU (distribute/build_ahead.hpp): a runtime-compiled cuDNN plan compiled by
// build_ahead() is what the row then loads; a suite with --compile-ahead starts its children and
// compiles each plan once, whoever gets to it first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "graph/reader.hpp"
#include "input/archive.hpp"  // ScopedTempDir
#include "providers/cudnn/cudnn_provider.hpp"
#include "run/row_runner.hpp"
#include "session/graph_data.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

#define REQUIRE_GPU() \
  if (!cudnn_device_available()) GTEST_SKIP() << "no CUDA device"

const fs::path kConv = fs::path(DNNBENCH_SOURCE_DIR) / "graphs" / "samples" / "conv_fwd_2d_nhwc_fp16.json";

bool runtime_compiled(const EngineInfo& engine) {
  return std::find(engine.notes.begin(), engine.notes.end(), "RUNTIME_COMPILATION") != engine.notes.end();
}

std::size_t records_in(const fs::path& folder) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(folder)) n += e.path().extension() == ".json";
  return n;
}

TEST(CudnnBuildAhead, APlanBuiltAheadIsTheOneTheRowLoads) {
  REQUIRE_GPU();
  ScopedTempDir cache_dir("dnnbench-build-ahead");
  setenv("DNNBENCH_PLAN_CACHE", "off", 1);
  EXPECT_FALSE(make_cudnn_provider()->can_build_ahead());  // nowhere to put what it builds
  setenv("DNNBENCH_PLAN_CACHE", cache_dir.path().c_str(), 1);
  Graph graph = read_graph_file(kConv);
  graph.content_hash = "test:build-ahead";
  auto ahead = make_cudnn_provider();
  ASSERT_TRUE(ahead->can_build_ahead());
  // The first runtime-compiled engine cuDNN runs for the graph (9.14 refuses eng5's config).
  std::optional<EngineInfo> built;
  for (const auto& engine : ahead->engines(graph)) {
    if (!runtime_compiled(engine)) {
      EXPECT_FALSE(ahead->build_ahead(graph, engine)) << engine.id << ": builds in ms, nothing to do ahead";
      continue;
    }
    try {
      if (ahead->build_ahead(graph, engine)) {
        built = engine;
        break;
      }
    } catch (const std::exception&) {  // a config cuDNN refuses: the next engine
    }
  }
  if (!built) {
    unsetenv("DNNBENCH_PLAN_CACHE");
    GTEST_SKIP() << "cuDNN runs no runtime-compiled engine for the graph";
  }
  EXPECT_EQ(records_in(cache_dir.path()), 1u);
  EXPECT_FALSE(ahead->build_ahead(graph, *built)) << "stored already: not compiled again";
  EXPECT_EQ(records_in(cache_dir.path()), 1u);

  auto provider = make_cudnn_provider();
  auto stream = provider->make_stream();
  GraphData data(graph, 42);
  RunOptions options;
  options.warmup = 1;
  options.iters = 3;
  const auto row = run_row(data, *provider, *stream, *built, options);
  ASSERT_TRUE(row.passed()) << row.error_message.value_or("");
  EXPECT_EQ(row.plan_cache, "loaded") << built->id;
  unsetenv("DNNBENCH_PLAN_CACHE");
}

TEST(CudnnBuildAhead, ASuiteStartsItsChildrenAndCompilesEachPlanOnce) {
  REQUIRE_GPU();
  testing::TempDir dir;
  const auto cache = dir / "plans";
  const auto run = [&](const std::string& out, const std::string& children) {
    return testing::run_cli({"run", "-g", kConv.string(), "--provider", "cudnn", "--iters", "3",
                             "--compile-ahead", children, "-o", (dir / out).string()},
                            {"DNNBENCH_PLAN_CACHE=" + cache.string()});
  };
  const auto first = run("first.json", "2");
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  const auto doc = json::parse(testing::read_text(dir / "first.json"));
  EXPECT_EQ(doc["metadata"]["isolation"]["compile_ahead_children"], 2);
  std::size_t cached_rows = 0;
  for (const auto& row : doc["graphs"][0]["results"]) {
    if (!row.contains("plan_cache") || row["plan_cache"].is_null()) continue;
    ++cached_rows;
    EXPECT_EQ(row["status"], "success") << row.dump();
    // Compiled by a child and loaded, or compiled by the row itself: never both.
    EXPECT_TRUE(row["plan_cache"] == "loaded" || row["plan_cache"] == "stored") << row.dump();
  }
  if (cached_rows == 0) GTEST_SKIP() << "cuDNN runs no runtime-compiled engine for the graph";
  EXPECT_EQ(records_in(cache), cached_rows);
  for (const auto& e : fs::directory_iterator(cache))
    EXPECT_NE(e.path().extension(), ".lock") << "a claim outlived its compile: " << e.path();
  // Everything is stored: no child has work, every such row loads.
  const auto second = run("second.json", "0");
  ASSERT_EQ(second.exit_code, 0) << second.out << second.err;
  const auto again = json::parse(testing::read_text(dir / "second.json"));
  EXPECT_EQ(again["metadata"]["isolation"]["compile_ahead_children"], 0);
  for (const auto& row : again["graphs"][0]["results"]) {
    if (row.contains("plan_cache") && !row["plan_cache"].is_null()) {
      EXPECT_EQ(row["plan_cache"], "loaded") << row.dump();
    }
  }
}

}  // namespace
}  // namespace dnnbench
