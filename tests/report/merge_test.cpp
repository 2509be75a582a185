// `dnnbench merge`: rows of a suite run in parts, each exactly once, in the suite's order.
#include "report/merge.hpp"

#include <gtest/gtest.h>

#include "report/json_report.hpp"

namespace dnnbench {
namespace {

RowResult row(const std::string& provider, const std::string& engine, double median = 1) {
  RowResult r;
  r.provider = provider;
  r.engine_id = engine;
  r.status = RowStatus::skipped;
  r.skip_reason = "x";
  r.analytical_flops = median;
  return r;
}

GraphResult graph_at(const std::string& path, std::vector<RowResult> rows) {
  GraphResult g;
  g.graph_name = path;
  g.graph_path = path;
  g.results = std::move(rows);
  return g;
}

MergeInput shard_file(int index, int count, std::vector<std::size_t> indices, std::vector<GraphResult> graphs,
                      bool complete = true) {
  SuiteResult suite;
  suite.complete = complete;
  suite.graphs = std::move(graphs);
  suite.metadata = {
      {"shard", {{"index", index}, {"count", count}, {"inputs", 9}, {"input_indices", indices}}},
      {"host", {{"hostname", "node" + std::to_string(index)}}}};
  return {"shard" + std::to_string(index) + ".json", suite_to_json(suite)};
}

std::vector<std::string> paths(const SuiteResult& suite) {
  std::vector<std::string> out;
  for (const auto& g : suite.graphs) out.push_back(g.graph_path);
  return out;
}

TEST(Merge, ShardsInInputOrder) {
  const auto merged =
      merge_results({shard_file(1, 2, {1, 2}, {graph_at("b", {row("onednn", "e")}), graph_at("c", {})}),
                     shard_file(2, 2, {0, 3}, {graph_at("a", {row("onednn", "e")}), graph_at("d", {})})});
  EXPECT_EQ(paths(merged.suite), (std::vector<std::string>{"a", "b", "c", "d"}));
  EXPECT_TRUE(merged.suite.complete);
  EXPECT_TRUE(merged.warnings.empty());
  EXPECT_EQ(merged.suite.summary().rows, 2);
  EXPECT_EQ(merged.suite.metadata["merged_from"].size(), 2u);
  EXPECT_FALSE(merged.suite.metadata.contains("shard"));
}

TEST(Merge, EachRowOnce) {
  // The same graph in two files (a rerun): rows it already has are dropped, new ones added.
  const auto merged = merge_results(
      {shard_file(1, 2, {0}, {graph_at("a", {row("onednn", "e1"), row("onednn", "e2")})}),
       shard_file(2, 2, {0}, {graph_at("a", {row("onednn", "e2", 7), row("reference", "ref")})})});
  ASSERT_EQ(merged.suite.graphs.size(), 1u);
  const auto& rows = merged.suite.graphs[0].results;
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1].engine_id, "e2");
  EXPECT_EQ(rows[1].analytical_flops, 1) << "the first file's row is kept";
  EXPECT_EQ(rows[2].provider, "reference");
  EXPECT_EQ(merged.rows_dropped, 1u);
  EXPECT_FALSE(merged.warnings.empty());
}

TEST(Merge, MissingShardOrIncompleteFileIsIncomplete) {
  auto merged =
      merge_results({shard_file(1, 3, {0}, {graph_at("a", {})}), shard_file(3, 3, {2}, {graph_at("c", {})})});
  EXPECT_FALSE(merged.suite.complete);
  ASSERT_FALSE(merged.warnings.empty());
  EXPECT_NE(merged.warnings.back().find("shard 2 of 3 missing"), std::string::npos) << merged.warnings.back();
  merged = merge_results({shard_file(1, 1, {0}, {graph_at("a", {})}, /*complete=*/false)});
  EXPECT_FALSE(merged.suite.complete);
}

TEST(Merge, RefusesWhatIsNotResults) {
  EXPECT_THROW(merge_results({{"x.json", nlohmann::json{{"a", 1}}}}), std::runtime_error);
  auto wrong = shard_file(1, 1, {0}, {graph_at("a", {})});
  wrong.results["schema_version"] = 99;
  EXPECT_THROW(merge_results({wrong}), std::runtime_error);
}

TEST(Merge, KeepsMeasuredBy) {
  auto r = row("onednn", "e");
  r.measured_by = MeasuredBy{2, "node9"};
  const auto merged = merge_results({shard_file(1, 1, {0}, {graph_at("a", {r})})});
  ASSERT_TRUE(merged.suite.graphs[0].results[0].measured_by);
  EXPECT_EQ(merged.suite.graphs[0].results[0].measured_by->rank, 2);
  EXPECT_EQ(merged.suite.graphs[0].results[0].measured_by->host, "node9");
}

}  // namespace
}  // namespace dnnbench
