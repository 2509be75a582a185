#include "report/compare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "report/compare_report.hpp"
#include "report/json_read.hpp"
#include "report/json_report.hpp"
#include "report/noise_model.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

std::vector<double> samples(double centre, double spread = 0.01, int n = 30) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre * (1 + spread * std::sin(2.3 * i)));
  return v;
}

RowResult timed_row(const std::string& provider, const std::string& engine, double ms, bool save = true) {
  RowResult row;
  row.provider = provider;
  row.engine_id = engine;
  row.plan_name = engine + "_plan";
  const auto s = samples(ms);
  row.host_stats = summarize(s);
  TimingInfo t;
  t.method = "host-per-execution";
  if (save) t.samples_ms = s;
  row.timing = t;
  Correctness c;
  row.correctness = c;
  return row;
}

GraphResult named_graph(const std::string& name, std::vector<RowResult> rows, const std::string& hash = "") {
  GraphResult g;
  g.graph_name = name;
  g.graph_path = "graphs/" + name + ".json";
  if (!hash.empty()) g.content_hash = hash;
  g.results = std::move(rows);
  return g;
}

RunFile run(std::vector<GraphResult> graphs, const std::string& onednn_version = "3.5") {
  RunFile r;
  r.path = "run.json";
  r.suite.complete = true;
  r.suite.metadata = {{"providers", {{"onednn", {{"version", onednn_version}}}}},
                      {"options", {{"cache_mode", "hot"}, {"warmup", 1}}},
                      {"host", {{"cpu_model", "cpu"}, {"hostname", "h"}}}};
  r.suite.graphs = std::move(graphs);
  return r;
}

TEST(Verdict, JudgeAgainstTheBand) {
  EXPECT_EQ(judge({1.2, 1.15, 1.25, "x"}, 0.03), Verdict::slower);
  EXPECT_EQ(judge({0.8, 0.75, 0.85, "x"}, 0.03), Verdict::faster);
  EXPECT_EQ(judge({1.0, 0.99, 1.01, "x"}, 0.03), Verdict::same);
  EXPECT_EQ(judge({1.02, 0.99, 1.06, "x"}, 0.03), Verdict::undecided);
  EXPECT_EQ(judge({1.0, 0.5, 2.0, "x"}, 0.03), Verdict::undecided);
  // A change inside the band is not a speedup, however tight its interval.
  EXPECT_EQ(judge({1.02, 1.019, 1.021, "x"}, 0.03), Verdict::same);
}

TEST(Verdict, MedianCiFallbackWithoutSamples) {
  const auto a = timed_row("onednn", "e", 1.0, false), b = timed_row("onednn", "e", 2.0, false);
  const auto r = time_ratio(a, b);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->method, "median-ci");
  EXPECT_NEAR(r->ratio, 2.0, 1e-9);
  EXPECT_LE(r->ci_lo, r->ratio);
  EXPECT_GE(r->ci_hi, r->ratio);
  EXPECT_EQ(time_ratio(timed_row("onednn", "e", 1.0), timed_row("onednn", "e", 1.0))->method, "bootstrap");
}

TEST(Compare, RunWithItselfHasNoFasterOrSlower) {
  const auto a = run(
      {named_graph("g1", {timed_row("onednn", "jit:avx2", 1.0), timed_row("onednn", "ref:any", 9.0)}, "h1"),
       named_graph("g2", {timed_row("onednn", "jit:avx2", 0.01, false)}, "h2")});
  const auto c = compare_runs(a, a, {});
  ASSERT_EQ(c.rows.size(), 3u);
  EXPECT_EQ(c.faster + c.slower, 0);
  EXPECT_TRUE(c.regressions().empty());
  EXPECT_TRUE(c.differences.empty());
  EXPECT_FALSE(c.invalid());
  ASSERT_TRUE(c.geomean_ratio);
  EXPECT_DOUBLE_EQ(*c.geomean_ratio, 1.0);
}

// Rows measured over placements (the default): noisy samples whose medians over three placements
// agree are compared against the placements' spread, so a 10% change is SLOWER and a re-run whose
// placements scatter as much as the rows' own spread is SAME.
RowResult placed_row(double ms, std::vector<double> chunk_factors, double sample_spread) {
  auto row = timed_row("onednn", "e", ms);
  row.timing->samples_ms = samples(ms, sample_spread);
  row.host_stats = summarize(row.timing->samples_ms);
  TimingInfo::Placements p;
  for (double f : chunk_factors) p.medians_ms.push_back(ms * f);
  p.chunks = static_cast<std::int64_t>(p.medians_ms.size());
  const auto [lo, hi] = std::minmax_element(p.medians_ms.begin(), p.medians_ms.end());
  p.spread = *hi / *lo - 1;
  row.timing->placements = p;
  return row;
}

