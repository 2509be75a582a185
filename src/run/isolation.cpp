#include "run/isolation.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <set>

#include "graph/cost.hpp"
#include "input/archive.hpp"
#include "input/graph_loader.hpp"
#include "providers/registry.hpp"
#include "run/child_process.hpp"
#include "run/journal.hpp"
#include "run/stack_dump.hpp"

namespace dnnbench {
namespace {

// The row a child died in, as the results show it.
RowResult died_in_row(const StartedRow& started, const ChildOutcome& outcome, const GraphCost& cost) {
  RowResult row;
  row.provider = started.provider;
  row.engine_id = started.engine_id;
  row.engine_name = started.engine_name;
  row.status = outcome.end == ChildOutcome::End::timed_out ? RowStatus::timeout : RowStatus::error;
  row.error_message =
      fmt::format("in this row, the isolated child process {}{}", outcome.describe(),
                  outcome.stderr_tail.empty() ? "" : "; its stderr ended: " + outcome.stderr_tail);
  row.analytical_flops = cost.flops;
  row.analytical_io_bytes = cost.min_bytes;
  return row;
}

class IsolatedExecutor final : public GraphExecutor {
 public:
  IsolatedExecutor(IsolationMode mode, std::optional<double> timeout_s,
                   std::vector<std::string> child_arguments)
      : mode_(mode),
        timeout_s_(timeout_s),
        child_arguments_(std::move(child_arguments)),
        folder_("dnnbench-isolate") {}

  bool run(const GraphInput& input, const Graph& graph, GraphResult& result, const FinishedRows& finished,
           RunObserver& observer) override {
    const auto journal = folder_.path() / fmt::format("graph-{}.jsonl", graphs_++);
    {
      JournalWriter seed(journal, nlohmann::json::object(), /*append=*/false);
      for (const auto& [key, row] : finished.all()) seed.row_finished(result, row);
    }
    const auto argv = child_argv(input, result, journal);
    std::set<std::string> reported;  // rows passed to the observer (reused ones never are)
    for (const auto& [key, row] : finished.all()) reported.insert(key);
    std::size_t rows_before = finished.size();
    for (;;) {
      ChildOptions child_options;
      child_options.ask_for_stack = true;
      const auto outcome = run_child_process(argv, timeout_s_, child_options);
      Journal report;
      try {
        report = read_journal(journal);
      } catch (const std::exception& e) {
        return fail(result, fmt::format("the isolated child's report is unreadable: {}", e.what()));
      }
      const JournalGraph* child = report.find(result.graph_path, result.content_hash);
      if (child) {
        result.results.clear();
        for (const auto& key : child->row_order) {
          const auto& row = *child->rows.find_key(key);
          result.results.push_back(row);
          if (reported.insert(key).second) observer.row_finished(result, row);
        }
      }
      if (outcome.end == ChildOutcome::End::stopped) return false;
      if (child && child->finished) {
        const auto hash = result.content_hash;
        result = *child->finished;
        result.content_hash = hash;
        return true;
      }
      const std::size_t rows_now = child ? child->rows.size() : 0;
      const bool died = outcome.end != ChildOutcome::End::exited || outcome.exit_status != 0;
      if (died && child && child->unfinished) {
        JournalWriter(journal, nlohmann::json::object(), /*append=*/true)
            .row_finished(result, died_in_row(*child->unfinished, outcome, graph_cost(graph)));
        rows_before = rows_now + 1;
        continue;  // the report now holds that row; a new child goes on after it
      }
      if (!died && mode_ == IsolationMode::row && rows_now > rows_before) {
        rows_before = rows_now;
        continue;
      }
      return fail(
          result,
          fmt::format("the isolated child process {} outside any row{}", outcome.describe(),
                      outcome.stderr_tail.empty() ? "" : "; its stderr ended: " + outcome.stderr_tail));
    }
  }

 private:
  bool fail(GraphResult& result, const std::string& message) {
    result.ok = false;
    result.error_message = fmt::format("graph {}: {}", result.graph_name, message);
    return true;
  }

