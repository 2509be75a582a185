#include "report/pass_merge.hpp"

#include <gtest/gtest.h>

#include "measure/stats.hpp"
#include "report/json_read.hpp"
#include "report/json_report.hpp"

namespace dnnbench {
namespace {

RowResult timed_row(const std::string& engine, double ms) {
  RowResult r;
  r.provider = "onednn";
  r.engine_id = engine;
  r.host_stats = summarize({ms * 0.99, ms, ms * 1.01});
  r.correctness = Correctness{};
  return r;
}

PassSuite pass(int number, std::int64_t pid, std::vector<RowResult> rows,
               const std::string& path = "g.json") {
  GraphResult g;
  g.graph_name = "g";
  g.graph_path = path;
  g.results = std::move(rows);
  PassSuite p;
  p.pass = number;
  p.pid = pid;
  p.suite.graphs = {g};
  return p;
}

TEST(PassMerge, RowReportsTheMiddlePassAndRecordsEveryPass) {
  // Pass 2 ran in a slow stretch of the machine: 1.7x. The row reports pass 3 (median 1.02).
  const auto merged =
      merge_pass_suites({pass(1, 101, {timed_row("a", 1.0)}), pass(2, 102, {timed_row("a", 1.7)}),
                         pass(3, 103, {timed_row("a", 1.02)})});
  ASSERT_EQ(merged.graphs.size(), 1u);
  ASSERT_EQ(merged.graphs[0].results.size(), 1u);
  const auto& row = merged.graphs[0].results[0];
  EXPECT_DOUBLE_EQ(row.host_stats->median, 1.02);
  ASSERT_TRUE(row.repeat);
  EXPECT_EQ(row.repeat->method, kRepeatMethodPasses);
  EXPECT_EQ(row.repeat->medians_ms, (std::vector<double>{1.0, 1.7, 1.02}));
  EXPECT_EQ(row.repeat->passes, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(row.repeat->pids, (std::vector<std::int64_t>{101, 102, 103}));
  EXPECT_EQ(row.repeat->chosen_pass, 3);
  EXPECT_NEAR(row.repeat->spread, 0.7, 1e-12);
}

TEST(PassMerge, FailureInAnyPassIsReportedAndMissingRowsAreKept) {
  auto broken = timed_row("a", 1.0);
  broken.status = RowStatus::error;
  broken.error_message = "crashed";
  broken.host_stats.reset();
  // Engine b not in pass 1 (it died before the row): kept, from the passes that have it.
  const auto merged =
      merge_pass_suites({pass(1, 11, {timed_row("a", 1.0)}), pass(2, 12, {broken, timed_row("b", 2.0)}),
                         pass(3, 13, {timed_row("a", 1.1), timed_row("b", 2.2)})});
  ASSERT_EQ(merged.graphs.size(), 1u);
  const auto& rows = merged.graphs[0].results;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].status, RowStatus::error);
  ASSERT_TRUE(rows[0].repeat);  // the passes that did time it still say how it moved
  EXPECT_EQ(rows[0].repeat->passes, (std::vector<int>{1, 3}));
  EXPECT_EQ(*rows[1].engine_id, "b");
  EXPECT_DOUBLE_EQ(rows[1].host_stats->median, 2.0);  // lower middle of two
  EXPECT_EQ(rows[1].repeat->chosen_pass, 2);
  // A single timed pass has no spread to report.
  const auto single = merge_pass_suites({pass(1, 11, {timed_row("c", 1.0)})});
  EXPECT_FALSE(single.graphs[0].results[0].repeat);
}

TEST(PassMerge, PassFieldsSurviveTheJsonRoundTrip) {
  const auto merged =
      merge_pass_suites({pass(1, 101, {timed_row("a", 1.0)}), pass(2, -1, {timed_row("a", 1.1)})});
  const auto back = row_from_json(row_to_json(merged.graphs[0].results[0]));
  ASSERT_TRUE(back.repeat);
  EXPECT_EQ(back.repeat->passes, (std::vector<int>{1, 2}));
  EXPECT_EQ(back.repeat->pids, (std::vector<std::int64_t>{101, -1}));  // unknown: null in JSON
  EXPECT_EQ(back.repeat->chosen_pass, 1);
  EXPECT_EQ(back.repeat->method, kRepeatMethodPasses);
}

}  // namespace
}  // namespace dnnbench