TEST(Compare, PlacementSpreadJudgesRunsWithoutRepeat) {
  const auto a = run({named_graph("g", {placed_row(1.0, {1.0, 1.015, 1.035}, 0.04)}, "h")});
  const auto same = run({named_graph("g", {placed_row(1.015, {1.0, 0.99, 1.005}, 0.04)}, "h")});
  const auto slower = run({named_graph("g", {placed_row(1.10, {1.0, 1.01, 0.995}, 0.04)}, "h")});
  const auto c_same = compare_runs(a, same, {});
  ASSERT_EQ(c_same.rows.size(), 1u);
  // 1.81 x 3.5%, above the CPU's 5% floor; two IQRs of these samples would be 16%.
  EXPECT_EQ(c_same.rows[0].noise_source, "placements");
  EXPECT_NEAR(c_same.rows[0].band, placement_spread_multiple(3) * 0.035, 1e-9);
  EXPECT_NE(c_same.rows[0].verdict, Verdict::slower);
  EXPECT_NE(c_same.rows[0].verdict, Verdict::faster);
  const auto c_slow = compare_runs(a, slower, {});
  ASSERT_EQ(c_slow.rows.size(), 1u);
  EXPECT_EQ(c_slow.rows[0].verdict, Verdict::slower) << c_slow.rows[0].band;
  // Without placements the same samples' IQR would hide the 10% change.
  auto plain_a = a, plain_b = slower;
  plain_a.suite.graphs[0].results[0].timing->placements.reset();
  plain_b.suite.graphs[0].results[0].timing->placements.reset();
  EXPECT_NE(compare_runs(plain_a, plain_b, {}).rows[0].verdict, Verdict::slower);
  // The placements survive the JSON round trip compare reads them through.
  const auto back = row_from_json(row_to_json(a.suite.graphs[0].results[0]));
  ASSERT_TRUE(back.timing && back.timing->placements);
  EXPECT_EQ(back.timing->placements->chunks, 3);
  EXPECT_EQ(back.timing->placements->medians_ms, a.suite.graphs[0].results[0].timing->placements->medians_ms);
}

// Two multi-threaded CPU rows measured while the machine's thread synchronization differed (a VM's
// vCPUs: 0.97 us against 1.31 us) are not judged, however far apart: that ratio is the machine's.
TEST(Compare, RowsMeasuredInDifferentThreadSyncStatesAreUndecided) {
  auto synced = [](double median, double sync_us) {
    auto row = placed_row(median, {median, median * 1.01, median * 0.99}, 0.02);
    row.timing->host_sync = TimingInfo::HostSync{2, sync_us, sync_us};
    return row;
  };
  const auto a = run({named_graph("g", {synced(1.0, 0.97)}, "h")});
  const auto slow_state = run({named_graph("g", {synced(2.0, 1.31)}, "h")});
  const auto c = compare_runs(a, slow_state, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::undecided);
  EXPECT_EQ(c.rows[0].noise_source, "host-sync");
  EXPECT_NE(c.rows[0].note.find("0.97 us in A, 1.31 us in B"), std::string::npos) << c.rows[0].note;
  EXPECT_TRUE(c.regressions().empty());
  // The same state (within 10%): judged as any row, and a real 2x is a regression.
  const auto same_state = run({named_graph("g", {synced(2.0, 1.0)}, "h")});
  const auto judged = compare_runs(a, same_state, {});
  EXPECT_EQ(judged.rows[0].verdict, Verdict::slower);
  EXPECT_NE(judged.rows[0].noise_source, "host-sync");
  // One side without the probe (older results, one thread): judged as before.
  auto unprobed = slow_state;
  unprobed.suite.graphs[0].results[0].timing->host_sync.reset();
  EXPECT_EQ(compare_runs(a, unprobed, {}).rows[0].verdict, Verdict::slower);
  std::ostringstream text;
  print_comparison(text, c);
  EXPECT_NE(text.str().find("1 row(s) UNDECIDED (host-sync)"), std::string::npos) << text.str();
  // A run whose own rows saw both states says so; one that held does not.
  auto mixed = a.suite.graphs;
  mixed.push_back(slow_state.suite.graphs[0]);
  EXPECT_NE(host_sync_warning(mixed).find("between 0.97 and 1.31 us"), std::string::npos);
  EXPECT_EQ(host_sync_warning(a.suite.graphs), "");
}

