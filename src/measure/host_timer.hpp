#pragma once
// Host wall-clock timing on a monotonic clock.
#include <chrono>

namespace dnnbench {

class HostTimer {
 public:
  HostTimer() : start_(std::chrono::steady_clock::now()) {}
  void restart() { start_ = std::chrono::steady_clock::now(); }
  double elapsed_ms() const {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_;
};

}  // namespace dnnbench
