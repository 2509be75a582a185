#include "report/noise_model.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "report/compare.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

// Samples around `centre` whose relative IQR is about `iqr` (a sine's quartiles are at ±0.707).
std::vector<double> iqr_samples(double centre, double iqr, int n = 40) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(centre * (1 + iqr / 1.414 * std::sin(2.3 * i)));
  return v;
}

RowResult row(double ms, double iqr, bool gpu = false, const std::string& provider = "onednn") {
  RowResult r;
  r.provider = provider;
  r.engine_id = "e";
  const auto s = iqr_samples(ms, iqr);
  r.host_stats = summarize(s);
  if (gpu) r.gpu_kernel_stats = summarize(s);
  TimingInfo t;
  t.method = "host-per-execution";
  t.samples_ms = s;
  r.timing = t;
  r.correctness = Correctness{};
  return r;
}

RowResult with_repeat(RowResult r, std::vector<double> medians) {
  RepeatResult rep;
  rep.medians_ms = std::move(medians);
  const auto [lo, hi] = std::minmax_element(rep.medians_ms.begin(), rep.medians_ms.end());
  rep.spread = *hi / *lo - 1;
  r.repeat = rep;
  return r;
}

TEST(NoiseModel, RelativeIqrFromSamplesAndFromPercentiles) {
  const auto r = row(2.0, 0.04);
  EXPECT_NEAR(*relative_iqr(r), 0.04, 0.008);
  auto no_samples = r;
  no_samples.timing->samples_ms.clear();
  // Estimated from p5/p95 as a normal's: the same order, not the same figure.
  EXPECT_GT(*relative_iqr(no_samples), 0.02);
  EXPECT_LT(*relative_iqr(no_samples), 0.08);
  EXPECT_FALSE(relative_iqr(RowResult{}));
}

TEST(NoiseModel, CpuRowsWithoutMoreKnowledgeGetTheIqrFloor) {
  // Tight rows: the 5% CPU floor, not the 3% --min-effect and not their within-run CI.
  auto n = noise_band_for(row(1.0, 0.005), row(1.0, 0.005), json::object(), json::object(), 0.03);
  EXPECT_DOUBLE_EQ(n.band, kCpuRunToRunFloor);
  EXPECT_EQ(n.source, "iqr-floor");
  // Wide rows: 2·hypot(IQRs), the seed successor's rule.
  n = noise_band_for(row(1.0, 0.05), row(1.0, 0.05), json::object(), json::object(), 0.03);
  EXPECT_NEAR(n.band, 2 * std::hypot(0.05, 0.05), 0.03);
  EXPECT_GT(n.band, 0.1);
  EXPECT_EQ(n.source, "iqr-floor");
}

TEST(NoiseModel, GpuRowsGetTheSmallerFloorAndMinEffectBindsAboveIt) {
  const auto n =
      noise_band_for(row(1.0, 0.001, true), row(1.0, 0.001, true), json::object(), json::object(), 0.03);
  EXPECT_DOUBLE_EQ(n.band, 0.03);
  EXPECT_EQ(n.source, "min-effect");
  const auto m =
      noise_band_for(row(1.0, 0.001, true), row(1.0, 0.001, true), json::object(), json::object(), 0.0);
  EXPECT_DOUBLE_EQ(m.band, kGpuRunToRunFloor);
  EXPECT_EQ(m.source, "iqr-floor");
}

TEST(NoiseModel, RepeatSpreadTimesItsMultipleAboveTheFloor) {
  // Passes that agree within 2%: the floor still binds (three passes that agree by chance do not
  // make the machine quieter than its floor).
  const auto a = with_repeat(row(1.0, 0.005), {1.0, 1.01, 1.005});
  const auto b = with_repeat(row(1.0, 0.005), {1.0, 1.02, 1.01});
  auto n = noise_band_for(a, b, json::object(), json::object(), 0.0);
  EXPECT_DOUBLE_EQ(n.band, kCpuRunToRunFloor);
  EXPECT_EQ(n.source, "iqr-floor");
  // Passes 8% apart in one run: 1.5 x the larger spread of the two runs, named "repeat".
  const auto wide = with_repeat(row(1.0, 0.005), {1.0, 1.08, 1.04});
  n = noise_band_for(a, wide, json::object(), json::object(), 0.0);
  EXPECT_NEAR(n.band, kRepeatSpreadMultiple * 0.08, 1e-9);
  EXPECT_EQ(n.source, "repeat");
  // One side repeated: its spread is the run-to-run term.
  n = noise_band_for(row(1.0, 0.005), wide, json::object(), json::object(), 0.0);
  EXPECT_NEAR(n.band, kRepeatSpreadMultiple * 0.08, 1e-9);
  // Passes that disagree (a slow stretch of the machine in one of them): a wide band.
  const auto noisy = with_repeat(row(1.0, 0.005), {1.0, 1.3, 1.02});
  n = noise_band_for(noisy, a, json::object(), json::object(), 0.03);
  EXPECT_NEAR(n.band, kRepeatSpreadMultiple * 0.3, 1e-9);
}