// Two CPU rows measured on differently free cores (the core ruler read 1.26 us in A, 1.80 us in B:
// the VM's host shared or down-clocked them) are not judged, and stay out of the suite spread; the
// same cores (within 10%) are judged as any row.
TEST(Compare, RowsMeasuredOnDifferentlyFreeCoresAreUndecided) {
  auto ruled = [](double median, double ruler_us) {
    auto row = placed_row(median, {median, median * 1.01, median * 0.99}, 0.02);
    row.timing->core_state = TimingInfo::CoreState{1, ruler_us, 1.26, 10, 0};
    return row;
  };
  const auto a = run({named_graph("g", {ruled(1.0, 1.26)}, "h")});
  const auto shared = run({named_graph("g", {ruled(1.7, 1.80)}, "h")});
  const auto c = compare_runs(a, shared, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::undecided);
  EXPECT_EQ(c.rows[0].noise_source, "core-state");
  EXPECT_NE(c.rows[0].note.find("1.26 us in A, 1.80 us in B"), std::string::npos) << c.rows[0].note;
  EXPECT_TRUE(c.regressions().empty());
  std::ostringstream text;
  print_comparison(text, c);
  EXPECT_NE(text.str().find("1 row(s) UNDECIDED (core-state)"), std::string::npos) << text.str();
  const auto free_cores = run({named_graph("g", {ruled(1.7, 1.30)}, "h")});
  EXPECT_EQ(compare_runs(a, free_cores, {}).rows[0].verdict, Verdict::slower);
  // A change no difference of cores explains (5x, against readings 1.43x apart: at most 2.92x
  // and the band) is judged.
  const auto far = run({named_graph("g", {ruled(5.0, 1.80)}, "h")});
  EXPECT_EQ(compare_runs(a, far, {}).rows[0].verdict, Verdict::slower);
  // A run with a row on slowed cores (1.80 us against its best 1.26) says so; one without does not.
  EXPECT_NE(core_state_warning(shared.suite.graphs).find("1 of 1 CPU rows ran on cores shared or slowed"),
            std::string::npos);
  EXPECT_EQ(core_state_warning(a.suite.graphs), "");
  // One side without readings (older results): judged as before.
  auto unread = shared;
  unread.suite.graphs[0].results[0].timing->core_state.reset();
  EXPECT_EQ(compare_runs(a, unread, {}).rows[0].verdict, Verdict::slower);
}

// Rows measured on shared cores in B (35 of 66, 1.2-1.9x, each its own) stay out of the suite
// spread: otherwise they would be its bulk, and its band would hide a real 10% change on free
// cores; the 30 rows that agree keep the band tight.
TEST(Compare, RowsOnSharedCoresStayOutOfTheSuiteSpread) {
  std::vector<GraphResult> ga, gb;
  auto add = [&](int i, double ratio, double ruler_b_us) {
    auto row_a = placed_row(1.0, {1.0, 1.01, 0.99}, 0.02);
    row_a.timing->core_state = TimingInfo::CoreState{1, 1.26, 1.26, 10, 0};
    auto row_b = placed_row(ratio, {1.0, 1.01, 0.99}, 0.02);
    row_b.timing->core_state = TimingInfo::CoreState{1, ruler_b_us, 1.26, 10, 0};
    const auto name = "g" + std::to_string(i);
    ga.push_back(named_graph(name, {row_a}, name));
    gb.push_back(named_graph(name, {row_b}, name));
  };
  for (int i = 0; i < 30; ++i) add(i, 1.0 + 0.002 * (i % 5), 1.27);
  add(30, 1.10, 1.27);  // the real change
  for (int i = 0; i < 35; ++i) add(31 + i, 1.2 + 0.02 * i, 1.9);
  const auto c = compare_runs(run(ga), run(gb), {});
  int undecided = 0, same = 0;
  for (const auto& row : c.rows) {
    if (row.noise_source == "core-state") ++undecided;
    if (row.verdict == Verdict::same) ++same;
  }
  EXPECT_EQ(undecided, 35);
  EXPECT_EQ(same, 30);
  EXPECT_EQ(c.slower, 1);
  ASSERT_TRUE(c.suite_band);
  EXPECT_LT(*c.suite_band, 0.05);
}

