#pragma once
// Crash isolation (--isolate graph|row): graphs (or rows) run in a child process of this same
// binary, so a crash of a library (segfault, abort, a sticky CUDA error, an out-of-memory kill) or
// a hang (--timeout-s) costs one row, not the suite. The child runs the rows in process and
// reports through a journal file per graph (run/journal.hpp) that the parent reads (the child
// protocol, isolate/child_protocol.hpp):
//   - a row the child started and did not finish becomes an `error` row (how the child died and
//     the tail of its stderr) or a `timeout` row, written into that file so that the next child
//     skips it;
//   - a new child then goes on with the rest of the graph (with --isolate row, one child per row);
//   - a child that dies outside any row (loading the library, filling inputs) makes the graph an
//     error.
// With --isolate graph the child is a worker (isolate/child_process.hpp's WorkerProcess) that serves
// graph after graph, so that process start, library loading and CUDA context creation are paid
// once per suite instead of once per graph. The deadline stays per graph. A worker is retired
// (closed; the next graph gets a fresh one) after a graph in which a row it ran ended `error` or
// `timeout`, or the graph itself failed: a library that hit a sticky CUDA error must not poison
// the graphs after it.
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "isolate/child_protocol.hpp"
#include "run/suite_runner.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

enum class IsolationMode { none, graph, row };
std::string_view isolation_mode_name(IsolationMode mode);
std::optional<IsolationMode> isolation_mode_from_name(std::string_view name);
// `graph` when a provider of these (every default one when empty) runs on a GPU: GPU libraries are
// where crashes and sticky errors happen, and the worker's start-up is paid once per suite.
// `none` otherwise (docs/reliability.md has the measured cost).
IsolationMode default_isolation(const std::vector<std::string>& provider_names);

// The child timeout used when --timeout-s is not given, so that a hung kernel cannot stall an
// isolated suite forever. Derived from the measurement caps: a row's warm-up and sampling are
// bounded by --warmup-max-ms and --max-time-ms (and the oracle's sweep by --oracle-max-seconds),
// so a row that runs far past them is hung. --iters has no time cap: a fixed allowance then.
// `rows` is how many rows one child runs at most (1 with --isolate row).
double default_child_timeout_s(const RunOptions& options, IsolationMode mode);

// The parent's executor; it also says how many child processes it started (the run's metadata).
class IsolatedExecutor : public GraphExecutor {
 public:
  virtual std::size_t children_started() const = 0;
};

// `run_arguments`: the run's arguments after `run`, which every child parses as its own
// (isolate/child_protocol.hpp).
std::unique_ptr<IsolatedExecutor> make_isolated_executor(IsolationMode mode, std::optional<double> timeout_s,
                                                         std::vector<std::string> run_arguments);

// A child's whole work (role graph): one graph, in process, reported to request.journal. Returns
// the exit code.
int run_isolated_child(const GraphJob& request, const RunOptions& options);

// A worker's whole work (role worker): reads one job per line on stdin, runs it
// as run_isolated_child does (the providers stay loaded from one graph to the next), and writes
// one line on stdout when it is done. Returns 0 at the end of stdin. Its stdout then points at
// /dev/null, so that what a library prints cannot be taken for a reply.
int run_isolated_worker(const RunOptions& options);

}  // namespace dnnbench