  std::vector<std::string> child_argv(const GraphInput& input, const GraphResult& result,
                                      const std::filesystem::path& journal) const {
    std::vector<std::string> argv{"/proc/self/exe"};
    argv.insert(argv.end(), child_arguments_.begin(), child_arguments_.end());
    argv.insert(argv.end(), {"--isolated-child-graph", input.file.string(), "--isolated-child-path",
                             input.path, "--isolated-child-journal", journal.string(),
                             "--isolated-child-rows", mode_ == IsolationMode::row ? "1" : "0"});
    if (result.dump_folder) argv.insert(argv.end(), {"--isolated-child-dump-folder", *result.dump_folder});
    return argv;
  }

  IsolationMode mode_;
  std::optional<double> timeout_s_;
  std::vector<std::string> child_arguments_;
  ScopedTempDir folder_;  // the children's reports
  std::size_t graphs_ = 0;
};

}  // namespace

std::string_view isolation_mode_name(IsolationMode mode) {
  switch (mode) {
    case IsolationMode::none:
      return "none";
    case IsolationMode::graph:
      return "graph";
    case IsolationMode::row:
      return "row";
  }
  return "?";
}

std::optional<IsolationMode> isolation_mode_from_name(std::string_view name) {
  for (auto mode : {IsolationMode::none, IsolationMode::graph, IsolationMode::row})
    if (isolation_mode_name(mode) == name) return mode;
  return std::nullopt;
}

IsolationMode default_isolation(const std::vector<std::string>& provider_names) {
  const auto names = provider_names.empty() ? default_provider_names() : provider_names;
  for (const auto& name : names) {
    try {
      const auto provider = make_provider(name);
      if (provider && provider->device() == DeviceKind::cuda) return IsolationMode::graph;
    } catch (const std::exception&) {  // a provider that cannot start is not run either
    }
  }
  return IsolationMode::none;
}

double default_child_timeout_s(const RunOptions& options, IsolationMode mode) {
  // Loading the library, enumerating engines, fills and the reference of a large graph: measured
  // at 2.7 s per graph on the H200 (bench/RESULTS.md); 60 s leaves a slow machine room.
  constexpr double kGraphAllowanceS = 60;
  // Per row beyond its caps: the build (an RTC engine compiles for seconds), the checked run and
  // re-check, the outputs' copy and comparison.
  constexpr double kRowAllowanceS = 20;
  // A graph child runs every engine of the graph; cuDNN offers up to ~60 for a convolution.
  constexpr double kEnginesPerGraph = 64;
  // --iters: samples have no time bound; a minute per row covers 2000 samples of 30 ms.
  constexpr double kFixedCountRowS = 60;
  const double rows = mode == IsolationMode::row ? 1
                      : options.max_engines > 0  ? static_cast<double>(options.max_engines)
                                                 : kEnginesPerGraph;
  double row_s = kRowAllowanceS + options.measure.steady.max_ms / 1000 +
                 (options.iters ? kFixedCountRowS : options.adaptive.max_time_ms / 1000);
  if (options.oracle.enabled) row_s += options.oracle.max_seconds + options.adaptive.max_time_ms / 1000;
  return kGraphAllowanceS + rows * row_s;
}

std::unique_ptr<GraphExecutor> make_isolated_executor(IsolationMode mode, std::optional<double> timeout_s,
                                                      std::vector<std::string> child_arguments) {
  return std::make_unique<IsolatedExecutor>(mode, timeout_s, std::move(child_arguments));
}

int run_isolated_child(const ChildRequest& request, const RunOptions& options) {
  install_stack_dump_handler();  // a timed-out row then says where this child was waiting
  const GraphInput input{request.graph_path, request.graph_file, std::nullopt};
  GraphLoader loader(options);
  GraphResult result;
  const auto graph = loader.load(input, result);
  if (!request.dump_folder.empty()) result.dump_folder = request.dump_folder;
  std::error_code ec;
  Journal earlier;
  if (std::filesystem::file_size(request.journal, ec) > 0 && !ec) earlier = read_journal(request.journal);
  JournalWriter report(request.journal, nlohmann::json::object(), /*append=*/true);
  if (!graph) {
    report.graph_finished(result);
    return 0;
  }
  const auto* done = earlier.find(result.graph_path, result.content_hash);
  const FinishedRows none;
  auto executor = make_in_process_executor(options, request.max_rows);
  if (executor->run(input, *graph, result, done ? done->rows : none, report)) report.graph_finished(result);
  return 0;
}

}  // namespace dnnbench