TEST(Compare, JoinsByContentHashAcrossRenamedFiles) {
  const auto a = run({named_graph("old_name", {timed_row("onednn", "e", 1.0)}, "same-hash")});
  const auto b = run({named_graph("new_name", {timed_row("onednn", "e", 1.5)}, "same-hash")});
  const auto c = compare_runs(a, b, {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].verdict, Verdict::slower);
  EXPECT_EQ(c.regressions().size(), 1u);
  // Without hashes, by path: different paths do not join.
  const auto c2 = compare_runs(run({named_graph("x", {timed_row("onednn", "e", 1.0)})}),
                               run({named_graph("y", {timed_row("onednn", "e", 1.0)})}), {});
  EXPECT_TRUE(c2.rows.empty());
  EXPECT_EQ(c2.only_in_a.size(), 1u);
  EXPECT_EQ(c2.only_in_b.size(), 1u);
}

TEST(Compare, ByBestComparesEachGraphsFastestRow) {
  const auto a = run(
      {named_graph("g", {timed_row("onednn", "jit:avx2", 1.0), timed_row("onednn", "ref:any", 5.0)}, "h")});
  const auto b = run({named_graph("g", {timed_row("onednn", "ref:any", 5.0)}, "h")});
  CompareOptions o;
  o.by = CompareBy::best;
  const auto c = compare_runs(a, b, o);
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_EQ(c.rows[0].engine_a, "jit:avx2");
  EXPECT_EQ(c.rows[0].engine_b, "ref:any");
  EXPECT_EQ(c.rows[0].verdict, Verdict::slower);
  EXPECT_NEAR(*c.geomean_ratio, 5.0, 0.1);
  // By engine the same pair is SAME (ref:any in both) and jit:avx2 is only in A.
  const auto e = compare_runs(a, b, {});
  EXPECT_EQ(e.slower, 0);
  EXPECT_EQ(e.only_in_a.size(), 1u);
}

TEST(Compare, RowBrokenInBIsARegression) {
  auto bad = timed_row("onednn", "e", 1.0);
  bad.correctness->passed = false;
  const auto c = compare_runs(run({named_graph("g", {timed_row("onednn", "e", 1.0)}, "h")}),
                              run({named_graph("g", {bad}, "h")}), {});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_TRUE(c.rows[0].broken);
  EXPECT_EQ(c.rows[0].note, "A passed, B failed validation");
  EXPECT_EQ(c.regressions().size(), 1u);
}

TEST(Compare, MismatchedCacheModeInvalidates) {
  auto a = run({named_graph("g", {timed_row("onednn", "e", 1.0)}, "h")});
  auto b = a;
  b.suite.metadata["options"]["cache_mode"] = "cold";
  b.suite.metadata["options"]["warmup"] = 5;
  const auto c = compare_runs(a, b, {});
  EXPECT_TRUE(c.invalid());
  bool cache = false, warmup = false;
  for (const auto& d : c.differences) {
    if (d.condition == "cache mode") cache = d.invalidating;
    if (d.condition == "option warmup") warmup = !d.invalidating && d.a == "1" && d.b == "5";
  }
  EXPECT_TRUE(cache);
  EXPECT_TRUE(warmup);
}

TEST(Compare, TimingMethodDifferenceInvalidatesButBatchSizeDoesNot) {
  auto a = run({named_graph("g", {timed_row("onednn", "e", 1.0)}, "h")});
  auto b = a;
  a.suite.graphs[0].results[0].timing->method = "device-events-batched(20 per sample)";
  b.suite.graphs[0].results[0].timing->method = "device-events-batched(40 per sample)";
  EXPECT_FALSE(compare_runs(a, b, {}).invalid());
  b.suite.graphs[0].results[0].timing->method = "device-events-single";  // batch 1: the same method
  EXPECT_FALSE(compare_runs(a, b, {}).invalid());
  b.suite.graphs[0].results[0].timing->method = "device-events-single+cold-flush";
  EXPECT_TRUE(compare_runs(a, b, {}).invalid());
  b.suite.graphs[0].results[0].timing->method = "host-per-execution";
  EXPECT_TRUE(compare_runs(a, b, {}).invalid());
}