RunFile run_of(const std::vector<RowResult>& rows, const std::string& path) {
  RunFile run;
  run.path = path;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    GraphResult g;
    g.graph_name = "g" + std::to_string(i);
    g.graph_path = g.graph_name + ".json";
    g.results = {rows[i]};
    run.suite.graphs.push_back(g);
  }
  return run;
}

TEST(NoiseModel, RowWhosePassesDisagreeGetsAWideBandNotSlower) {
  // Run A's row: its middle pass at 1.0 ms, one pass hit by a 1.6x slow stretch. Run B's row at
  // 1.1 ms: with A's passes 60% apart that 10% is inside the noise, not SLOWER.
  const auto b = with_repeat(row(1.1, 0.005), {1.1, 1.11, 1.09});
  auto c = compare_runs(run_of({with_repeat(row(1.0, 0.005), {1.0, 1.6, 1.01})}, "a.json"),
                        run_of({b}, "b.json"), CompareOptions{});
  ASSERT_EQ(c.rows.size(), 1u);
  EXPECT_NE(c.rows[0].verdict, Verdict::slower);
  EXPECT_NEAR(c.rows[0].band, kRepeatSpreadMultiple * 0.6, 1e-9);
  EXPECT_EQ(c.rows[0].noise_source, "repeat");
  // Passes that agree: the 10% is beyond the 5% floor and called.
  c = compare_runs(run_of({with_repeat(row(1.0, 0.005), {1.0, 1.01, 1.005})}, "a.json"),
                   run_of({b}, "b.json"), CompareOptions{});
  EXPECT_EQ(c.rows[0].verdict, Verdict::slower);
  EXPECT_FALSE(c.suite_band);  // one row: no suite spread
}

TEST(NoiseModel, SuiteSpreadIsThreeRobustSigmasOfTheLogRatios) {
  EXPECT_FALSE(suite_spread_band(std::vector<double>(kSuiteSpreadMinRows - 1, 1.2)));
  // Half the rows 20% slower, half 20% faster: median |log ratio| = log 1.2.
  std::vector<double> ratios;
  for (std::size_t i = 0; i < 40; ++i) ratios.push_back(i % 2 ? 1.2 : 1 / 1.2);
  EXPECT_NEAR(*suite_spread_band(ratios), std::exp(kSuiteSpreadSigmas * 1.4826 * std::log(1.2)) - 1, 1e-9);
}

TEST(NoiseModel, SuiteSpreadWidensBandsWhenTheMachineMovedButKeepsAFewRealChanges) {
  // 40 rows whose passes agree within each run, but the machine ran run B ~15% slower or faster
  // from row to row (a state that lasted longer than a run): no row may be SLOWER or FASTER.
  std::vector<RowResult> a, b;
  for (int i = 0; i < 40; ++i) {
    const double shift = i % 2 ? 1.15 : 1 / 1.15;
    a.push_back(with_repeat(row(1.0, 0.005), {1.0, 1.01, 1.005}));
    b.push_back(with_repeat(row(shift, 0.005), {shift, shift * 1.01, shift * 1.005}));
  }
  auto c = compare_runs(run_of(a, "a.json"), run_of(b, "b.json"), CompareOptions{});
  ASSERT_TRUE(c.suite_band);
  EXPECT_EQ(c.slower + c.faster, 0);
  EXPECT_EQ(c.noise_sources()["suite-spread"], 40);
  // A quiet pair (ratios within ±1%) with 5 rows 50% slower: the 5 are still SLOWER, no other.
  for (int i = 0; i < 40; ++i) {
    const double r = i < 5 ? 1.5 : (i % 2 ? 1.01 : 0.99);
    b[i] = with_repeat(row(r, 0.005), {r, r * 1.01, r * 1.005});
  }
  c = compare_runs(run_of(a, "a.json"), run_of(b, "b.json"), CompareOptions{});
  EXPECT_EQ(c.slower, 5);
  EXPECT_EQ(c.faster, 0);
  // 10% slower on every row, scattered ±1%: the shift does not widen the bands; all 40 SLOWER.
  for (int i = 0; i < 40; ++i) {
    const double r = 1.10 * (i % 2 ? 1.01 : 0.99);
    b[i] = with_repeat(row(r, 0.005), {r, r * 1.01, r * 1.005});
  }
  c = compare_runs(run_of(a, "a.json"), run_of(b, "b.json"), CompareOptions{});
  ASSERT_TRUE(c.suite_band);
  EXPECT_LT(*c.suite_band, 0.05);
  EXPECT_EQ(c.slower, 40);
}

