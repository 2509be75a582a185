// The measurement modes of a row (cache mode, latency, forced batch, steady-state warm-up) and
// calibration, on the reference provider (always built, host-timed).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <limits>
#include <memory>

#include "../support/graph_builder.hpp"
#include "env/calibration.hpp"
#include "graph/validate.hpp"
#include "measure/clock_sampler.hpp"
#include "measure/stopping_rule.hpp"
#include "providers/registry.hpp"
#include "run/keep_warm.hpp"
#include "run/row_runner.hpp"
#include "session/graph_data.hpp"
#include "session/plan_session.hpp"

namespace dnnbench {
namespace {

RowResult run_reference_row(const RunOptions& options) {
  auto provider = make_provider("reference");
  auto stream = provider->make_stream();
  const auto graph = testing::relu_square_graph(64);
  GraphData data(graph, 1);
  const auto engines = provider->engines(graph);
  return run_row(data, *provider, *stream, engines.at(0), options);
}

RunOptions quick_options() {
  RunOptions options;
  options.iters = 5;
  options.warmup = 1;
  options.measure.steady.max_ms = 0;
  return options;
}

TEST(MeasurementModes, HotThroughputIsTheDefault) {
  const auto row = run_reference_row(quick_options());
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_EQ(row.timing->cache_mode, "hot");
  EXPECT_EQ(row.timing->meaning, "throughput");
  EXPECT_TRUE(row.timing->cache_flush.empty());
  EXPECT_FALSE(row.timing->clocks);  // host provider: no GPU sensors
  EXPECT_EQ(row.timing->warmup, 1);
}

TEST(MeasurementModes, ColdFlushesBeforeEverySingleExecution) {
  auto options = quick_options();
  options.measure.cache_mode = CacheMode::cold;
  const auto row = run_reference_row(options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_EQ(row.timing->cache_mode, "cold");
  EXPECT_EQ(row.timing->batch, 1);
  EXPECT_NE(row.timing->method.find("+cold-flush"), std::string::npos) << row.timing->method;
  EXPECT_NE(row.timing->cache_flush.find("LLC"), std::string::npos) << row.timing->cache_flush;
  // Flushing happens outside the timed region: the wall time holds it, the timed time does not.
  EXPECT_GT(row.timing->wall_ms, row.timing->elapsed_ms);
}

TEST(MeasurementModes, LatencyIdlesBeforeEachExecution) {
  auto options = quick_options();
  options.measure.latency = true;
  options.measure.latency_idle_ms = 3;
  const auto row = run_reference_row(options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_EQ(row.timing->meaning, "latency");
  EXPECT_EQ(row.timing->batch, 1);
  EXPECT_NE(row.timing->method.find("idle-gap(3 ms)"), std::string::npos) << row.timing->method;
  EXPECT_GE(row.timing->wall_ms, 5 * 3.0);
}

TEST(MeasurementModes, PacedRegimeIdlesAsLongAsItSamples) {
  auto options = quick_options();
  options.measure.regime = Regime::paced;
  options.measure.batch = 200;  // samples of a few ms, so the idle time is measurable
  const auto row = run_reference_row(options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_NE(row.timing->pacing.find("duty 50%"), std::string::npos) << row.timing->pacing;
  EXPECT_EQ(row.timing->regime, "paced");
  // At 50% duty each sample is followed by as long an idle gap: the gaps are about the samples'
  // own elapsed time, and both sit inside the loop's wall time.
  EXPECT_NEAR(row.timing->pacing_idle_ms, row.timing->elapsed_ms, 0.2 * row.timing->elapsed_ms + 1);
  EXPECT_GE(row.timing->wall_ms, row.timing->elapsed_ms + row.timing->pacing_idle_ms * 0.9);
}

TEST(MeasurementModes, SustainedRegimeIsTheDefaultAndNeverIdles) {
  const auto row = run_reference_row(quick_options());
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_EQ(row.timing->regime, "sustained");
  EXPECT_EQ(row.timing->fill, "normal");
  EXPECT_EQ(row.timing->pacing, "off");
  EXPECT_EQ(row.timing->pacing_idle_ms, 0);
  // A host provider has no GPU sensors and no kernel timer: it never reports the power cap, so
  // no paced figure is taken beside the sustained one.
  EXPECT_FALSE(row.timing->other_regime.has_value());
}

TEST(MeasurementModes, RowsRecordTheirFill) {
  auto options = quick_options();
  options.fill = FillKind::grid;
  EXPECT_EQ(run_reference_row(options).timing->fill, "grid");
}

TEST(MeasurementModes, StageTimesAddUpToTheRowTime) {
  const auto row = run_reference_row(quick_options());
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  double sum = 0;
  for (const char* stage :
       {"plan", "reference", "check", "warm-up", "measure", "kernel activity", "re-check", "release"}) {
    ASSERT_TRUE(row.stage_ms.count(stage)) << stage;
    sum += row.stage_ms.at(stage);
  }
  EXPECT_FALSE(row.stage_ms.count("oracle"));  // did not run
  ASSERT_TRUE(row.row_time_ms);
  EXPECT_LE(sum, *row.row_time_ms + 1e-6);
  EXPECT_GE(sum, 0.9 * *row.row_time_ms - 0.5);  // little happens outside the stages
}

TEST(MeasurementModes, ForcedBatchIsUsed) {
  auto options = quick_options();
  options.measure.batch = 4;
  const auto row = run_reference_row(options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_EQ(row.timing->batch, 4);
  EXPECT_EQ(row.host_stats->n, 5);
}

// A host stream that offers device-style timers (host clock), counting how many are started, so
// that the device timing paths run without a GPU.
class TimedHostStream final : public Stream {
 public:
  explicit TimedHostStream(std::unique_ptr<Stream> inner) : inner_(std::move(inner)) {}
  void synchronize() override { inner_->synchronize(); }
  std::unique_ptr<KernelTimer> make_kernel_timer() override { return std::make_unique<Timer>(starts_); }
  int starts() const { return starts_; }

 private:
  class Timer final : public KernelTimer {
   public:
    explicit Timer(int& starts) : starts_(starts) {}
    void start() override {
      ++starts_;
      begin_ = std::chrono::steady_clock::now();
    }
    void stop() override { end_ = std::chrono::steady_clock::now(); }
    double elapsed_ms() override { return std::chrono::duration<double, std::milli>(end_ - begin_).count(); }

   private:
    int& starts_;
    std::chrono::steady_clock::time_point begin_, end_;
  };
  std::unique_ptr<Stream> inner_;
  int starts_ = 0;
};

// The order in which run_row_group started and finished `rows` ("s0 s1 f0 f1": both prepared
// first), each row whole: checked, warmed, measured and re-checked.
std::string group_order(GraphData& data, const std::vector<GroupRow>& rows, const RunOptions& options,
                        std::size_t stop_at = 99) {
  std::string order;
  run_row_group(
      data, rows, options,
      [&](std::size_t i) {
        if (i == stop_at) return false;
        order += fmt::format("s{} ", i);
        return true;
      },
      [&](std::size_t i) { order += fmt::format("r{} ", i); },
      [&](std::size_t i, RowResult row) {
        order += fmt::format("f{} ", i);
        EXPECT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
        EXPECT_TRUE(row.correctness && row.correctness->passed);
        for (const char* stage : {"plan", "check", "measure", "re-check"})
          EXPECT_TRUE(row.stage_ms.count(stage)) << stage;
        EXPECT_TRUE(row.gpu_kernel_stats || row.host_stats);
        EXPECT_GT(row.row_time_ms, 0);
      });
  return order;
}

// The same for `rows` rows of the reference provider's relu graph on `stream`.
std::string group_order(Stream& stream, const RunOptions& options, std::size_t rows,
                        std::size_t stop_at = 99) {
  auto provider = make_provider("reference");
  const auto graph = testing::relu_square_graph(64);
  GraphData data(graph, 1);
  const auto engine = provider->engines(graph).at(0);
  return group_order(data, std::vector<GroupRow>(rows, GroupRow{*provider, stream, engine}), options,
                     stop_at);
}

// On a device stream a graph's rows are prepared (plan, check) first and measured back to back
// after, so that the device does not idle between their sustained samples while the host builds.
TEST(MeasurementModes, DeviceRowsOfAGraphArePreparedFirstThenMeasuredBackToBack) {
  auto provider = make_provider("reference");
  TimedHostStream stream(provider->make_stream());
  auto options = quick_options();
  options.group_rows = true;  // the default
  // Each later step names its row first (r: the row in progress, as the journal records it).
  EXPECT_EQ(group_order(stream, options, 3), "s0 s1 s2 r0 r1 r2 r0 r1 r2 r0 f0 r1 f1 r2 f2 ");
  // A stop before the third row: the two started still finish.
  EXPECT_EQ(group_order(stream, options, 3, 2), "s0 s1 r0 r1 r0 r1 r0 f0 r1 f1 ");
  options.group_rows = false;  // --no-row-groups
  EXPECT_EQ(group_order(stream, options, 3), "s0 f0 s1 f1 s2 f2 ");
  // A host stream (no device timer) runs its rows one after another.
  auto host = provider->make_stream();
  options.group_rows = true;
  EXPECT_EQ(group_order(*host, options, 2), "s0 f0 s1 f1 ");
}

// A heated gap (run/keep_warm.hpp) ends after the group's host work and before its first
// measurement, and that row records it; rows that never reach the power cap start no new one.
TEST(MeasurementModes, AHeatedGapEndsBeforeTheGroupMeasuresAndItsFirstRowRecordsIt) {
  auto provider = make_provider("reference");
  TimedHostStream stream(provider->make_stream());
  const auto graph = testing::relu_square_graph(64);
  GraphData data(graph, 1);
  const auto engine = provider->engines(graph).at(0);
  std::string order;
  class Heater final : public DeviceHeater {
   public:
    explicit Heater(std::string& order) : order_(order) {}
    void start(double) override { order_ += "heat "; }
    void stop() override { order_ += "stop "; }

   private:
    std::string& order_;
  };
  KeepWarm warm(std::make_unique<Heater>(order), nullptr);
  warm.heat();
  std::vector<RowResult> rows;
  run_row_group(
      data, std::vector<GroupRow>(2, GroupRow{*provider, stream, engine}), quick_options(),
      [&](std::size_t i) {
        order += fmt::format("s{} ", i);
        return true;
      },
      [&](std::size_t i) { order += fmt::format("r{} ", i); },
      [&](std::size_t i, RowResult row) {
        order += fmt::format("f{} ", i);
        rows.push_back(std::move(row));
      },
      &warm);
  EXPECT_EQ(order, "heat s0 s1 stop r0 r1 r0 r1 r0 f0 r1 f1 ");
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].timing && rows[1].timing);
  ASSERT_TRUE(rows[0].timing->kept_warm);
  EXPECT_GE(rows[0].timing->kept_warm->ms, 0);
  EXPECT_FALSE(rows[1].timing->kept_warm);  // it followed the first row's samples
}

// Rows of two providers on one device run as one group (the suite runner groups consecutive GPU
// providers' rows of a graph): every row prepared first, then all measured back to back, so the
// second provider's rows do not start after an idle gap; each row keeps its own provider.
TEST(MeasurementModes, RowsOfTwoProvidersOnOneDeviceRunAsOneGroup) {
  auto first = make_provider("reference");
  auto second = make_provider("reference");
  TimedHostStream first_stream(first->make_stream()), second_stream(second->make_stream());
  const auto graph = testing::relu_square_graph(64);
  GraphData data(graph, 1);
  const auto engine = first->engines(graph).at(0);
  const std::vector<GroupRow> rows{
      {*first, first_stream, engine}, {*first, first_stream, engine}, {*second, second_stream, engine}};
  EXPECT_EQ(group_order(data, rows, quick_options()), "s0 s1 s2 r0 r1 r2 r0 r1 r2 r0 f0 r1 f1 r2 f2 ");
  // Row 2 was timed on its own provider's stream.
  EXPECT_GT(second_stream.starts(), 0);
}

TEST(MeasurementModes, PerExecutionEventsTimeEachExecutionOfTheBatch) {
  auto provider = make_provider("reference");
  TimedHostStream stream(provider->make_stream());
  const auto graph = testing::relu_square_graph(64);
  GraphData data(graph, 1);
  auto options = quick_options();
  options.measure.batch = 4;
  options.measure.per_execution_events = true;
  const auto row = run_row(data, *provider, stream, provider->engines(graph).at(0), options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_EQ(row.timing->batch, 4);
  EXPECT_NE(row.timing->method.find("device-events-per-execution"), std::string::npos) << row.timing->method;
  ASSERT_TRUE(row.gpu_kernel_stats);
  EXPECT_EQ(row.gpu_kernel_stats->n, 5);
  // 5 samples x 4 executions, each between its own timer pair (plus whatever else the row timed).
  EXPECT_GE(stream.starts(), 20);
}

// The oracle screens with shorter batches (tune/oracle.cpp): a batch already sized for one target
// is sized again for another (about ten times longer for a ten times longer target, unless it
// reaches the 1000-execution cap), and a forced --batch stays what it is.
TEST(MeasurementModes, BatchTargetResizesTheChosenBatch) {
  auto provider = make_provider("reference");
  TimedHostStream stream(provider->make_stream());
  const auto graph = testing::relu_square_graph(64);
  GraphData data(graph, 1);
  const auto spec = provider->heuristic_plan(graph, provider->engines(graph).at(0));
  PlanSession session(data, *provider, stream, spec);
  session.warm_up(1);
  // Each size comes from its own probe of the execution time, which a loaded machine moves (a
  // preempted probe of 8 executions sized a batch at half what the next probe did, in CI): the
  // smallest short and the largest long size of three tries each, and a factor of 3, not 10.
  std::int64_t short_batch = std::numeric_limits<std::int64_t>::max(), long_batch = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    session.set_batch_target_ms(1.0);
    FixedCountRule short_rule(2);
    short_batch = std::min(short_batch, session.measure(short_rule, false).timing.batch);
    session.set_batch_target_ms(PlanSession::default_batch_target_ms());
    FixedCountRule long_rule(2);
    long_batch = std::max(long_batch, session.measure(long_rule, false).timing.batch);
  }
  ASSERT_GE(short_batch, 1);
  EXPECT_GE(long_batch, std::min<std::int64_t>(1000, short_batch * 3)) << short_batch << " at 1 ms";
  EXPECT_GT(long_batch, short_batch);

  PlanSession forced(data, *provider, stream, spec);
  MeasureOptions measure;
  measure.batch = 3;
  forced.set_measure_options(measure);
  forced.set_batch_target_ms(1.0);
  FixedCountRule rule(2);
  EXPECT_EQ(forced.measure(rule, false).timing.batch, 3);
}

// A device whose sensors read the same every time: at 700 W, held down or not, drawing the
// limit or not.
class SteadySensors final : public ClockSource {
 public:
  SteadySensors(double capped, double at_limit) : capped_(capped), at_limit_(at_limit) {}
  ClockReading read() override {
    ClockReading r{1500, 3200, 60, 700};
    r.capped = capped_;
    r.at_power_limit = at_limit_;
    return r;
  }
  std::string description() const override { return "steady sensors"; }

 private:
  double capped_, at_limit_;
};

// The relu graph's session on the reference provider behind device-style timers.
struct TimedReluSession {
  std::unique_ptr<Provider> provider = make_provider("reference");
  TimedHostStream stream{provider->make_stream()};
  Graph graph = testing::relu_square_graph(64);
  GraphData data{graph, 1};
  PlanSession session{data, *provider, stream,
                      provider->heuristic_plan(graph, provider->engines(graph).at(0))};
};

// Whether a warm-up with these sensors in this regime counts the device as capped, and the
// minimum time of the rule that follows it.
std::pair<bool, double> capped_and_min_time(ClockSource& sensors, Regime regime) {
  TimedReluSession relu;
  auto& session = relu.session;
  RunOptions options;
  options.measure.regime = regime;
  // One execution a sample and a second of search: a window of samples must complete for the
  // detector to say capped, and a loaded CI machine once spent the whole of a 100 ms cap (the
  // first execution's time, multiplied by a probed batch) before the first sample (in CI).
  options.measure.batch = 1;
  options.measure.steady.max_ms = 1000;
  options.measure.steady.tolerance = 1;  // times agree at once: only the sensors decide
  options.measure.capped_min_ms = 700;
  session.set_measure_options(options.measure);
  session.set_clock_source(&sensors);
  session.warm_up_until_steady(1);
  const auto rule = make_stopping_rule(options, session);
  // A capped row's rule stops at its cycle; the adaptive rule only starts judging there.
  const double cycle_ms = rule->spans_power_cycle() ? rule->min_elapsed_ms() : -1.0;
  return {session.warmup_capped(), cycle_ms};
}

// A row found at the power cap measures one whole cycle of the driver's power control
// (--capped-min-ms) and stops there (PowerCycleRule); drawing the limit counts only when
// sustained, since a paced row's idle gaps keep the average the driver caps below what its
// kernels draw.
TEST(MeasurementModes, ARowAtThePowerCapMeasuresOneCycleOfThePowerControl) {
  SteadySensors held(1, 1), drawing_the_limit(0, 1), cool(0, 0);
  EXPECT_EQ(capped_and_min_time(held, Regime::sustained), std::make_pair(true, 700.0));
  EXPECT_EQ(capped_and_min_time(drawing_the_limit, Regime::sustained), std::make_pair(true, 700.0));
  EXPECT_EQ(capped_and_min_time(cool, Regime::sustained), std::make_pair(false, -1.0));
  EXPECT_EQ(capped_and_min_time(held, Regime::paced), std::make_pair(true, 700.0));
  EXPECT_EQ(capped_and_min_time(drawing_the_limit, Regime::paced), std::make_pair(false, -1.0));
}

// The batch a sustained row measures with after a warm-up beside these sensors, starting from
// 1 ms batches below the cap.
std::int64_t batch_after_warm_up(ClockSource& sensors) {
  TimedReluSession relu;
  auto& session = relu.session;
  MeasureOptions measure;
  measure.uncapped_batch_ms = 1;
  measure.steady.max_ms = 200;
  measure.steady.tolerance = 0;  // never steady: the search runs to its cap, and sees the sensors
  session.set_measure_options(measure);
  session.set_clock_source(&sensors);
  session.warm_up_until_steady(1);
  FixedCountRule rule(2);
  return session.measure(rule, false).timing.batch;
}

// Below the cap a sustained row samples short batches; held at the cap, its warm-up goes to the
// 10 ms batches whose gaps do not move the clock. Sizes come from probes a loaded machine moves:
// the extremes of three tries, and a factor of 3, not 10 (as BatchTargetResizesTheChosenBatch).
TEST(MeasurementModes, SustainedRowsSampleShortBatchesUntilTheDeviceIsCapped) {
  SteadySensors held(1, 1), cool(0, 0);
  std::int64_t cool_batch = std::numeric_limits<std::int64_t>::max(), capped_batch = 0;
  for (int attempt = 0; attempt < 3; ++attempt) {
    cool_batch = std::min(cool_batch, batch_after_warm_up(cool));
    capped_batch = std::max(capped_batch, batch_after_warm_up(held));
  }
  ASSERT_GE(cool_batch, 1);
  EXPECT_GE(capped_batch, std::min<std::int64_t>(1000, cool_batch * 3)) << cool_batch << " below the cap";
}

// A device below its cap, whose driver reports the power limit (a sustained GPU row).
class BelowTheCap final : public ClockSource {
 public:
  ClockReading read() override {
    ClockReading r{1980, 3200, 50, 400};
    r.capped = 0;
    r.at_power_limit = 0;
    r.power_limit_w = 700;
    return r;
  }
  std::string description() const override { return "below the cap"; }
};

// A sustained row that starts on an idle device loads it at least min_load_ms before its warm-up
// may end (the driver cuts a heavy kernel's clock only at its next tick); one that follows another
// row's samples (a group's later rows) ends when its windows agree.
TEST(MeasurementModes, ARowAfterIdleLoadsTheDeviceBeforeItsWarmUpEnds) {
  BelowTheCap sensors;
  const auto warmup_ms = [&](bool device_loaded) {
    TimedReluSession relu;
    MeasureOptions measure;
    measure.steady.tolerance = 1;  // times agree at once
    measure.steady.min_load_ms = 1000;
    measure.steady.max_ms = 5000;
    relu.session.set_measure_options(measure);
    relu.session.set_clock_source(&sensors);
    relu.session.warm_up_until_steady(1, device_loaded);
    FixedCountRule rule(1);
    const auto m = relu.session.measure(rule, false);
    EXPECT_TRUE(m.timing.warmup_steady);
    return m.timing.warmup_ms;
  };
  EXPECT_GE(warmup_ms(false), 1000);
  EXPECT_LT(warmup_ms(true), 1000);
}

TEST(MeasurementModes, PerExecutionEventsIsIgnoredWithoutADeviceTimer) {
  auto options = quick_options();
  options.measure.batch = 4;
  options.measure.per_execution_events = true;
  const auto row = run_reference_row(options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  EXPECT_EQ(row.timing->method, "host-per-execution");
}

TEST(MeasurementModes, SteadyStateWarmUpRunsPastTheMinimum) {
  auto options = quick_options();
  options.measure.steady.max_ms = 200;
  const auto row = run_reference_row(options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  // At least the minimum and three windows of five (steady) or until 200 ms were spent.
  EXPECT_GE(row.timing->warmup, 1 + 15);
  EXPECT_GT(row.timing->warmup_ms, 0);
}

TEST(MeasurementModes, TheAdaptiveRuleTakesEverySteadyWarmUpSample) {
  // The adaptive rule may converge on the first ten of the fifteen steady samples; the other five
  // were timed in the steady state too, and dropping them would be warm-up paid for nothing.
  auto options = quick_options();
  options.iters.reset();
  options.adaptive.min_iters = 2;
  options.adaptive.min_time_ms = 0;
  options.adaptive.target_ci_rel = 1;  // converged at once
  options.measure.steady.max_ms = 2000;
  options.measure.steady.tolerance = 1;  // steady after three windows
  options.measure.placements = 1;
  const auto row = run_reference_row(options);
  ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
  ASSERT_TRUE(row.timing->warmup_steady);
  EXPECT_EQ(row.host_stats->n, 15);
  // Over three placements the steady samples are the first one's; each other takes its share of
  // the rule's minimum (one sample of two).
  auto placed = options;
  placed.measure.placements = 3;
  const auto spread = run_reference_row(placed);
  ASSERT_EQ(spread.status, RowStatus::success) << spread.error_message.value_or("");
  ASSERT_TRUE(spread.timing->placements);
  EXPECT_EQ(spread.timing->placements->chunks, 3);
  EXPECT_EQ(spread.host_stats->n, 17);
  // Their time is measuring, not warm-up.
  EXPECT_GT(row.stage_ms.at("measure"), 0);
  EXPECT_GE(row.stage_ms.at("warm-up"), 0);

  // --iters N promises N samples: the steady samples beyond N are not added.
  auto fixed = options;
  fixed.iters = 4;
  const auto exact = run_reference_row(fixed);
  ASSERT_EQ(exact.status, RowStatus::success) << exact.error_message.value_or("");
  EXPECT_EQ(exact.host_stats->n, 4);
}

TEST(Calibration, SpreadIsMaxOverMinMinusOne) {
  EXPECT_DOUBLE_EQ(spread_of({}), 0);
  EXPECT_DOUBLE_EQ(spread_of({2.0}), 0);
  EXPECT_NEAR(spread_of({1.0, 1.01, 0.99, 1.0}), 0.02 / 0.99, 1e-12);
}

TEST(Calibration, DefaultGraphsAreValidConvolutions) {
  for (bool device : {false, true}) {
    const auto graphs = default_calibration_graphs(device);
    ASSERT_EQ(graphs.size(), 2u);
    for (auto g : graphs) EXPECT_NO_THROW(validate_graph(g)) << g.name;
  }
}

TEST(Calibration, RepeatsTheSamePlanAndReportsItsSpread) {
  RunOptions options = quick_options();
  const auto calibration = run_calibration({testing::relu_square_graph(64)}, {"reference"}, options, 3);
  ASSERT_EQ(calibration.entries.size(), 1u);
  const auto& e = calibration.entries[0];
  ASSERT_FALSE(e.error) << *e.error;
  EXPECT_EQ(e.medians_ms.size(), 3u);
  EXPECT_GE(e.spread, 0);
  // Short or long by its median (which a loaded machine can push past 0.1 ms): the worst spread of
  // that kind is this entry's, the other kind has none.
  const bool is_short = e.kind == "short";
  ASSERT_TRUE(is_short || e.kind == "long") << e.kind;
  const auto& mine = is_short ? calibration.short_spread : calibration.long_spread;
  const auto& other = is_short ? calibration.long_spread : calibration.short_spread;
  ASSERT_TRUE(mine);
  EXPECT_DOUBLE_EQ(*mine, e.spread);
  EXPECT_FALSE(other);
  const auto j = calibration_to_json(calibration);
  EXPECT_EQ(noise_floor_summary(j, "x.json")[is_short ? "short_spread" : "long_spread"], e.spread);
}

}  // namespace
}  // namespace dnnbench
