#pragma once
// A GPU test that hangs on the device machine (which has no gdb) says where: with
// DNNBENCH_TEST_HANG_S=N set, after N seconds the main thread's stack goes to stderr (between
// isolate/stack_dump.hpp's markers) and the test exits 124. Frames of the test binary are
// "binary(+offset)" (it exports no symbols; bench/gpu-check.sh maps them with nm); the shared
// libraries' names say whether the wait is in CUPTI, cuBLASLt or the driver.
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include "isolate/stack_dump.hpp"

namespace dnnbench::testing {

// Arms the dump when DNNBENCH_TEST_HANG_S is set; a no-op otherwise. Call from the main thread.
inline bool arm_hang_stack_dump() {
  const char* text = std::getenv("DNNBENCH_TEST_HANG_S");
  const int seconds = text ? std::atoi(text) : 0;
  if (seconds <= 0) return false;
  install_stack_dump_handler();
  std::thread([seconds] {
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    std::raise(kStackDumpSignal);  // the handler hands it to the main thread
    std::this_thread::sleep_for(std::chrono::seconds(2));
    _exit(124);
  }).detach();
  return true;
}

}  // namespace dnnbench::testing
