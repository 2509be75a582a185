#pragma once
// The suite runner: every graph x every selected provider x every engine, in order. A graph
// that fails to load becomes a graph entry with status error; the suite goes on.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "input/inputs.hpp"
#include "providers/provider.hpp"
#include "report/results.hpp"
#include "run/engine_selection.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// Receives progress; sinks (console, journal) implement it. Default: ignore everything.
// graph_finished is called only for graphs that finished: a graph cut short by a stop is not.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void graph_started(std::size_t /*index*/, std::size_t /*count*/, const std::string& /*path*/) {}
  // Before a row is run (not for rows reused from a journal).
  virtual void row_started(const GraphResult& /*graph*/, std::string_view /*provider*/,
                           const EngineInfo& /*engine*/) {}
  virtual void row_finished(const GraphResult& /*graph*/, const RowResult& /*row*/) {}
  virtual void graph_finished(const GraphResult& /*graph*/) {}
};

// Passes every event to each observer, in order.
class ObserverFanout final : public RunObserver {
 public:
  explicit ObserverFanout(std::vector<RunObserver*> observers) : observers_(std::move(observers)) {}
  void graph_started(std::size_t index, std::size_t count, const std::string& path) override;
  void row_started(const GraphResult& graph, std::string_view provider, const EngineInfo& engine) override;
  void row_finished(const GraphResult& graph, const RowResult& row) override;
  void graph_finished(const GraphResult& graph) override;

 private:
  std::vector<RunObserver*> observers_;
};

// Rows of one graph finished earlier (a resumed run, an isolated child's earlier attempt), reused
// instead of run again. A row is known by its provider and engine id (none for a provider-level
// row): within one graph and one set of options that pins the plan too (the heuristic's).
class FinishedRows {
 public:
  static std::string key(std::string_view provider, const std::optional<std::string>& engine_id);
  void add(RowResult row);  // replaces a row of the same key
  const RowResult* find(std::string_view provider, const std::optional<std::string>& engine_id) const;
  const RowResult* find_key(const std::string& key) const;
  const std::map<std::string, RowResult>& all() const { return rows_; }
  std::size_t size() const { return rows_.size(); }

 private:
  std::map<std::string, RowResult> rows_;
};

// Runs the rows of one loaded graph: in this process (make_in_process_executor) or in a child
// process (isolate/isolation.hpp).
class GraphExecutor {
 public:
  virtual ~GraphExecutor() = default;
  // Adds the graph's rows to `result` (named by the loader), reusing `finished`; every new row
  // goes to observer.row_finished. Returns false when it stopped before the end (stop_requested(),
  // or a row limit), leaving the rows so far. Never throws for a failure of the graph: that
  // becomes `result.error_message`.
  virtual bool run(const GraphInput& input, const Graph& graph, GraphResult& result,
                   const FinishedRows& finished, RunObserver& observer) = 0;
  // A provider of this executor's process lost the device (a sticky CUDA error): no later graph
  // can use it here. An isolated worker then ends after its reply.
  virtual bool device_lost() const { return false; }
};

// `max_new_rows`: stop after running this many rows (0: no limit); an isolated child per row uses 1.
std::unique_ptr<GraphExecutor> make_in_process_executor(const RunOptions& options,
                                                        std::size_t max_new_rows = 0);

struct Journal;

// How run_suite runs the graphs. Defaults: in this process, nothing to resume.
struct SuiteSetup {
  GraphExecutor* executor = nullptr;  // nullptr: in process
  const Journal* resume = nullptr;    // graphs and rows finished by an earlier run are reused
  // Set: only the inputs marked true are run and reported (--shard, distribute/distribution.hpp); the
  // others are still loaded, so that duplicates are found across the whole suite.
  const std::vector<bool>* selected = nullptr;
};

// Throws std::invalid_argument for an unknown provider name (a usage error). Inputs become
// graph entries in order; see run/graph_loader.hpp for those that are not run. Stops at the next
// row when stop_requested() (sys/interrupt.hpp): the result then has complete = false.
SuiteResult run_suite(const std::vector<GraphInput>& inputs, const RunOptions& options, RunObserver& observer,
                      SuiteSetup setup = {});

// The --engine values no graph of the suite offered (every row for them says "not offered"): a
// typo, or an engine of another machine; the run warns about them.
std::vector<std::string> engines_never_offered(const SuiteResult& suite,
                                               const std::vector<std::string>& wanted);

}  // namespace dnnbench