TEST(NoiseModel, CalibratedSpreadPerProviderAndKernelClass) {
  const json meta = {{"noise_floor",
                      {{"short_spread", 0.08},
                       {"long_spread", 0.06},
                       {"providers", {{"cudnn", {{"short_spread", 0.015}, {"long_spread", 0.01}}}}}}}};
  EXPECT_DOUBLE_EQ(*calibrated_spread(meta, "cudnn", 0.02), 0.015);
  EXPECT_DOUBLE_EQ(*calibrated_spread(meta, "cudnn", 5.0), 0.01);
  EXPECT_DOUBLE_EQ(*calibrated_spread(meta, "onednn", 0.02), 0.08);  // no own figure: the run's worst
  EXPECT_DOUBLE_EQ(*calibrated_spread(meta, "onednn", 5.0), 0.06);
  EXPECT_FALSE(calibrated_spread(json::object(), "onednn", 1.0));
  const auto n = noise_band_for(row(5.0, 0.005), row(5.0, 0.005), json::object(), meta, 0.03);
  EXPECT_EQ(n.source, "calibrated");
  EXPECT_DOUBLE_EQ(n.band, 0.06);
}

TEST(NoiseModel, CrossRunBand) {
  EXPECT_DOUBLE_EQ(cross_run_band(false, 0.01), kCpuRunToRunFloor);
  EXPECT_DOUBLE_EQ(cross_run_band(true, 0.01), kGpuRunToRunFloor);
  EXPECT_DOUBLE_EQ(cross_run_band(true, 0.1), 0.1);
}

// The A/A: within-run intervals that exclude 1 by far (a 4-24% shift with a ±0.5% CI)
// are SAME or UNDECIDED under the floor only when the shift is inside it; a 10% planted change on
// tight rows clears it.
TEST(NoiseModel, VerdictsAgainstTheModel) {
  const auto judge_pair = [](double ms_a, double ms_b) {
    RunFile a, b;
    a.path = "a.json";
    b.path = "b.json";
    GraphResult ga;
    ga.graph_name = "g";
    ga.graph_path = "g.json";
    auto gb = ga;
    ga.results = {row(ms_a, 0.005)};
    gb.results = {row(ms_b, 0.005)};
    a.suite.graphs = {ga};
    b.suite.graphs = {gb};
    return compare_runs(a, b, {}).rows.at(0);
  };
  auto r = judge_pair(1.0, 1.03);
  EXPECT_EQ(r.verdict, Verdict::same) << "a 3% A/A shift on a CPU row is noise";
  EXPECT_EQ(r.noise_source, "iqr-floor");
  EXPECT_EQ(judge_pair(1.0, 1.10).verdict, Verdict::slower);
  EXPECT_EQ(judge_pair(1.10, 1.0).verdict, Verdict::faster);
}

