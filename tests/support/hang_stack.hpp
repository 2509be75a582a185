#pragma once
// A GPU test that hangs on the device machine (which has no gdb) says where: with
// DNNBENCH_TEST_HANG_S=N set, after N seconds the main thread's stack goes to stderr and the
// test exits 124. The frames are "binary(+offset)" (addr2line -e binary turns them into lines)
// and the shared libraries' names, which say whether the wait is in CUPTI, cuBLASLt or the driver.
#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

namespace dnnbench::testing {

inline void dump_main_thread_stack(int) {
  // alarm() may land on any thread (CUDA's and CUPTI's own): hand it to the main thread.
  const pid_t pid = getpid();
  if (static_cast<pid_t>(syscall(SYS_gettid)) != pid) {
    syscall(SYS_tgkill, pid, pid, SIGALRM);
    return;
  }
  static const char kHeader[] = "\n== hang: the main thread's stack\n";
  [[maybe_unused]] auto n = write(STDERR_FILENO, kHeader, sizeof kHeader - 1);
  void* frames[64];
  backtrace_symbols_fd(frames, backtrace(frames, 64), STDERR_FILENO);
  _exit(124);
}

// Arms the dump when DNNBENCH_TEST_HANG_S is set; a no-op otherwise.
inline bool arm_hang_stack_dump() {
  const char* seconds = std::getenv("DNNBENCH_TEST_HANG_S");
  if (!seconds || std::atoi(seconds) <= 0) return false;
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc before the handler needs it (no dlopen inside a signal)
  signal(SIGALRM, dump_main_thread_stack);
  alarm(static_cast<unsigned>(std::atoi(seconds)));
  return true;
}

}  // namespace dnnbench::testing
