// The planted device slowdown (session/planted_slowdown.hpp): the variable's parse, and the wait a
// plan instance enqueues after every execution, as a share of the plan's own time.
#include "session/planted_slowdown.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "../support/graph_builder.hpp"
#include "providers/registry.hpp"
#include "session/graph_data.hpp"
#include "session/plan_instance.hpp"

namespace dnnbench {
namespace {

TEST(PlantedSlowdown, OnlyAFactorAboveOneAndAtMostFourPlantsOne) {
  EXPECT_EQ(parse_planted_slowdown("1.05"), 1.05);
  EXPECT_EQ(parse_planted_slowdown("4"), 4.0);
  for (const char* text : {"", "1", "0.9", "4.5", "x", "1.05x", "nan", "-2"})
    EXPECT_FALSE(parse_planted_slowdown(text)) << text;
  EXPECT_FALSE(parse_planted_slowdown(nullptr));
}

// A value set but not a factor is said on stderr (once a process), naming the variable and value.
TEST(PlantedSlowdown, AValueThatIsNotAFactorIsSaid) {
  setenv(kPlantedSlowdownVariable, "5%", 1);
  ::testing::internal::CaptureStderr();
  EXPECT_FALSE(planted_device_slowdown());
  const auto said = ::testing::internal::GetCapturedStderr();
  unsetenv(kPlantedSlowdownVariable);
  EXPECT_NE(said.find("DNNBENCH_PLANT_DEVICE_SLOWDOWN=5%: not a number in (1, 4]"), std::string::npos)
      << said;
}

// A host stream with device-style timers (host clock) that records the waits enqueued on it.
class DelayRecordingStream final : public Stream {
 public:
  // `boundary_us`: what every wait costs besides its length (a kernel's launch and drain).
  explicit DelayRecordingStream(std::unique_ptr<Stream> inner, bool can_delay, double boundary_us = 0)
      : inner_(std::move(inner)), can_delay_(can_delay), boundary_us_(boundary_us) {}
  void synchronize() override { inner_->synchronize(); }
  std::unique_ptr<KernelTimer> make_kernel_timer() override { return std::make_unique<Timer>(); }
  bool enqueue_delay(double microseconds) override {
    if (!can_delay_) return false;
    delays.push_back(microseconds);
    const auto until =
        std::chrono::steady_clock::now() + std::chrono::duration<double, std::micro>(boundary_us_);
    while (std::chrono::steady_clock::now() < until) {
    }
    return true;
  }
  std::vector<double> delays;

 private:
  class Timer final : public KernelTimer {
   public:
    void start() override { begin_ = std::chrono::steady_clock::now(); }
    void stop() override { end_ = std::chrono::steady_clock::now(); }
    double elapsed_ms() override { return std::chrono::duration<double, std::milli>(end_ - begin_).count(); }

   private:
    std::chrono::steady_clock::time_point begin_, end_;
  };
  std::unique_ptr<Stream> inner_;
  bool can_delay_;
  double boundary_us_;
};

// The waits after `executions` executions of a relu plan with the variable set to `factor`.
std::vector<double> planted_waits(const char* factor, bool can_delay, int executions,
                                  double boundary_us = 0) {
  if (factor)
    setenv(kPlantedSlowdownVariable, factor, 1);
  else
    unsetenv(kPlantedSlowdownVariable);
  auto provider = make_provider("reference");
  DelayRecordingStream stream(provider->make_stream(), can_delay, boundary_us);
  const auto graph = testing::relu_square_graph(256);
  GraphData data(graph, 1);
  PlanInstance instance(data, *provider, stream,
                        provider->heuristic_plan(graph, provider->engines(graph).at(0)));
  stream.delays.clear();  // the probe's
  for (int i = 0; i < executions; ++i) instance.execute();
  unsetenv(kPlantedSlowdownVariable);
  return stream.delays;
}

TEST(PlantedSlowdown, EveryExecutionWaitsItsShareOfThePlansOwnTime) {
  const auto waits = planted_waits("1.5", true, 3);
  ASSERT_EQ(waits.size(), 3u);
  EXPECT_GT(waits[0], 0);  // half the execution's own time, in microseconds
  EXPECT_EQ(waits[1], waits[0]);
  EXPECT_EQ(waits[2], waits[0]);
  // Unset: no wait; a stream that cannot wait: none either (the run goes on unplanted).
  EXPECT_TRUE(planted_waits(nullptr, true, 3).empty());
  EXPECT_TRUE(planted_waits("1.5", false, 3).empty());
}

// A rotation sizes the wait again on rotating executions (its copies' cache state), and the
// executions after it still carry it, bound to the placed set again.
TEST(PlantedSlowdown, ARotationSizesTheWaitAgainInItsOwnState) {
  setenv(kPlantedSlowdownVariable, "1.5", 1);
  auto provider = make_provider("reference");
  DelayRecordingStream stream(provider->make_stream(), true);
  const auto graph = testing::relu_square_graph(256);
  GraphData data(graph, 1);
  PlanInstance instance(data, *provider, stream,
                        provider->heuristic_plan(graph, provider->engines(graph).at(0)));
  instance.add_rotation_copies(3);
  stream.delays.clear();
  instance.set_rotating(true);
  instance.plant_slowdown();
  instance.set_rotating(false);
  // The sizing's own executions carried no wait: it times the plan alone (zero-length probes aside).
  for (const double d : stream.delays) EXPECT_EQ(d, 0);
  stream.delays.clear();
  for (int i = 0; i < 3; ++i) instance.execute();
  unsetenv(kPlantedSlowdownVariable);
  ASSERT_EQ(stream.delays.size(), 3u);
  EXPECT_GT(stream.delays[0], 0);
  EXPECT_EQ(instance.set_bindings(0).buffers.size(), instance.buffers().bindings().buffers.size());
}

// The wait kernel costs a boundary even when it waits for nothing: the planted wait is the share
// less that boundary, and a plan whose share the boundary alone exceeds runs unplanted (said once)
// rather than slowed by more than the factor.
TEST(PlantedSlowdown, ThePlantLeavesOutTheWaitsOwnBoundary) {
  ::testing::internal::CaptureStderr();
  // A 256 x 256 relu on the reference takes well under 20 ms: its 1% is under a 2 ms boundary.
  const auto waits = planted_waits("1.01", true, 3, 2e3);
  const auto said = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(waits.empty());
  EXPECT_NE(said.find("carries no plant"), std::string::npos) << said;
}

}  // namespace
}  // namespace dnnbench
