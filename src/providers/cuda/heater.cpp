#include "providers/cuda/heater.hpp"

#include <chrono>
#include <stdexcept>

#include "providers/cuda/device.hpp"
#ifdef DNNBENCH_HAVE_DEVICE_KERNELS
#include "providers/cuda/heater_kernel.hpp"
#endif

namespace dnnbench::cuda {
namespace {

// A heater block's wall time: another stream's kernel waits at most about this long for an SM
// (the heater's stream and the rows' share a priority), and a block long enough that its launch
// and its timer reads cost nothing beside it.
constexpr long long kBlockNs = 25'000;
// Waves of blocks a kernel holds: 4 x 25 us, so that two kernels in flight keep the device busy
// while the heater's thread sleeps between them (~10,000 wake-ups a second).
constexpr int kWaves = 4;

}  // namespace

std::unique_ptr<DeviceHeater> make_cuda_heater() {
#ifdef DNNBENCH_HAVE_DEVICE_KERNELS
  if (no_device_reason()) return nullptr;
  try {
    return std::make_unique<CudaHeater>();
  } catch (const std::runtime_error&) {
    cudaGetLastError();  // a failed allocation is not sticky; leave no error for the next call
    return nullptr;
  }
#else
  return nullptr;
#endif
}

#ifdef DNNBENCH_HAVE_DEVICE_KERNELS

CudaHeater::CudaHeater() {
  int device = 0, sms = 0, l2 = 0, least = 0, greatest = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute");
  cuda_check(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  cuda_check(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, least),
             "cudaStreamCreate (heater)");
  // A buffer of at least twice the L2, so the loads reach memory (the largest power of two under
  // 4x: 128 MiB for the H100's and H200's 50 MiB).
  std::size_t bytes = 16 << 20;
  while (bytes < 2 * static_cast<std::size_t>(l2)) bytes *= 2;
  try {
    cuda_check(cudaMalloc(&buffer_, bytes), "cudaMalloc (heater)");
    cuda_check(cudaMemsetAsync(buffer_, 0x5a, bytes, stream_), "cudaMemset (heater)");
    for (auto& e : done_)
      cuda_check(cudaEventCreateWithFlags(&e, cudaEventBlockingSync | cudaEventDisableTiming),
                 "cudaEventCreate (heater)");
    cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (heater)");
  } catch (...) {
    for (auto& e : done_)
      if (e) cudaEventDestroy(e);
    if (buffer_) cudaFree(buffer_);
    cudaStreamDestroy(stream_);
    throw;
  }
  vectors_ = bytes / 16;
  blocks_ = sms * heater_blocks_per_sm() * kWaves;
}

CudaHeater::~CudaHeater() {
  stop();
  for (auto& e : done_) cudaEventDestroy(e);
  cudaFree(buffer_);
  cudaStreamDestroy(stream_);
}

void CudaHeater::start(double max_ms) {
  if (thread_.joinable()) {
    if (running_.load()) return;
    stop();  // it stopped by itself at its limit: joined before a fresh start
  }
  stop_.store(false);
  running_.store(true);
  thread_ = std::thread([this, max_ms] { run(max_ms); });
}

void CudaHeater::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  thread_.join();
  // The queued kernels finish (at most kInFlight of ~0.1 ms); an error here is another stream's
  // sticky one, which that stream's own next call reports.
  cudaStreamSynchronize(stream_);
}

void CudaHeater::run(double max_ms) {
  // No exception may leave the thread: a failed call (another stream's sticky error, which every
  // call then returns) ends the heating, and the rows' own calls report it.
  struct Ended {
    std::atomic<bool>& running;
    ~Ended() { running.store(false); }
  } ended{running_};
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double, std::milli>(max_ms);
  for (long long i = 0; !stop_.load(std::memory_order_relaxed) && std::chrono::steady_clock::now() < until;
       ++i) {
    auto& done = done_[i % kInFlight];
    // The kernel launched kInFlight ago must be done before its event is reused: at most
    // kInFlight kernels queued, and the thread sleeps (blocking sync) while they run.
    if (i >= kInFlight && cudaEventSynchronize(done) != cudaSuccess) return;
    if (launch_heater(stream_, blocks_, buffer_, vectors_, kBlockNs) != cudaSuccess) return;
    if (cudaEventRecord(done, stream_) != cudaSuccess) return;
  }
}

#else

CudaHeater::CudaHeater() {
  throw std::runtime_error("the heater kernel was not built");
}
CudaHeater::~CudaHeater() = default;
void CudaHeater::start(double) {}
void CudaHeater::stop() {}
void CudaHeater::run(double) {}

#endif

}  // namespace dnnbench::cuda
