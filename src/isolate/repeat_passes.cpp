#include "isolate/repeat_passes.hpp"

#include <chrono>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "input/archive.hpp"
#include "isolate/child_protocol.hpp"
#include "report/json_read.hpp"
#include "run/journal.hpp"
#include "sys/interrupt.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

// A pass's child ended as a run does: 0, 1 (error rows) or 3 (validation failures), with its
// results written.
bool normal_run_exit(const ChildOutcome& child) {
  return child.end == ChildOutcome::End::exited &&
         (child.exit_status == 0 || child.exit_status == 1 || child.exit_status == 3);
}

std::int64_t pass_pid(const SuiteResult& suite) {
  const auto& m = suite.metadata;
  if (m.contains("repeat_pass") && m["repeat_pass"].is_object() && m["repeat_pass"].contains("pid") &&
      m["repeat_pass"]["pid"].is_number_integer())
    return m["repeat_pass"]["pid"].get<std::int64_t>();
  return -1;
}

// The pass's results, else what its journal holds; nullopt when neither has anything.
std::optional<PassSuite> read_pass(RepeatPassOutcome& out) {
  std::error_code ec;
  if (fs::exists(out.results_path, ec)) {
    try {
      auto suite = read_results_file(out.results_path);
      out.complete = suite.complete;
      const auto pid = pass_pid(suite);
      return PassSuite{out.pass, pid, std::move(suite)};
    } catch (const std::exception& e) {
      out.problem += fmt::format("{}{}", out.problem.empty() ? "" : "; ", e.what());
    }
  }
  if (fs::exists(out.journal_path, ec)) {
    try {
      auto suite = suite_from_pass_journal(out.journal_path);
      out.from_journal = true;
      if (!suite.graphs.empty()) return PassSuite{out.pass, -1, std::move(suite)};
    } catch (const std::exception& e) {
      out.problem += fmt::format("{}{}", out.problem.empty() ? "" : "; ", e.what());
    }
  }
  return std::nullopt;
}

}  // namespace

std::string repeat_pass_results_path(const std::string& base, int pass) {
  return fmt::format("{}.pass{}.json", base, pass);
}

std::string repeat_pass_journal_path(const std::string& base, int pass) {
  return fmt::format("{}.pass{}.journal.jsonl", base, pass);
}

SuiteResult suite_from_pass_journal(const std::string& journal_path) {
  const auto journal = read_journal(journal_path);
  SuiteResult out;
  for (const auto& [key, graph] : journal.graphs) {
    if (graph.finished) {
      out.graphs.push_back(*graph.finished);
      continue;
    }
    if (graph.rows.size() == 0) continue;
    // journal_graph_key(): the graph's path, a newline, its content hash.
    GraphResult g;
    g.graph_path = key.substr(0, key.find('\n'));
    g.graph_name = fs::path(g.graph_path).stem().string();
    for (const auto& row_key : graph.row_order)
      if (const auto* row = graph.rows.find_key(row_key)) g.results.push_back(*row);
    out.graphs.push_back(std::move(g));
  }
  return out;
}

std::vector<RepeatPassOutcome> run_repeat_passes(const RepeatPassRequest& request) {
  std::vector<RepeatPassOutcome> outcomes;
  const ScopedTempDir requests("dnnbench-repeat");
  for (int pass = 1; pass <= request.passes && !stop_requested(); ++pass) {
    RepeatPassOutcome out;
    out.pass = pass;
    out.results_path = repeat_pass_results_path(request.base, pass);
    out.journal_path = repeat_pass_journal_path(request.base, pass);
    if (request.resume) {
      std::error_code ec;
      if (fs::exists(out.results_path, ec)) {
        try {
          if (read_results_file(out.results_path).complete) out.reused = true;
        } catch (const std::exception&) {
          // Not readable: the pass runs again (resumed from its journal).
        }
      }
    }
    if (!out.reused) {
      const auto argv = child_command(
          {request.run_arguments, RepeatPass{pass, out.results_path, out.journal_path, request.resume}},
          requests.path());
      if (request.note) request.note(fmt::format("pass {}/{}: started", pass, request.passes));
      const auto start = std::chrono::steady_clock::now();
      // No deadline of its own: each pass's rows keep the run's own caps and --timeout-s.
      out.child = run_child_process(argv, std::nullopt);
      out.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (!normal_run_exit(*out.child))
        out.problem = fmt::format("pass {} {}{}{}", pass, out.child->describe(),
                                  out.child->stderr_tail.empty() ? "" : ": ", out.child->stderr_tail);
    }
    out.suite = read_pass(out);
    // A pass that wrote no results of its own died, whatever its exit code: a sanitizer's own
    // SIGSEGV handler, for one, reports and exits 1, the code of a run with error rows.
    if (!out.reused && out.from_journal && out.problem.empty() && out.child)
      out.problem = fmt::format("pass {} {} without writing its results", pass, out.child->describe());
    if (request.note)
      request.note(
          fmt::format("pass {}/{}: {}{}", pass, request.passes,
                      out.reused ? "reused (complete)" : fmt::format("ended in {:.0f} s", out.elapsed_s),
                      out.suite && out.suite->pid >= 0 ? fmt::format(" (pid {})", out.suite->pid) : ""));
    outcomes.push_back(std::move(out));
  }
  return outcomes;
}

}  // namespace dnnbench
