#pragma once
// Runs a program as a child process and says how it ended. The child gets its own process group
// (a terminal's Ctrl-C reaches only the parent, which decides), stdin and stdout on /dev/null,
// and stderr captured (its tail is kept for error messages). The whole group is killed (SIGKILL)
// at the deadline, or as soon as stop_requested() (run/interrupt.hpp). A child dies with its
// parent (PR_SET_PDEATHSIG), so a parent killed by SIGKILL leaves nothing running.
#include <optional>
#include <string>
#include <vector>

namespace dnnbench {

struct ChildOutcome {
  enum class End { exited, signaled, timed_out, stopped };
  End end = End::exited;
  int exit_status = 0;  // End::exited
  int signal = 0;       // End::signaled
  double timeout_s = 0;
  std::string stderr_tail;  // the last bytes the child wrote to stderr
  // End::timed_out, when the child was asked for its stack: where its main thread was
  // (run/stack_dump.hpp's compact form); "" when it gave none.
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

}  // namespace dnnbench
