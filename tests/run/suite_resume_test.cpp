// run_suite with a journal to resume from and a stop request (the parts that need no child).
#include <gtest/gtest.h>

#include <csignal>

#include "report/json_report.hpp"
#include "run/graph_loader.hpp"
#include "run/journal.hpp"
#include "run/suite_runner.hpp"
#include "sys/interrupt.hpp"

namespace dnnbench {
namespace {

std::vector<GraphInput> sample_inputs(std::initializer_list<const char*> names) {
  std::vector<GraphInput> inputs;
  for (const char* name : names) {
    const auto path = std::string(DNNBENCH_SOURCE_DIR) + "/graphs/samples/" + name;
    inputs.push_back({path, path, std::nullopt});
  }
  return inputs;
}

RunOptions quick_reference() {
  RunOptions options;
  options.providers = {"reference"};
  options.iters = 2;
  options.warmup = 0;
  return options;
}

class Recorder final : public RunObserver {
 public:
  void row_started(const GraphResult&, std::string_view, const EngineInfo&) override { ++started; }
  void graph_finished(const GraphResult&) override { ++finished; }
  int started = 0, finished = 0;
};

TEST(SuiteResume, ReusesFinishedRowsAndGraphs) {
  const auto inputs = sample_inputs({"pointwise_relu.json", "pointwise_tanh.json"});
  const auto options = quick_reference();
  Recorder first;
  const auto full = run_suite(inputs, options, first);
  ASSERT_TRUE(full.complete);
  ASSERT_EQ(full.graphs.size(), 2u);
  ASSERT_TRUE(full.graphs[0].content_hash);
  EXPECT_EQ(first.started, 2);

  // The first graph finished; the second has its row, marked so that reuse shows.
  Journal journal;
  auto& done = journal.graphs[journal_graph_key(full.graphs[0].graph_path, full.graphs[0].content_hash)];
  done.finished = full.graphs[0];
  auto marked = full.graphs[1].results.at(0);
  marked.plan_name = "from-the-journal";
  journal.graphs[journal_graph_key(full.graphs[1].graph_path, full.graphs[1].content_hash)].rows.add(marked);

  Recorder second;
  const auto resumed = run_suite(inputs, options, second, {nullptr, &journal});
  ASSERT_TRUE(resumed.complete);
  EXPECT_EQ(second.started, 0) << "nothing was left to run";
  EXPECT_EQ(second.finished, 2);
  EXPECT_EQ(resumed.graphs[1].results.at(0).plan_name, "from-the-journal");
  EXPECT_EQ(resumed.graphs[0].results.at(0).plan_name, full.graphs[0].results.at(0).plan_name);
}

TEST(SuiteResume, RowsOfOtherContentAreNotReused) {
  const auto inputs = sample_inputs({"pointwise_relu.json"});
  const auto options = quick_reference();
  Journal journal;
  RowResult stale;
  stale.provider = "reference";
  stale.engine_id = "cpu-fp64";
  stale.plan_name = "stale";
  journal.graphs[journal_graph_key(inputs[0].path, "fnv1a64:0000000000000000")].rows.add(stale);
  Recorder observer;
  const auto suite = run_suite(inputs, options, observer, {nullptr, &journal});
  EXPECT_EQ(observer.started, 1);
  EXPECT_NE(suite.graphs.at(0).results.at(0).plan_name, "stale");
}

TEST(SuiteStop, AStopRequestEndsTheSuiteIncomplete) {
  request_stop(SIGTERM);
  Recorder observer;
  const auto suite = run_suite(sample_inputs({"pointwise_relu.json"}), quick_reference(), observer);
  request_stop(0);
  EXPECT_FALSE(suite.complete);
  EXPECT_EQ(observer.started, 0);
  EXPECT_EQ(stop_signal(), 0);
}

// Asks for a stop (as SIGINT would) when a row or a graph starts.
class Stopper final : public RunObserver {
 public:
  explicit Stopper(bool at_graph_start) : at_graph_start_(at_graph_start) {}
  void graph_started(std::size_t, std::size_t, const std::string&) override {
    if (at_graph_start_) request_stop(SIGINT);
  }
  void row_started(const GraphResult&, std::string_view, const EngineInfo&) override {
    if (!at_graph_start_) request_stop(SIGINT);
  }

 private:
  bool at_graph_start_;
};

// SIGINT during the last row: the row finishes, but the run is not complete, and its exit code
// (the JSON's too) is 130.
TEST(SuiteStop, AStopDuringTheLastRowLeavesTheRunIncomplete) {
  Stopper observer(/*at_graph_start=*/false);
  const auto suite = run_suite(sample_inputs({"pointwise_relu.json"}), quick_reference(), observer);
  request_stop(0);
  EXPECT_FALSE(suite.complete);
  EXPECT_EQ(suite.stop_signal, SIGINT);
  EXPECT_EQ(exit_code_for(suite), 130);
  EXPECT_EQ(suite_to_json(suite)["exit_code"], 130);
  ASSERT_EQ(suite.graphs.size(), 1u);
  EXPECT_EQ(suite.graphs[0].results.size(), 1u);
}

// A graph a stop cut short before its rows is `interrupted`, never `ok` with no rows.
TEST(SuiteStop, AGraphCutShortIsInterrupted) {
  Stopper observer(/*at_graph_start=*/true);
  const auto suite = run_suite(sample_inputs({"pointwise_relu.json"}), quick_reference(), observer);
  request_stop(0);
  EXPECT_FALSE(suite.complete);
  ASSERT_EQ(suite.graphs.size(), 1u);
  EXPECT_TRUE(suite.graphs[0].results.empty());
  EXPECT_EQ(graph_status_name(suite.graphs[0]), "interrupted");
  EXPECT_EQ(exit_code_for(suite), 130);
}

#ifdef DNNBENCH_HAVE_ONEDNN
TEST(InProcessExecutor, StopsAfterTheRowLimit) {
  const auto inputs = sample_inputs({"pointwise_relu.json"});
  auto options = quick_reference();
  options.providers = {"reference", "onednn"};
  GraphLoader loader(options);
  GraphResult result;
  const auto graph = loader.load(inputs[0], result);
  ASSERT_TRUE(graph);
  Recorder observer;
  const FinishedRows none;
  EXPECT_FALSE(make_in_process_executor(options, 1)->run(inputs[0], *graph, result, none, observer));
  EXPECT_EQ(observer.started, 1);
  EXPECT_EQ(result.results.size(), 1u);
  // A second attempt reusing that row runs the rest.
  FinishedRows done;
  done.add(result.results[0]);
  GraphResult again;
  GraphLoader second_loader(options);
  ASSERT_TRUE(second_loader.load(inputs[0], again));
  EXPECT_TRUE(make_in_process_executor(options)->run(inputs[0], *graph, again, done, observer));
  EXPECT_GE(again.results.size(), 2u);
  EXPECT_EQ(again.results[0].provider, "reference");
}
#endif

}  // namespace
}  // namespace dnnbench
