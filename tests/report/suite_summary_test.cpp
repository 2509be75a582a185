// Graph statuses (ok / error / duplicate / filtered) and the summary's per-status and
// per-provider counts, in the results model and the JSON.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <sstream>

#include "report/console_report.hpp"
#include "report/json_report.hpp"

namespace dnnbench {
namespace {

RowResult row(const std::string& provider, RowStatus status, double median_ms = 1.0) {
  RowResult r;
  r.provider = provider;
  r.engine_id = provider + "-engine";
  r.status = status;
  if (status == RowStatus::success) {
    r.correctness = Correctness{};
    r.host_stats = summarize({median_ms, median_ms, median_ms});
  }
  return r;
}

SuiteResult sample_suite() {
  SuiteResult suite;
  GraphResult ran;
  ran.graph_name = "a";
  ran.graph_path = "a.json";
  ran.results = {row("onednn", RowStatus::success, 5.0), row("onednn", RowStatus::skipped),
                 row("reference", RowStatus::success, 9.0), row("reference", RowStatus::error)};
  GraphResult duplicate;
  duplicate.graph_name = "b";
  duplicate.graph_path = "b.json";
  duplicate.duplicate_of = "a.json";
  GraphResult filtered;
  filtered.graph_name = "c";
  filtered.filtered = true;
  GraphResult broken;
  broken.graph_path = "x.tar:../evil.json";
  broken.ok = false;
  broken.error_message = "x.tar: entry '../evil.json': refused";
  suite.graphs = {ran, duplicate, filtered, broken};
  suite.complete = true;
  return suite;
}

TEST(SuiteSummary, GraphStatusNames) {
  const auto suite = sample_suite();
  EXPECT_EQ(graph_status_name(suite.graphs[0]), "ok");
  EXPECT_EQ(graph_status_name(suite.graphs[1]), "duplicate");
  EXPECT_EQ(graph_status_name(suite.graphs[2]), "filtered");
  EXPECT_EQ(graph_status_name(suite.graphs[3]), "error");
}

TEST(SuiteSummary, CountsPerStatusAndPerProviderInFirstSeenOrder) {
  const auto s = sample_suite().summary();
  EXPECT_EQ(s.graphs, 4);
  EXPECT_EQ(s.graph_errors, 1);
  EXPECT_EQ(s.duplicates, 1);
  EXPECT_EQ(s.filtered, 1);
  EXPECT_EQ(s.rows, 4);
  ASSERT_EQ(s.providers.size(), 2u);
  EXPECT_EQ(s.providers[0].first, "onednn");
  EXPECT_EQ(s.providers[0].second.passed, 1);
  EXPECT_EQ(s.providers[0].second.skipped, 1);
  EXPECT_EQ(s.providers[1].first, "reference");
  EXPECT_EQ(s.providers[1].second.errors, 1);
  EXPECT_EQ(exit_code_for(sample_suite()), 1);
}

TEST(SuiteSummary, JsonHasStatusesDuplicateOfAndProviderCounts) {
  const auto j = suite_to_json(sample_suite());
  EXPECT_EQ(j["graphs"][1]["status"], "duplicate");
  EXPECT_EQ(j["graphs"][1]["duplicate_of"], "a.json");
  EXPECT_TRUE(j["graphs"][0]["duplicate_of"].is_null());
  EXPECT_EQ(j["graphs"][2]["status"], "filtered");
  EXPECT_EQ(j["summary"]["duplicates"], 1);
  EXPECT_EQ(j["summary"]["filtered"], 1);
  EXPECT_EQ(j["summary"]["providers"]["reference"]["errors"], 1);
  EXPECT_TRUE(j["graphs"][0]["results"][0].contains("engine_label"));
}

TEST(SuiteSummary, ConsoleListsNotRunGraphsProvidersAndSlowestRows) {
  std::ostringstream out;
  print_suite_summary(out, sample_suite());
  const auto text = out.str();
  EXPECT_NE(text.find("not run: 1 duplicate graphs"), std::string::npos) << text;
  EXPECT_NE(text.find("1 filtered out by --op"), std::string::npos);
  EXPECT_NE(text.find("  onednn: 2 rows: 1 passed"), std::string::npos) << text;
  const auto slowest = text.find("slowest rows");
  ASSERT_NE(slowest, std::string::npos);
  // Slowest first: the reference row (9 ms) before the oneDNN one (5 ms).
  EXPECT_LT(text.find("a / reference / reference-engine", slowest),
            text.find("a / onednn / onednn-engine", slowest));
  EXPECT_NE(text.find("load error: x.tar: entry '../evil.json': refused"), std::string::npos);
}

// Where the time went: stages summed over rows and graphs, largest first, and rows a minute over
// the graphs' wall time; stages under 50 ms are left out.
TEST(SuiteSummary, ConsoleSaysWhereTheTimeWent) {
  auto suite = sample_suite();
  auto& g = suite.graphs[0];
  g.wall_ms = 6000;  // the sample's rows: 3 in 6 s, 30 a minute
  g.stage_ms = {{"engines", 400}};
  g.results[0].stage_ms = {{"measure", 2500}, {"warm-up", 1500}, {"release", 10}};
  g.results[1].stage_ms = {{"measure", 500}};
  std::ostringstream out;
  print_suite_summary(out, suite);
  const auto text = out.str();
  const auto rows = static_cast<double>(g.results.size());
  EXPECT_NE(text.find(fmt::format(
                "time: 6.0 s over the graphs, {:.0f} rows a minute; measure 3.0 s, warm-up 1.5 s, "
                "engines 0.4 s\n",
                rows * 10)),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("release"), std::string::npos);
}

// The power cap's rows: their warm-up in all, its median, and its median right after another
// capped row (the previous timed row; untimed rows between do not break the pair).
TEST(SuiteSummary, ConsoleSaysWhatThePowerCapsRowsPaidToWarmUp) {
  auto suite = sample_suite();
  auto& rows = suite.graphs[0].results;
  const auto timed = [](RowResult& r, bool capped, double warmup_ms) {
    r.timing = TimingInfo{};
    if (capped) r.timing->other_regime = TimingInfo::OtherRegime{};
    r.stage_ms = {{"warm-up", warmup_ms}};
  };
  timed(rows[0], true, 1400);  // after nothing
  timed(rows[2], true, 1200);  // after rows[0] (rows[1] was skipped, untimed)
  rows.push_back(row("onednn", RowStatus::success));
  timed(rows.back(), false, 20);
  rows.push_back(row("onednn", RowStatus::success));
  timed(rows.back(), true, 1600);  // after a row below the cap
  std::ostringstream out;
  print_suite_summary(out, suite);
  EXPECT_NE(out.str().find("power cap: 3 rows warmed up 4.2 s, a median 1.40 s each; 1.20 s right after "
                           "another capped row (1 row)\n"),
            std::string::npos)
      << out.str();
  // A capped row that opened a group after the heater is counted apart, with the heater's power.
  rows.push_back(row("onednn", RowStatus::success));
  timed(rows.back(), true, 300);
  rows.back().timing->kept_warm = TimingInfo::KeptWarm{400, 690.0, 1500.0};
  std::ostringstream heated;
  print_suite_summary(heated, suite);
  EXPECT_NE(heated.str().find("power cap: 4 rows warmed up 4.5 s, a median 1.30 s each; 1.20 s right after "
                              "another capped row (1 row); 0.30 s after the heater kept the device loaded "
                              "(1 row, at 690 W)\n"),
            std::string::npos)
      << heated.str();
  // No row at the cap: no line.
  std::ostringstream none;
  print_suite_summary(none, sample_suite());
  EXPECT_EQ(none.str().find("power cap:"), std::string::npos);
}

}  // namespace
}  // namespace dnnbench
