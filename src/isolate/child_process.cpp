#include "isolate/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "isolate/stack_dump.hpp"
#include "sys/interrupt.hpp"

namespace dnnbench {
namespace {

// How often the parent looks at the deadline and the stop flag while the child is quiet.
constexpr int kPollMs = 20;
// How long a timed-out child gets to write its stack before the kill.
constexpr int kStackWaitMs = 2000;
// How long a worker whose stdin was closed gets to exit by itself (library teardown: a CUDA
// context, cuDNN handles) before its group is killed; it holds no results, so the kill loses none.
constexpr int kWorkerExitGraceMs = 2000;

void keep_tail(std::string& tail, const char* data, std::size_t size, std::size_t limit) {
  tail.append(data, size);
  if (tail.size() > limit) tail.erase(0, tail.size() - limit);
}

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Reads what `fd` holds now (it is non-blocking) into `sink`; closes it at end of file or on an
// error, so that a closed pipe is not polled again.
template <typename Sink>
void read_available(int& fd, Sink&& sink) {
  while (fd >= 0) {
    char buffer[4096];
    const auto n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      sink(buffer, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    close_fd(fd);
  }
}

void read_tail(int& fd, std::string& tail, std::size_t limit) {
  read_available(fd, [&](const char* data, std::size_t size) { keep_tail(tail, data, size, limit); });
}

// In the child, between fork and exec: only async-signal-safe calls. A negative stdin or stdout
// descriptor means /dev/null.
[[noreturn]] void exec_child(char* const* argv, int stdin_fd, int stdout_fd, int stderr_fd, pid_t parent) {
  setpgid(0, 0);
  // A parent killed outright (SIGKILL) takes its child along instead of leaving it running.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the parent died before prctl took effect
  const int null = open("/dev/null", O_RDWR);
  if (null >= 0) {
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
  }
  if (stdin_fd >= 0) dup2(stdin_fd, STDIN_FILENO);
  if (stdout_fd >= 0) dup2(stdout_fd, STDOUT_FILENO);
  dup2(stderr_fd, STDERR_FILENO);
  execv(argv[0], argv);
  const char message[] = "dnnbench: cannot execute the isolated child\n";
  (void)!write(STDERR_FILENO, message, sizeof message - 1);
  _exit(127);
}

// The parent's ends of a started child's pipes (-1 where it has none).
struct Spawned {
  pid_t pid = -1;
  int stderr_fd = -1;
  int stdin_fd = -1;   // write end: the worker's requests
  int stdout_fd = -1;  // read end: the worker's replies
};

void make_pipe(int fds[2], const char* what) {
  if (pipe2(fds, O_CLOEXEC) != 0)
    throw std::runtime_error(
        fmt::format("cannot create a pipe for the isolated child's {}: {}", what, std::strerror(errno)));
}

// Starts `argv` in its own process group. `stdout_path`: its stdout goes there (else /dev/null);
// `worker`: stdin and stdout are pipes to the parent instead. Throws std::runtime_error.
Spawned spawn_child(const std::vector<std::string>& argv, const std::string& stdout_path, bool worker) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Parent ends, child ends: closed on every path out of here but the success one.
  int err[2] = {-1, -1}, in[2] = {-1, -1}, out[2] = {-1, -1};
  int file = -1;
  auto close_all = [&] {
    for (int* fd : {&err[0], &err[1], &in[0], &in[1], &out[0], &out[1], &file}) close_fd(*fd);
  };
  try {
    make_pipe(err, "stderr");
    if (worker) {
      make_pipe(in, "stdin");
      make_pipe(out, "stdout");
    }
  } catch (...) {
    close_all();
    throw;
  }
  if (!worker && !stdout_path.empty()) {
    file = open(stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (file < 0) {
      const int error = errno;
      close_all();
      throw std::runtime_error(fmt::format("cannot write {}: {}", stdout_path, std::strerror(error)));
    }
  }
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close_all();
    throw std::runtime_error(fmt::format("cannot start the isolated child: {}", std::strerror(error)));
  }
  if (pid == 0) exec_child(args.data(), in[0], worker ? out[1] : file, err[1], parent);
  // Also in the parent: whichever runs first, the child is in its group before a kill(-pid).
  setpgid(pid, pid);
  Spawned spawned{pid, err[0], in[1], out[0]};
  err[0] = in[1] = out[0] = -1;  // kept
  close_all();
  // Read only after poll() says so, or to drain: never blocks the parent.
  for (int fd : {spawned.stderr_fd, spawned.stdout_fd})
    if (fd >= 0) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  return spawned;
}

// Asks the (still running) child for its main thread's stack and reads it from the stderr pipe;
// what the child wrote before the stack joins the tail.
std::string request_stack(pid_t pid, int& fd, std::string& tail, std::size_t tail_limit) {
  if (fd < 0 || kill(pid, kStackDumpSignal) != 0) return "";
  std::string text;
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const auto waited =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    if (waited.count() >= kStackWaitMs || text.find(kStackEnd) != std::string::npos || fd < 0) break;
    pollfd entry{fd, POLLIN, 0};
    if (poll(&entry, 1, kPollMs) <= 0) continue;
    read_available(fd, [&](const char* data, std::size_t size) { text.append(data, size); });
  }
  const auto begin = text.find(kStackBegin);
  keep_tail(tail, text.data(), begin == std::string::npos ? text.size() : begin, tail_limit);
  return compact_stack(text);
}

enum class Waited { exited, replied, late, stopped };

// The parent's watch over a running child: keeps the tail of its stderr and, for a worker, collects
// its stdout in `replies`, until the child exits, `replies` holds a whole line, the deadline passes
// or a stop is asked for. `status`: the wait status when it exited.
Waited watch(pid_t pid, int& stderr_fd, std::string& tail, std::size_t tail_limit, int* reply_fd,
             std::string* replies, std::optional<double> timeout_s, int& status) {
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    pollfd entries[2];
    nfds_t count = 0;
    if (stderr_fd >= 0) entries[count++] = {stderr_fd, POLLIN, 0};
    if (reply_fd && *reply_fd >= 0) entries[count++] = {*reply_fd, POLLIN, 0};
    if (poll(entries, count, kPollMs) > 0) {
      read_tail(stderr_fd, tail, tail_limit);
      if (reply_fd)
        read_available(*reply_fd, [&](const char* data, std::size_t size) { replies->append(data, size); });
    }
    if (replies && replies->find('\n') != std::string::npos) return Waited::replied;
    if (waitpid(pid, &status, WNOHANG) == pid) return Waited::exited;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (timeout_s && elapsed > *timeout_s) return Waited::late;
    if (stop_requested()) return Waited::stopped;
  }
}