TEST(NoiseModel, MachineConditionsAreNamedNotCalledIdentical) {
  RunFile a, b;
  a.path = "a.json";
  b.path = "b.json";
  const json quiet = {{"disturbed", false},
                      {"other_cores", 0.02},
                      {"cpufreq_governor", nullptr},
                      {"oversubscribed", false},
                      {"threads", 2}};
  json busy = quiet;
  busy["disturbed"] = true;
  busy["other_cores"] = 0.97;
  busy["oversubscribed"] = true;
  busy["disturbed_because"] = "other processes used 0.97 of 2 cores on average";
  a.suite.metadata["host_conditions"] = quiet;
  b.suite.metadata["host_conditions"] = quiet;
  EXPECT_FALSE(compare_runs(a, b, {}).disturbed());
  b.suite.metadata["host_conditions"] = busy;
  const auto c = compare_runs(a, b, {});
  EXPECT_TRUE(c.disturbed());
  EXPECT_FALSE(c.invalid());
  bool load = false, over = false;
  for (const auto& d : c.differences) {
    if (d.condition == "machine load during the run")
      load = d.machine && d.a.starts_with("quiet") && d.b.starts_with("DISTURBED (other processes used 0.97");
    if (d.condition.starts_with("oversubscribed")) over = d.machine && d.a == "false" && d.b == "true";
  }
  EXPECT_TRUE(load);
  EXPECT_TRUE(over);
  // Both disturbed: still named (two busy runs had different neighbours).
  a.suite.metadata["host_conditions"] = busy;
  EXPECT_FALSE(compare_runs(a, b, {}).disturbed()) << "equal records: one run compared with itself";
  a.suite.metadata["host_conditions"]["other_cores"] = 0.9;
  EXPECT_TRUE(compare_runs(a, b, {}).disturbed());
  // A governor change is a machine difference too.
  a.suite.metadata["host_conditions"] = quiet;
  b.suite.metadata["host_conditions"] = quiet;
  b.suite.metadata["host_conditions"]["cpufreq_governor"] = "powersave";
  EXPECT_TRUE(compare_runs(a, b, {}).disturbed());
}

RowResult with_placements(RowResult r, std::vector<double> medians) {
  TimingInfo::Placements p;
  p.medians_ms = std::move(medians);
  p.chunks = static_cast<std::int64_t>(p.medians_ms.size());
  const auto [lo, hi] = std::minmax_element(p.medians_ms.begin(), p.medians_ms.end());
  p.spread = *hi / *lo - 1;
  r.timing->placements = p;
  return r;
}

TEST(NoiseModel, PlacementSpreadIsTheRunToRunTermWithoutRepeat) {
  // Noisy samples (a 2-core CPU: 20% IQR) whose medians over three placements agree to 4%: the
  // band is the placements' term (1.81 x 4%), not two IQRs (57%), and a 10% change clears it.
  const auto a = with_placements(row(1.0, 0.2), {1.0, 1.02, 1.04});
  const auto b = with_placements(row(1.0, 0.2), {1.01, 1.0, 0.99});
  const auto n = noise_band_for(a, b, json::object(), json::object(), 0.03);
  EXPECT_EQ(n.source, "placements");
  EXPECT_NEAR(n.band, placement_spread_multiple(3) * 0.04, 1e-9);
  EXPECT_LT(n.band, 0.10);
  // Tight placements on the GPU: the 2% floor holds.
  const auto tight = noise_band_for(with_placements(row(1.0, 0.001, true), {1.0, 1.001, 1.002}),
                                    with_placements(row(1.0, 0.001, true), {1.0, 1.001, 1.0}), json::object(),
                                    json::object(), 0.01);
  EXPECT_DOUBLE_EQ(tight.band, kGpuRunToRunFloor);
  EXPECT_EQ(tight.source, "iqr-floor");
  // --repeat, where a row has it, still rules: it saw separate processes.
  // (Its band keeps the samples' IQR term: quiet samples here.)
  const auto quiet = with_placements(row(1.0, 0.01), {1.0, 1.02, 1.04});
  const auto repeated =
      noise_band_for(with_repeat(quiet, {1.0, 1.1, 1.2}), quiet, json::object(), json::object(), 0.03);
  EXPECT_EQ(repeated.source, "repeat");
}

TEST(NoiseModel, PlacementMultipleShrinksWithMoreChunks) {
  // 3 sigma of the difference of two medians over k placements, per unit of one row's range.
  EXPECT_NEAR(placement_spread_multiple(3), 1.81, 0.01);
  EXPECT_NEAR(placement_spread_multiple(5), 1.02, 0.01);
  EXPECT_NEAR(placement_spread_multiple(8), 0.66, 0.01);
  EXPECT_GT(placement_spread_multiple(2), placement_spread_multiple(3));
  EXPECT_DOUBLE_EQ(placement_spread_multiple(1), placement_spread_multiple(2));  // clamped
}

}  // namespace
}  // namespace dnnbench
