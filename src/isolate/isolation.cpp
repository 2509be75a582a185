#include "isolate/isolation.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>

#include "graph/cost.hpp"
#include "input/archive.hpp"
#include "isolate/child_process.hpp"
#include "isolate/child_protocol.hpp"
#include "isolate/stack_dump.hpp"
#include "providers/registry.hpp"
#include "run/graph_loader.hpp"
#include "run/journal.hpp"

namespace dnnbench {
namespace {

// A worker's start (exec, loading the libraries) is not the graph's: the per-graph deadline begins
// after its ready line, and the start has its own generous limit (a start under a sanitizer on a
// busy 2-core machine took over 1 s; a hung one is still caught).
constexpr double kWorkerStartLimitS = 120;

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

bool ended_badly(const RowResult& row) {
  return row.status == RowStatus::error || row.status == RowStatus::timeout;
}

// How one child's attempt at a graph ended: `replied` only for a worker that said it was done
// (and is still running); otherwise `outcome` says how the child ended.
struct Attempt {
  bool replied = false;
  ChildOutcome outcome;
};

class IsolatedExecutorImpl final : public IsolatedExecutor {
 public:
  IsolatedExecutorImpl(IsolationMode mode, std::optional<double> timeout_s,
                       std::vector<std::string> run_arguments)
      : mode_(mode),
        timeout_s_(timeout_s),
        run_arguments_(std::move(run_arguments)),
        folder_("dnnbench-isolate") {}

  std::size_t children_started() const override { return children_started_; }

