#include "isolate/stack_dump.hpp"

#include <cxxabi.h>
#include <execinfo.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <vector>

namespace dnnbench {
namespace {

pid_t main_thread = 0;

void write_all(std::string_view text) {
  while (!text.empty()) {
    const auto n = write(STDERR_FILENO, text.data(), text.size());
    if (n <= 0) return;
    text.remove_prefix(static_cast<std::size_t>(n));
  }
}

void on_stack_request(int) {
  // The signal may land on any thread (CUDA's and CUPTI's own): pass it on to the main thread.
  if (static_cast<pid_t>(syscall(SYS_gettid)) != main_thread) {
    syscall(SYS_tgkill, getpid(), main_thread, kStackDumpSignal);
    return;
  }
  void* frames[64];
  const int n = backtrace(frames, 64);
  write_all(kStackBegin);
  // Frames 0 and 1 are this handler and the kernel's signal trampoline.
  if (n > 2) backtrace_symbols_fd(frames + 2, n - 2, STDERR_FILENO);
  write_all(kStackEnd);
}

// "dnnbench(_ZN8dnnbench11PlanSession7measureERNS_12StoppingRuleEb+0x4c) [0x55d0c1]" ->
// "dnnbench::PlanSession::measure"; "libc.so.6(clock_nanosleep+0x65) [..]" -> "clock_nanosleep";
// "dnnbench(+0x1308) [..]" -> "dnnbench+0x1308".
std::string frame_name(std::string_view line) {
  const auto open = line.find('(');
  const auto close = line.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return std::string(line);
  std::string_view inside = line.substr(open + 1, close - open - 1);
  const auto plus = inside.find('+');
  const std::string symbol(inside.substr(0, plus));
  if (symbol.empty()) {
    std::string_view object = line.substr(0, open);
    if (const auto slash = object.rfind('/'); slash != std::string_view::npos)
      object.remove_prefix(slash + 1);
    return std::string(object) + (plus == std::string_view::npos ? "" : std::string(inside.substr(plus)));
  }
  int status = 0;
  const std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), &std::free);
  std::string name = status == 0 && demangled ? std::string(demangled.get()) : symbol;
  // The arguments make names long and say little here: dropped (the first '(' at depth 0).
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '<') ++depth;
    if (name[i] == '>') --depth;
    if (name[i] == '(' && depth == 0 && i > 0) return name.substr(0, i);
  }
  return name;
}

}  // namespace

void install_stack_dump_handler() {
  main_thread = static_cast<pid_t>(syscall(SYS_gettid));
  void* warm[1];
  backtrace(warm, 1);  // loads libgcc's unwinder now, not inside the handler
  struct sigaction action {};
  action.sa_handler = on_stack_request;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  sigaction(kStackDumpSignal, &action, nullptr);
}

std::string compact_stack(std::string_view text, std::size_t max_frames) {
  const auto begin = text.find(kStackBegin);
  if (begin == std::string_view::npos) return "";
  const auto end = text.find(kStackEnd, begin);
  if (end == std::string_view::npos) return "";
  std::string_view body = text.substr(begin + kStackBegin.size(), end - begin - kStackBegin.size());
  std::string out;
  std::size_t frames = 0;
  while (!body.empty() && frames < max_frames) {
    const auto eol = body.find('\n');
    const std::string_view line = body.substr(0, eol);
    body.remove_prefix(eol == std::string_view::npos ? body.size() : eol + 1);
    if (line.empty()) continue;
    out += (out.empty() ? "" : " < ") + frame_name(line);
    ++frames;
  }
  return out;
}

}  // namespace dnnbench
