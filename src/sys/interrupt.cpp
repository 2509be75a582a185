#include "sys/interrupt.hpp"

#include <csignal>

namespace dnnbench {
namespace {

// Written only by the handler or request_stop(); sig_atomic_t is what a handler may write.
volatile std::sig_atomic_t g_stop_signal = 0;

extern "C" void on_stop_signal(int signal) {
  g_stop_signal = signal;
}

}  // namespace

void install_stop_signal_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  // SA_RESETHAND: the second signal takes the default action (ends the process).
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool stop_requested() {
  return g_stop_signal != 0;
}

int stop_signal() {
  return g_stop_signal;
}

void request_stop(int signal) {
  g_stop_signal = signal;
}

}  // namespace dnnbench