  bool run(const GraphInput& input, const Graph& graph, GraphResult& result, const FinishedRows& finished,
           RunObserver& observer) override {
    const auto journal = folder_.path() / fmt::format("graph-{}.jsonl", graphs_++);
    {
      JournalWriter seed(journal, nlohmann::json::object(), /*append=*/false);
      for (const auto& [key, row] : finished.all()) seed.row_finished(result, row);
    }
    const GraphJob request{input.file.string(), input.path, journal.string(),
                           mode_ == IsolationMode::row ? std::size_t{1} : std::size_t{0},
                           result.dump_folder.value_or("")};
    std::set<std::string> reported;  // rows passed to the observer (reused ones never are)
    std::set<std::string> known;     // rows in the report before the current attempt
    for (const auto& [key, row] : finished.all()) {
      reported.insert(key);
      known.insert(key);
    }
    std::size_t rows_before = finished.size();
    for (;;) {
      const auto attempt = mode_ == IsolationMode::graph ? ask_worker(request) : run_child(request);
      const auto& outcome = attempt.outcome;
      Journal report;
      try {
        report = read_journal(journal);
      } catch (const std::exception& e) {
        retire_worker();
        return fail(result, fmt::format("the isolated child's report is unreadable: {}", e.what()));
      }
      const JournalGraph* child = report.find(result.graph_path, result.content_hash);
      bool attempt_failed_a_row = false;  // a row this attempt ran ended error or timeout
      if (child) {
        result.results.clear();
        for (const auto& key : child->row_order) {
          const auto& row = *child->rows.find_key(key);
          result.results.push_back(row);
          if (reported.insert(key).second) observer.row_finished(result, row);
          if (known.insert(key).second && ended_badly(row)) attempt_failed_a_row = true;
        }
      }
      if (outcome.end == ChildOutcome::End::stopped) return false;
      if (child && child->finished) {
        const auto hash = result.content_hash;
        result = *child->finished;
        result.content_hash = hash;
        if (attempt_failed_a_row || !result.ok || result.error_message) retire_worker();
        return true;
      }
      if (attempt.replied) {
        retire_worker();
        return fail(result, "the isolated worker process said it was done without finishing the graph");
      }
      const std::size_t rows_now = child ? child->rows.size() : 0;
      const bool died = mode_ == IsolationMode::graph || outcome.end != ChildOutcome::End::exited ||
                        outcome.exit_status != 0;
      if (died && child && child->unfinished) {
        const auto row = died_in_row(*child->unfinished, outcome, graph_cost(graph));
        JournalWriter(journal, nlohmann::json::object(), /*append=*/true).row_finished(result, row);
        known.insert(FinishedRows::key(row.provider, row.engine_id));  // the parent's row, not a child's
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

  static ChildOptions child_options() {
    ChildOptions options;
    options.ask_for_stack = true;
    return options;
  }

  // --isolate row: one child per row, as it was before workers (its point is a fresh process for
  // every row).
  Attempt run_child(const GraphJob& request) {
    const auto argv = child_command({run_arguments_, request}, folder_.path());
    ++children_started_;
    return {false, run_child_process(argv, timeout_s_, child_options())};
  }

  // --isolate graph: the worker serves the request; a worker that ended is replaced by the next
  // request's. One that died between two graphs (after replying) is replaced silently: its graph
  // finished, and the next has not started.
  Attempt ask_worker(const GraphJob& request) {
    if (worker_ && !worker_->running()) worker_.reset();
    if (!worker_) {
      const auto argv = child_command({run_arguments_, WorkerJobs{}}, folder_.path());
      worker_ = std::make_unique<WorkerProcess>(argv, child_options());
      ++children_started_;
      auto ready = worker_->wait_until_ready(kWorkerReadyLine, kWorkerStartLimitS);
      if (!ready.line) {
        worker_.reset();
        return {false, std::move(ready.outcome)};
      }
    }
    const auto id = ++requests_;
    auto reply = worker_->request(worker_job_line(request, id), timeout_s_);
    if (!reply.line) {
      worker_.reset();
      return {false, std::move(reply.outcome)};
    }
    // The reply names its request; a worker that says anything else is confused and serves no
    // further graph (the report, not the reply, says what this one did).
    const auto answer = job_done_from_line(*reply.line);
    if (!answer || answer->id != id || !answer->retiring.empty()) retire_worker();
    return {true, std::move(reply.outcome)};
  }

  void retire_worker() {
    if (worker_) worker_->close();
    worker_.reset();
  }

  IsolationMode mode_;
  std::optional<double> timeout_s_;
  std::vector<std::string> run_arguments_;
  ScopedTempDir folder_;  // the children's requests and reports
  std::size_t graphs_ = 0;
  std::size_t children_started_ = 0;
  std::uint64_t requests_ = 0;
  // Declared after folder_: destroyed first, so the worker is gone before its reports' folder is.
  std::unique_ptr<WorkerProcess> worker_;
};

// Replies go to the pipe that is stdout now; fd 1 then points at /dev/null, so that whatever a
// library prints there (oneDNN's verbose mode, cuDNN's logging to stdout) is not taken for a reply.
int take_stdout_for_replies() {
  std::fflush(stdout);
  const int replies = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (replies < 0)
    throw std::runtime_error(fmt::format("the worker cannot keep its stdout: {}", std::strerror(errno)));
  const int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (null >= 0) {
    dup2(null, STDOUT_FILENO);
    close(null);
  }
  return replies;
}

void write_reply(int fd, const std::string& line) {
  std::string_view text = line;
  while (!text.empty()) {
    const auto n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error(fmt::format("the worker cannot reply: {}", std::strerror(errno)));
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

// One graph, in process, reported to request.journal, with `executor` (whose providers may have
// served earlier graphs).
void run_request(const GraphJob& request, const RunOptions& options, GraphExecutor& executor) {
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
    return;
  }
  const auto* done = earlier.find(result.graph_path, result.content_hash);
  const FinishedRows none;
  if (executor.run(input, *graph, result, done ? done->rows : none, report)) report.graph_finished(result);
}
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
  // at 2.7 s per graph on the H200; 60 s leaves a slow machine room.
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

std::unique_ptr<IsolatedExecutor> make_isolated_executor(IsolationMode mode, std::optional<double> timeout_s,
                                                         std::vector<std::string> run_arguments) {
  return std::make_unique<IsolatedExecutorImpl>(mode, timeout_s, std::move(run_arguments));
}

int run_isolated_child(const GraphJob& request, const RunOptions& options) {
  install_stack_dump_handler();  // a timed-out row then says where this child was waiting
  const auto executor = make_in_process_executor(options, request.max_rows);
  run_request(request, options, *executor);
  return 0;
}

int run_isolated_worker(const RunOptions& options) {
  install_stack_dump_handler();
  const int replies = take_stdout_for_replies();
  write_reply(replies, std::string(kWorkerReadyLine) + "\n");
  // By row limit: one executor (one set of loaded providers) serves every graph that has it.
  std::map<std::size_t, std::unique_ptr<GraphExecutor>> executors;
  for (std::string line; std::getline(std::cin, line);) {
    if (line.empty()) continue;
    const auto [request, id] = worker_job_from_line(line);
    auto& executor = executors[request.max_rows];
    if (!executor) executor = make_in_process_executor(options, request.max_rows);
    run_request(request, options, *executor);
    // A worker whose device is lost serves no further graph (every row would be `not run`): it
    // says so in its reply, and the parent starts a fresh one for the next graph.
    // (Only this graph's executor can have lost it: a loss in an earlier graph ended the worker.)
    const bool lost = executor->device_lost();
    write_reply(replies, job_done_line({id, lost ? "device lost" : ""}) + "\n");
    if (lost) break;
  }
  close(replies);
  return 0;
}

}  // namespace dnnbench