// A child that watch() left running (late or stopped): its stack if asked for, then the kill of
// its whole group.
void end_running_child(pid_t pid, int& stderr_fd, Waited why, const ChildOptions& options,
                       ChildOutcome& outcome) {
  if (why == Waited::late && options.ask_for_stack)
    outcome.stack = request_stack(pid, stderr_fd, outcome.stderr_tail, options.stderr_tail_bytes);
  kill(-pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  outcome.end = why == Waited::late ? ChildOutcome::End::timed_out : ChildOutcome::End::stopped;
}

// A child that exited: what it wrote last is still in the pipe (unless a grandchild holds it).
void record_exit(int status, int& stderr_fd, const ChildOptions& options, ChildOutcome& outcome) {
  read_tail(stderr_fd, outcome.stderr_tail, options.stderr_tail_bytes);
  if (WIFSIGNALED(status)) {
    outcome.end = ChildOutcome::End::signaled;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.end = ChildOutcome::End::exited;
    outcome.exit_status = WEXITSTATUS(status);
  }
}

// Writes all of `text`. A worker that died makes write() raise SIGPIPE, whose default action
// would end the parent: it is held back for the write and discarded; the caller learns of the
// death from waitpid.
void write_to_worker(int fd, std::string_view text) {
  sigset_t pipe_signal, before;
  sigemptyset(&pipe_signal);
  sigaddset(&pipe_signal, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_signal, &before);
  bool broken = false;
  while (!text.empty()) {
    const auto n = write(fd, text.data(), text.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      broken = errno == EPIPE;
      break;
    }
    text.remove_prefix(static_cast<std::size_t>(n));
  }
  if (broken && !sigismember(&before, SIGPIPE)) {
    const timespec now{0, 0};
    sigtimedwait(&pipe_signal, nullptr, &now);
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
}

}  // namespace

std::string ChildOutcome::describe() const {
  switch (end) {
    case End::exited:
      return fmt::format("exited with status {}", exit_status);
    case End::signaled:
      return fmt::format("was killed by signal {} ({})", signal, strsignal(signal));
    case End::timed_out:
      if (starting)
        return fmt::format("did not start within {:g} s and was killed{}", timeout_s,
                           stack.empty() ? "" : "; it was waiting in: " + stack);
      return fmt::format("ran past the {:g} s timeout (--timeout-s) and was killed{}", timeout_s,
                         stack.empty() ? "" : "; it was waiting in: " + stack);
    case End::stopped:
      return "was stopped (the run was interrupted)";
  }
  return "?";
}

ChildOutcome run_child_process(const std::vector<std::string>& argv, std::optional<double> timeout_s,
                               const ChildOptions& options) {
  auto child = spawn_child(argv, options.stdout_path, /*worker=*/false);
  ChildOutcome outcome;
  outcome.timeout_s = timeout_s.value_or(0);
  int status = 0;
  const auto waited = watch(child.pid, child.stderr_fd, outcome.stderr_tail, options.stderr_tail_bytes,
                            nullptr, nullptr, timeout_s, status);
  if (waited == Waited::exited)
    record_exit(status, child.stderr_fd, options, outcome);
  else
    end_running_child(child.pid, child.stderr_fd, waited, options, outcome);
  close_fd(child.stderr_fd);
  return outcome;
}

WorkerProcess::WorkerProcess(const std::vector<std::string>& argv, const ChildOptions& options)
    : options_(options) {
  const auto child = spawn_child(argv, "", /*worker=*/true);
  pid_ = child.pid;
  stdin_fd_ = child.stdin_fd;
  stdout_fd_ = child.stdout_fd;
  stderr_fd_ = child.stderr_fd;
}

WorkerProcess::~WorkerProcess() {
  close();
}

WorkerReply WorkerProcess::wait_until_ready(std::string_view ready_line, double limit_s) {
  if (pid_ < 0) throw std::logic_error("waiting for a worker process that has ended");
  const auto start = std::chrono::steady_clock::now();
  for (;;) {
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    auto reply = next_line(std::max(0.0, limit_s - waited), /*starting=*/true);
    if (!reply.line || *reply.line == ready_line) {
      reply.outcome.timeout_s = limit_s;
      return reply;
    }
  }
}

WorkerReply WorkerProcess::request(const std::string& line, std::optional<double> timeout_s) {
  if (pid_ < 0) throw std::logic_error("a request to a worker process that has ended");
  // What the worker wrote between requests belongs to none of them.
  std::string idle;
  read_tail(stderr_fd_, idle, 0);
  write_to_worker(stdin_fd_, line + "\n");
  return next_line(timeout_s, /*starting=*/false);
}

WorkerReply WorkerProcess::next_line(std::optional<double> timeout_s, bool starting) {
  WorkerReply reply;
  reply.outcome.timeout_s = timeout_s.value_or(0);
  reply.outcome.starting = starting;
  int status = 0;
  const auto waited = watch(pid_, stderr_fd_, reply.outcome.stderr_tail, options_.stderr_tail_bytes,
                            &stdout_fd_, &pending_, timeout_s, status);
  if (waited == Waited::replied) {
    const auto end = pending_.find('\n');
    reply.line = pending_.substr(0, end);
    pending_.erase(0, end + 1);
    read_tail(stderr_fd_, reply.outcome.stderr_tail, options_.stderr_tail_bytes);
    return reply;
  }
  if (waited == Waited::exited)
    record_exit(status, stderr_fd_, options_, reply.outcome);
  else
    end_running_child(pid_, stderr_fd_, waited, options_, reply.outcome);
  pid_ = -1;
  close();
  return reply;
}

bool WorkerProcess::running() {
  int status = 0;
  if (pid_ >= 0 && waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    close();
  }
  return pid_ >= 0;
}

void WorkerProcess::close() {
  close_fd(stdin_fd_);
  if (pid_ >= 0) {
    const auto start = std::chrono::steady_clock::now();
    int status = 0;
    bool exited = false;
    std::string ignored;
    while (!(exited = waitpid(pid_, &status, WNOHANG) == pid_)) {
      const auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
      if (waited.count() >= kWorkerExitGraceMs || stop_requested()) break;
      // Drained, so that a worker writing on its way out is never blocked by a full pipe.
      pollfd entry{stderr_fd_, POLLIN, 0};
      poll(&entry, stderr_fd_ >= 0 ? 1 : 0, kPollMs);
      read_tail(stderr_fd_, ignored, 0);
    }
    if (!exited) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, &status, 0);
    }
    pid_ = -1;
  }
  close_fd(stdout_fd_);
  close_fd(stderr_fd_);
  pending_.clear();
}

}  // namespace dnnbench
