#pragma once
// Runs a program as a child process and says how it ended. The child gets its own process group
// (a terminal's Ctrl-C reaches only the parent, which decides), stdin and stdout on /dev/null,
// and stderr captured (its tail is kept for error messages). The whole group is killed (SIGKILL)
// at the deadline, or as soon as stop_requested() (sys/interrupt.hpp). A child dies with its
// parent (PR_SET_PDEATHSIG), so a parent killed by SIGKILL leaves nothing running.
//
// WorkerProcess is the long-lived form: the same child, kept across requests, with a pipe on its
// stdin for requests and one on its stdout for replies (one line each way).
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dnnbench {

struct ChildOutcome {
  enum class End { exited, signaled, timed_out, stopped };
  End end = End::exited;
  int exit_status = 0;  // End::exited
  int signal = 0;       // End::signaled
  double timeout_s = 0;
  // End::timed_out while a worker was starting (WorkerProcess::wait_until_ready), not serving.
  bool starting = false;
  std::string stderr_tail;  // the last bytes the child wrote to stderr
  // End::timed_out, when the child was asked for its stack: where its main thread was
  // (isolate/stack_dump.hpp's compact form); "" when it gave none.
  std::string stack;
  // "exited with status 3", "was killed by signal 11 (Segmentation fault)", "ran past the 5 s timeout
  // and was killed; it was waiting in: ...", "was stopped (the run was interrupted)".
  std::string describe() const;
};

struct ChildOptions {
  std::size_t stderr_tail_bytes = 2048;
  // The child's stdout goes to this file (created or truncated) instead of /dev/null.
  std::string stdout_path;
  // At the deadline, send kStackDumpSignal and wait up to 2 s for the stack before the kill: only
  // for children that install the handler (dnnbench's own isolated children). Any other program
  // would die of the signal, which is harmless (it is killed anyway) but tells nothing.
  bool ask_for_stack = false;
};

// `argv[0]` is the program to execute. Throws std::runtime_error when it cannot be started.
ChildOutcome run_child_process(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                               const ChildOptions& options = {});

// One reply of a WorkerProcess, or how the worker ended instead of replying.
struct WorkerReply {
  std::optional<std::string> line;  // the reply, without its newline; nullopt: the worker ended
  // With a reply: only stderr_tail (what the worker wrote during this request). Without: how the
  // worker ended (a timed-out or stopped worker has been killed, its whole group with it).
  ChildOutcome outcome;
};

// A child that serves requests until its stdin is closed. The deadline, the stack request, the
// group kill and the stderr tail are those of run_child_process, per request: a worker that dies
// or hangs in one request is reported as a child that did, with the stderr it wrote in that
// request. A worker that ended (any reply without a line) is not asked again.
class WorkerProcess {
 public:
  // ChildOptions::stdout_path is ignored (stdout carries the replies). Throws std::runtime_error
  // when the worker cannot be started.
  WorkerProcess(const std::vector<std::string>& argv, const ChildOptions& options);
  // close().
  ~WorkerProcess();
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Waits for the line `ready_line`, by which the worker says it has started (its libraries are
  // loaded), so that a request's deadline never counts the worker's start. Lines before it (what
  // a library printed while loading, before the worker took its stdout for replies) are dropped.
  // Up to `limit_s`; a worker that does not get there is killed like a late one, with
  // outcome.starting set.
  WorkerReply wait_until_ready(std::string_view ready_line, double limit_s);
  // Sends `line` (one line, no newline in it) and waits for the next line on the worker's stdout.
  WorkerReply request(const std::string& line, std::optional<double> timeout_s);
  // Whether the worker is still running (it may have died between requests).
  bool running();
  // Closes the worker's stdin (its cue to exit) and gives it a moment to exit cleanly, then kills
  // its group. Idempotent.
  void close();

 private:
  ChildOptions options_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  int stdout_fd_ = -1;
  int stderr_fd_ = -1;
  std::string pending_;  // bytes read from stdout after the last complete line

  WorkerReply next_line(std::optional<double> timeout_s, bool starting);
};

}  // namespace dnnbench
