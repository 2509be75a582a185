#pragma once
// The CUDA runtime side shared by every GPU provider (cudnn, cublaslt, ...): device presence,
// streams (timers, gates, CUDA-graph capture, CUPTI kernel activity), device memory, and a
// Provider base that does a GPU provider's device work, so each library adds only its own calls.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "providers/provider.hpp"

namespace dnnbench::cuda {

// Throws std::runtime_error with `what` and CUDA's error string; a sticky error (the context is
// lost: see context_lost) says so and is recorded.
void cuda_check(cudaError_t err, std::string_view what);
// The first sticky error of this process (an illegal address, a kernel fault, a device-side
// assert: CUDA leaves the context unusable, and every later call returns the same error), as
// "what: error string (name)"; nullopt while the context is usable.
std::optional<std::string> context_lost();
// Why no CUDA device can be used ("no CUDA device: ..."), or nullopt when one can.
std::optional<std::string> no_device_reason();

// A CUDA stream of its own (never the legacy default stream, which synchronizes with others).
// Without a device it holds none and every call is a no-op, so a provider can be constructed.
class CudaStream final : public Stream {
 public:
  CudaStream();
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  ~CudaStream() override;
  void synchronize() override;
  std::unique_ptr<KernelTimer> make_kernel_timer() override;
  std::unique_ptr<CacheFlusher> make_cache_flusher() override;
  // cudaDevAttrL2CacheSize of the current device (0 without one).
  std::int64_t last_level_cache_bytes() override;
  std::unique_ptr<StreamGate> make_gate() override;
  // CUPTI kernel activity (providers/cuda/kernel_activity.hpp); nullptr without CUPTI.
  std::unique_ptr<KernelRecorder> make_kernel_recorder() override;
  // Stream capture into a CUDA graph (cudaStreamCaptureModeThreadLocal: the clock sampler's
  // thread is not affected), instantiated once and replayed with cudaGraphLaunch.
  std::unique_ptr<BatchReplay> capture(const std::function<void()>& enqueue, std::int64_t executions,
                                       std::string& why_not) override;
  // The profiled child's capture range (--profile): cudaProfilerStart/Stop inside an NVTX range
  // named graph/provider/engine/plan, after the stream's earlier work has finished.
  void profiler_start(const std::string& label) override;
  void profiler_stop() override;
  // A spin on %globaltimer (providers/cuda/delay_kernel.cu): nanoseconds, whatever the SM clock;
  // false where the kernel was not built (CUDA's compiler comes with the cuDNN provider).
  bool enqueue_delay(double microseconds) override;
  // The heater (providers/cuda/heater.hpp): its own lowest-priority stream on this device.
  std::unique_ptr<DeviceHeater> make_heater() override;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// The CUDA stream behind a Stream a GPU provider made; throws for any other kind.
cudaStream_t cuda_stream_of(Stream& stream);

// Device time between two events recorded on the stream.
class EventTimer final : public KernelTimer {
 public:
  explicit EventTimer(cudaStream_t stream);
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;
  ~EventTimer() override;
  void start() override;
  void stop() override;
  double elapsed_ms() override;

 private:
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

// Flushes the GPU's L2 by a cudaMemsetAsync over a buffer twice the L2's size on the stream
// (cudaDevAttrL2CacheSize), so a cold sample finds none of the plan's data in L2. Enqueued before
// the start event, so it never counts in the kernel time.
class L2Flusher final : public CacheFlusher {
 public:
  explicit L2Flusher(cudaStream_t stream);
  L2Flusher(const L2Flusher&) = delete;
  L2Flusher& operator=(const L2Flusher&) = delete;
  ~L2Flusher() override;
  void flush() override;
  std::string description() const override;

 private:
  cudaStream_t stream_;
  void* buffer_ = nullptr;
  std::size_t bytes_ = 0, l2_bytes_ = 0;
  unsigned pass_ = 0;
};

class DeviceMemory final : public DeviceBuffer {
 public:
  explicit DeviceMemory(std::size_t bytes);
  DeviceMemory(const DeviceMemory&) = delete;
  DeviceMemory& operator=(const DeviceMemory&) = delete;
  ~DeviceMemory() override;
  void* data() override { return ptr_; }
  std::size_t size() const override { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Bytes free on the current device now (cudaMemGetInfo), for the memory budget; nullopt when
// CUDA cannot say (no device, or the call failed; the error is cleared).
std::optional<std::int64_t> device_free_bytes();

// Name, compute capability, SMs, memory, clocks, driver and runtime versions (a provider adds
// its library's).
std::vector<std::pair<std::string, std::string>> device_description();
std::string cuda_runtime_version_string();

// The device half of a GPU provider: streams, memory, copies, free memory, the device's
// description, and the no-device reason read once at construction (the provider then still
// constructs, is left out of default runs, and its engines() throws Unsupported with it).
class CudaProvider : public Provider {
 public:
  CudaProvider() : no_device_(no_device_reason()) {}
  DeviceKind device() const override { return DeviceKind::cuda; }
  std::string unusable_reason() override { return no_device_.value_or(""); }
  std::unique_ptr<Stream> make_stream() override;
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override;
  void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream& stream) override;
  void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream& stream) override;
  bool set_device_bytes(void* dst, unsigned char value, std::size_t bytes, Stream& stream) override;
  std::optional<std::int64_t> device_memory_free() override;
  std::optional<std::string> device_lost() override { return context_lost(); }
  std::vector<std::pair<std::string, std::string>> device_properties() override {
    return device_description();
  }

 protected:
  const std::optional<std::string>& no_device() const { return no_device_; }

 private:
  std::optional<std::string> no_device_;
};

}  // namespace dnnbench::cuda
