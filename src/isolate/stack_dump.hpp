#pragma once
// Where a hung child was waiting. An isolated child (isolate/isolation.hpp) installs a handler for
// kStackDumpSignal that writes its main thread's stack to stderr between two marker lines; a
// parent whose child runs past --timeout-s sends the signal before the kill, and the timeout row
// then says where the child was: "it was waiting in: nanosleep < ... < PlanSession::measure".
// The GPU machine has no gdb; this is how a hung cuDNN or cuBLASLt call is located there.
#include <csignal>
#include <string>
#include <string_view>

namespace dnnbench {

inline constexpr int kStackDumpSignal = SIGUSR2;
inline constexpr std::string_view kStackBegin = "== dnnbench: main thread stack\n";
inline constexpr std::string_view kStackEnd = "== dnnbench: end of stack\n";

// Installs the handler (call in the main thread: its stack is the one written, whichever thread
// the signal lands on).
void install_stack_dump_handler();

// The frames between the markers in `text` (backtrace_symbols_fd lines), innermost first, as
// "name < name < ...": demangled, arguments dropped, at most `max_frames`; a frame without a
// symbol shows its object's file name. "" when `text` holds no complete stack.
std::string compact_stack(std::string_view text, std::size_t max_frames = 12);

}  // namespace dnnbench
