#include "run/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "run/interrupt.hpp"
#include "run/stack_dump.hpp"

namespace dnnbench {
namespace {

// How often the parent looks at the deadline and the stop flag while the child is quiet.
constexpr int kPollMs = 20;

void keep_tail(std::string& tail, const char* data, std::size_t size, std::size_t limit) {
  tail.append(data, size);
  if (tail.size() > limit) tail.erase(0, tail.size() - limit);
}

// In the child, between fork and exec: only async-signal-safe calls.
[[noreturn]] void exec_child(char* const* argv, int stderr_write, int stdout_fd, pid_t parent) {
  setpgid(0, 0);
  // A parent killed outright (SIGKILL) takes its child along instead of leaving it running.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
  }
  if (stdout_fd >= 0) dup2(stdout_fd, STDOUT_FILENO);
  dup2(stderr_write, STDERR_FILENO);
  execv(argv[0], argv);
  const char message[] = "dnnbench: cannot execute the isolated child\n";
  (void)!write(STDERR_FILENO, message, sizeof message - 1);
  _exit(127);
}

// How long a timed-out child gets to write its stack before the kill.
constexpr int kStackWaitMs = 2000;

// Asks the (still running) child for its main thread's stack and reads it from the stderr pipe;
// what the child wrote before the stack joins the tail.
std::string request_stack(pid_t pid, int fd, std::string& tail, std::size_t tail_limit) {
  if (fd < 0 || kill(pid, kStackDumpSignal) != 0) return "";
  std::string text;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (waited.count() >= kStackWaitMs || text.find(kStackEnd) != std::string::npos) break;
    pollfd entry{fd, POLLIN, 0};
    if (poll(&entry, 1, kPollMs) <= 0) continue;
    char buffer[4096];
    const auto n = read(fd, buffer, sizeof buffer);
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  const auto begin = text.find(kStackBegin);
  keep_tail(tail, text.data(), begin == std::string::npos ? text.size() : begin, tail_limit);
  return compact_stack(text);
}

}  // namespace

std::string ChildOutcome::describe() const {
  switch (end) {
    case End::exited:
      return fmt::format("exited with status {}", exit_status);
    case End::signaled:
      return fmt::format("was killed by signal {} ({})", signal, strsignal(signal));
    case End::timed_out:
      return fmt::format("ran past the {:g} s timeout (--timeout-s) and was killed{}", timeout_s,
                         stack.empty() ? "" : "; it was waiting in: " + stack);
    case End::stopped:
      return "was stopped (the run was interrupted)";
  }
  return "?";
}

ChildOutcome run_child_process(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                               const ChildOptions& options) {
  const std::size_t stderr_tail_bytes = options.stderr_tail_bytes;
  const std::string& stdout_path = options.stdout_path;
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(
        fmt::format("cannot create a pipe for the isolated child: {}", std::strerror(errno)));
  int stdout_fd = -1;
  if (!stdout_path.empty()) {
    stdout_fd = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (stdout_fd < 0) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      throw std::runtime_error(fmt::format("cannot write {}: {}", stdout_path, std::strerror(errno)));
    }
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    if (stdout_fd >= 0) close(stdout_fd);
    throw std::runtime_error(fmt::format("cannot start the isolated child: {}", std::strerror(errno)));
  }
  if (pid == 0) exec_child(args.data(), pipe_fds[1], stdout_fd, parent);
  // Also in the parent: whichever runs first, the child is in its group before a kill(-pid).
  setpgid(pid, pid);
  close(pipe_fds[1]);
  if (stdout_fd >= 0) close(stdout_fd);

  ChildOutcome outcome;
  outcome.timeout_s = timeout_s.value_or(0);
  const auto start = std::chrono::steady_clock::now();
  int fd = pipe_fds[0];
  int status = 0;
  for (;;) {
    pollfd entry{fd, POLLIN, 0};
    if (poll(&entry, fd >= 0 ? 1 : 0, kPollMs) > 0 && fd >= 0) {
      char buffer[4096];
      const auto n = read(fd, buffer, sizeof buffer);
      if (n > 0) {
        keep_tail(outcome.stderr_tail, buffer, static_cast<std::size_t>(n), stderr_tail_bytes);
      } else if (n == 0 || errno != EINTR) {
        close(fd);
        fd = -1;
      }
    }
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool late = timeout_s && elapsed > *timeout_s;
    if (late || stop_requested()) {
      if (late && options.ask_for_stack)
        outcome.stack = request_stack(pid, fd, outcome.stderr_tail, stderr_tail_bytes);
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      outcome.end = late ? ChildOutcome::End::timed_out : ChildOutcome::End::stopped;
      if (fd >= 0) close(fd);
      return outcome;
    }
  }
  // The child is gone: what it wrote last is still in the pipe (unless a grandchild holds it).
  if (fd >= 0) {
    fcntl(fd, F_SETFL, O_NONBLOCK);
    char buffer[4096];
    for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;)
      keep_tail(outcome.stderr_tail, buffer, static_cast<std::size_t>(n), stderr_tail_bytes);
    close(fd);
  }
  if (WIFSIGNALED(status)) {
    outcome.end = ChildOutcome::End::signaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exit_status = WEXITSTATUS(status);
  }
  return outcome;
}

}  // namespace dnnbench
