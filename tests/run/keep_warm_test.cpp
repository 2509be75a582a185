// Keeping the device warm between row groups (run/keep_warm.hpp), with a scripted heater: what
// KeepWarm records, and that run_row_group stops the heater before any row measures.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "../support/graph_builder.hpp"
#include "measure/clock_sampler.hpp"
#include "providers/registry.hpp"
#include "run/keep_warm.hpp"
#include "run/row_runner.hpp"
#include "session/graph_data.hpp"

namespace dnnbench {
namespace {

// A heater that writes what it is told into `log` ("start(5000) stop ...").
class ScriptedHeater final : public DeviceHeater {
 public:
  explicit ScriptedHeater(std::string& log) : log_(log) {}
  void start(double max_ms) override { log_ += "start(" + std::to_string(static_cast<int>(max_ms)) + ") "; }
  void stop() override { log_ += "stop "; }

 private:
  std::string& log_;
};

class FixedClocks final : public ClockSource {
 public:
  ClockReading read() override { return {1500, 2600, 60, 690}; }
  std::string description() const override { return "fixed"; }
};

TEST(KeepWarm, RecordsHowLongItHeatedAndWhatTheSensorsReadAsItStopped) {
  std::string log;
  FixedClocks clocks;
  KeepWarm warm(std::make_unique<ScriptedHeater>(log), &clocks);
  EXPECT_TRUE(warm.available());
  EXPECT_FALSE(warm.stop());  // not heating: nothing to say, the heater is not touched
  EXPECT_EQ(log, "");
  warm.heat();
  warm.heat();  // already heating
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto kept = warm.stop();
  ASSERT_TRUE(kept);
  EXPECT_GE(kept->ms, 15);
  EXPECT_LE(kept->ms, kKeepWarmMaxMs);
  EXPECT_EQ(kept->power_w, 690);
  EXPECT_EQ(kept->sm_mhz, 1500);
  EXPECT_FALSE(kept->capped);  // the driver did not say the cap held the clock
  EXPECT_EQ(log, "start(5000) stop ");
  EXPECT_FALSE(warm.stop());
}

TEST(KeepWarm, WithoutAHeaterItIsANoOp) {
  KeepWarm warm(nullptr, nullptr);
  EXPECT_FALSE(warm.available());
  warm.heat();
  EXPECT_FALSE(warm.stop());
}

TEST(KeepWarm, AGapHeatedAfterAnotherGroupIsStoppedBeforeTheNextMeasuresAndItsFirstRowSaysSo) {
  auto provider = make_provider("reference");
  auto stream = provider->make_stream();
  const auto graph = testing::relu_square_graph(64);
  GraphData data(graph, 1);
  const auto engine = provider->engines(graph).at(0);
  RunOptions options;
  options.iters = 3;
  options.warmup = 1;
  std::string log;
  KeepWarm warm(std::make_unique<ScriptedHeater>(log), nullptr);
  warm.heat();  // as after a group held at the cap
  std::vector<RowResult> rows;
  run_row_group(
      data, std::vector<GroupRow>(2, GroupRow{*provider, *stream, engine}), options,
      [&](std::size_t) { return true; }, [&](std::size_t) { log += "row "; },
      [&](std::size_t, RowResult row) { rows.push_back(std::move(row)); }, &warm);
  // A host stream's rows are not grouped: the heater stops before the first row starts, and no
  // host row (which never reports the cap) starts it again.
  EXPECT_EQ(log, "start(5000) stop ");
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    ASSERT_EQ(row.status, RowStatus::success) << row.error_message.value_or("");
    EXPECT_FALSE(row.timing->kept_warm);  // a host row measures alone, after no heated gap
  }
}

}  // namespace
}  // namespace dnnbench
