#pragma once
// The GPU's heater (DeviceHeater, providers/provider.hpp): a thread that keeps a few short heater
// kernels (providers/cuda/heater_kernel.hpp) queued on a stream of its own until stopped.
#include <cuda_runtime.h>

#include <atomic>
#include <memory>
#include <thread>

#include "providers/provider.hpp"

namespace dnnbench::cuda {

// nullptr where the heater kernel was not built, there is no device, or its buffer did not fit.
std::unique_ptr<DeviceHeater> make_cuda_heater();

class CudaHeater final : public DeviceHeater {
 public:
  // Throws std::runtime_error when a CUDA call fails.
  CudaHeater();
  CudaHeater(const CudaHeater&) = delete;
  CudaHeater& operator=(const CudaHeater&) = delete;
  ~CudaHeater() override;
  void start(double max_ms) override;
  void stop() override;

 private:
  void run(double max_ms);  // the thread's loop

  cudaStream_t stream_ = nullptr;
  void* buffer_ = nullptr;
  unsigned long long vectors_ = 0;  // 16-byte vectors in buffer_, a power of two
  int blocks_ = 0;                  // one kernel's blocks
  static constexpr int kInFlight = 2;
  cudaEvent_t done_[kInFlight] = {};
  std::atomic<bool> stop_{false};
  std::atomic<bool> running_{false};  // the thread's loop has not ended
  std::thread thread_;
};

}  // namespace dnnbench::cuda