// Two runs at `--cache-mode auto` from builds whose auto differs (rotating, then producer) name the
// difference through their rows' methods; a rotation over other copy counts is the same method.
TEST(Compare, RotatingAgainstProducerRowsInvalidateAtTheSameCacheModeOption) {
  auto a = run({named_graph("g", {timed_row("cudnn", "e", 1.0)}, "h")});
  a.suite.metadata["options"]["cache_mode"] = "auto";
  auto b = a;
  a.suite.graphs[0].results[0].timing->method =
      "device-events-batched(20 per sample)+replay+rotating(5 copies)";
  b.suite.graphs[0].results[0].timing->method =
      "device-events-batched(20 per sample)+replay+rotating(7 copies)";
  EXPECT_FALSE(compare_runs(a, b, {}).invalid());
  b.suite.graphs[0].results[0].timing->method =
      "device-events-batched(20 per sample)+replay+producer(9 copies)";
  const auto c = compare_runs(a, b, {});
  EXPECT_TRUE(c.invalid());
  bool named = false;
  for (const auto& d : c.differences)
    if (d.condition == "timing method")
      named = d.invalidating && d.a.find("+rotating") != std::string::npos &&
              d.b.find("+producer") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(Compare, LibraryVersionViewShowsPickRankAndBest) {
  // A: the pick (first engine) is the fastest. B (new version): the pick is another engine, slower
  // than the best, which also changed.
  const auto a = run(
      {named_graph("g", {timed_row("cudnn", "eng1", 1.0), timed_row("cudnn", "eng2", 1.3)}, "h")}, "9.14");
  const auto b = run({named_graph("g",
                                  {timed_row("cudnn", "eng2", 1.2), timed_row("cudnn", "eng1", 1.0),
                                   timed_row("cudnn", "eng3", 0.9)},
                                  "h")},
                     "9.19");
  auto ma = a, mb = b;
  ma.suite.metadata["providers"] = {{"cudnn", {{"version", "9.14.0"}}}};
  mb.suite.metadata["providers"] = {{"cudnn", {{"version", "9.19.0"}}}};
  const auto c = compare_runs(ma, mb, {});
  ASSERT_EQ(c.version_changes, std::vector<std::string>{"cudnn"});
  ASSERT_EQ(c.library_view.size(), 1u);
  const auto& p = c.library_view[0];
  EXPECT_EQ(p.pick_a, "eng1");
  EXPECT_EQ(p.pick_b, "eng2");
  EXPECT_TRUE(p.pick_changed);
  EXPECT_EQ(p.rank_a, 1);
  EXPECT_EQ(p.rank_b, 3);
  EXPECT_EQ(p.engines_b, 3);
  EXPECT_EQ(p.best_a, "eng1");
  EXPECT_EQ(p.best_b, "eng3");
  EXPECT_TRUE(p.best_changed);
  EXPECT_EQ(p.pick_verdict, Verdict::slower);
  bool named = false;
  for (const auto& d : c.differences) named = named || (d.condition == "library cudnn" && !d.invalidating);
  EXPECT_TRUE(named);
}

TEST(Compare, GeomeanOverComparedRows) {
  const auto a = run({named_graph("g1", {timed_row("onednn", "e", 1.0)}, "1"),
                      named_graph("g2", {timed_row("onednn", "e", 1.0)}, "2")});
  const auto b = run({named_graph("g1", {timed_row("onednn", "e", 2.0)}, "1"),
                      named_graph("g2", {timed_row("onednn", "e", 0.5)}, "2")});
  const auto c = compare_runs(a, b, {});
  ASSERT_TRUE(c.geomean_ratio);
  EXPECT_NEAR(*c.geomean_ratio, 1.0, 0.01);
  EXPECT_EQ(c.faster, 1);
  EXPECT_EQ(c.slower, 1);
}

TEST(Compare, ReadsResultsWrittenBeforeContentHashesWereRecorded) {
  auto doc = suite_to_json(run({named_graph("g", {timed_row("onednn", "e", 1.0)}, "h")}).suite);
  auto& g = doc["graphs"][0];
  for (const char* key : {"content_hash", "data_type", "ops"}) g.erase(key);
  g["results"][0].erase("peak");
  const auto suite = suite_from_json(doc);
  EXPECT_FALSE(suite.graphs[0].content_hash);
  const RunFile older{"old.json", suite};
  const auto c = compare_runs(older, run({named_graph("g", {timed_row("onednn", "e", 1.0)}, "h")}), {});
  EXPECT_EQ(c.rows.size(), 1u);  // joined by path
}

}  // namespace
}  // namespace dnnbench
