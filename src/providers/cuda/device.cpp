#include "providers/cuda/device.hpp"

#include "providers/cuda/delay_kernel.hpp"
#include "providers/cuda/heater.hpp"
#include "providers/cuda/kernel_activity.hpp"

#include <cuda_profiler_api.h>
#include <fmt/format.h>
// NVTX 3 is header-only (it loads the profiler's injection library at run time, if any).
#if __has_include(<nvtx3/nvToolsExt.h>)
#include <nvtx3/nvToolsExt.h>
#define DNNBENCH_HAVE_NVTX 1
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <stdexcept>

#include <unistd.h>

namespace dnnbench::cuda {

namespace {

// The errors after which CUDA keeps the context unusable (the CUDA runtime API's "sticky" errors:
// the process must end for the device to be used again).
bool is_sticky(cudaError_t err) {
  switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorHardwareStackError:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
      return true;
    default:
      return false;
  }
}

std::mutex lost_mutex;
std::optional<std::string> lost;  // the first sticky error, guarded by lost_mutex

void record_lost(const std::string& text) {
  const std::lock_guard<std::mutex> lock(lost_mutex);
  if (!lost) lost = text;
}

}  // namespace

void cuda_check(cudaError_t err, std::string_view what) {
  if (err == cudaSuccess) return;
  const auto text = fmt::format("{}: {} ({})", what, cudaGetErrorString(err), cudaGetErrorName(err));
  if (!is_sticky(err)) throw std::runtime_error(text);
  record_lost(text);
  throw std::runtime_error(text + "; the CUDA context of this process is lost (a sticky error)");
}

std::optional<std::string> context_lost() {
  {
    const std::lock_guard<std::mutex> lock(lost_mutex);
    if (lost) return lost;
  }
  // A library's own call may have met it first (cuDNN returns its own status): CUDA's last error
  // holds a sticky one until the process ends.
  const cudaError_t err = cudaPeekAtLastError();
  if (!is_sticky(err)) return std::nullopt;
  record_lost(fmt::format("{} ({})", cudaGetErrorString(err), cudaGetErrorName(err)));
  const std::lock_guard<std::mutex> lock(lost_mutex);
  return lost;
}

std::optional<std::string> no_device_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear it: the process goes on without the device
    return fmt::format("no CUDA device: {} ({})", cudaGetErrorString(err), cudaGetErrorName(err));
  }
  if (count == 0) return std::string("no CUDA device: the driver reports none");
  return std::nullopt;
}

std::optional<std::int64_t> device_free_bytes() {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
    cudaGetLastError();  // clear it: the run goes on without a device budget
    return std::nullopt;
  }
  return static_cast<std::int64_t>(free_bytes);
}

CudaStream::CudaStream() {
  if (no_device_reason()) return;
  cuda_check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

CudaStream::~CudaStream() {
  if (stream_) cudaStreamDestroy(stream_);
}

void CudaStream::synchronize() {
  if (stream_) cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
}

std::unique_ptr<KernelTimer> CudaStream::make_kernel_timer() {
  if (!stream_) return nullptr;
  return std::make_unique<EventTimer>(stream_);
}

namespace {

// A host function on the stream that spins until released: the stream can go on only when it
// returns. Bounded by kGateTimeout so that a gate nobody releases (or a launch queue that fills
// while the gate holds it) can never deadlock; the measurement then merely includes launch latency.
constexpr auto kGateTimeout = std::chrono::milliseconds(20);

struct GateState {
  std::atomic<bool> released{false};
};

void CUDART_CB wait_for_release(void* user) {
  auto* state = static_cast<std::shared_ptr<GateState>*>(user);
  const auto deadline = std::chrono::steady_clock::now() + kGateTimeout;
  while (!(*state)->released.load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline) {
  }
  delete state;
}

class HostFunctionGate final : public StreamGate {
 public:
  explicit HostFunctionGate(cudaStream_t stream) : state_(std::make_shared<GateState>()) {
    auto* shared = new std::shared_ptr<GateState>(state_);  // owned by the host function from here
    const auto err = cudaLaunchHostFunc(stream, wait_for_release, shared);
    if (err != cudaSuccess) {
      delete shared;
      cuda_check(err, "cudaLaunchHostFunc (stream gate)");
    }
  }
  HostFunctionGate(const HostFunctionGate&) = delete;
  HostFunctionGate& operator=(const HostFunctionGate&) = delete;
  ~HostFunctionGate() override { release(); }
  void release() override { state_->released.store(true, std::memory_order_release); }

 private:
  std::shared_ptr<GateState> state_;
};

}  // namespace

void CudaStream::profiler_start(const std::string& label) {
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");  // earlier work stays outside
#ifdef DNNBENCH_HAVE_NVTX
  nvtxRangePushA(label.c_str());
#else
  (void)label;
#endif
  cuda_check(cudaProfilerStart(), "cudaProfilerStart");
}

void CudaStream::profiler_stop() {
  cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
  cuda_check(cudaProfilerStop(), "cudaProfilerStop");
#ifdef DNNBENCH_HAVE_NVTX
  nvtxRangePop();
#endif
}

bool CudaStream::enqueue_delay(double microseconds) {
#ifdef DNNBENCH_HAVE_DEVICE_KERNELS
  if (!stream_) return false;
  cuda_check(launch_delay(stream_, static_cast<long long>(microseconds * 1e3)), "the planted delay kernel");
  return true;
#else
  (void)microseconds;
  return false;
#endif
}

std::unique_ptr<DeviceHeater> CudaStream::make_heater() {
  if (!stream_) return nullptr;
  return make_cuda_heater();
}

std::unique_ptr<StreamGate> CudaStream::make_gate() {
  if (!stream_) return nullptr;
  return std::make_unique<HostFunctionGate>(stream_);
}

namespace {

class GraphReplay final : public BatchReplay {
 public:
  GraphReplay(cudaGraphExec_t exec, cudaStream_t stream) : exec_(exec), stream_(stream) {}
  GraphReplay(const GraphReplay&) = delete;
  GraphReplay& operator=(const GraphReplay&) = delete;
  ~GraphReplay() override { cudaGraphExecDestroy(exec_); }
  void launch() override { cuda_check(cudaGraphLaunch(exec_, stream_), "cudaGraphLaunch"); }

 private:
  cudaGraphExec_t exec_;
  cudaStream_t stream_;
};

std::string cuda_error_text(cudaError_t err) {
  return fmt::format("{} ({})", cudaGetErrorString(err), cudaGetErrorName(err));
}

// DNNBENCH_GRAPH_DOT=DIR: every captured batch's CUDA graph is written there as Graphviz
// (cudaGraphDebugDotPrint, verbose: node types, kernel names and launch attributes, edge types),
// graph-<pid>-<n>.dot, to compare with another harness's graph of the same calls (a diagnostic:
// bench/gpu-check.sh stage splitk). A failure to write says so once on stderr; the run goes on.
void dump_graph_for_debugging(cudaGraph_t graph) {
  static const char* dir = std::getenv("DNNBENCH_GRAPH_DOT");
  if (!dir || !*dir) return;
  static std::atomic<int> count{0};
  static std::atomic<bool> warned{false};
  const auto path = fmt::format("{}/graph-{}-{}.dot", dir, getpid(), count++);
  const cudaError_t err = cudaGraphDebugDotPrint(graph, path.c_str(), cudaGraphDebugDotFlagsVerbose);
  if (err == cudaSuccess) return;
  cudaGetLastError();
  if (!warned.exchange(true))
    fmt::print(stderr, "DNNBENCH_GRAPH_DOT: cannot write {}: {} (is {} a writable folder?)\n", path,
               cuda_error_text(err), dir);
}

}  // namespace

std::unique_ptr<BatchReplay> CudaStream::capture(const std::function<void()>& enqueue,
                                                 std::int64_t executions, std::string& why_not) {
  if (!stream_) return nullptr;
  cudaError_t err = cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal);
  if (err != cudaSuccess) {
    cudaGetLastError();
    why_not = "cudaStreamBeginCapture: " + cuda_error_text(err);
    return nullptr;
  }
  std::string failure;
  try {
    for (std::int64_t i = 0; i < executions; ++i) enqueue();
  } catch (const std::exception& e) {
    failure = std::string("capturing an execution: ") + e.what();
  }
  cudaGraph_t graph = nullptr;
  err = cudaStreamEndCapture(stream_, &graph);
  if (failure.empty() && err != cudaSuccess) failure = "cudaStreamEndCapture: " + cuda_error_text(err);
  if (failure.empty()) dump_graph_for_debugging(graph);
  cudaGraphExec_t exec = nullptr;
  if (failure.empty()) {
    err = cudaGraphInstantiate(&exec, graph, 0);
    if (err != cudaSuccess) failure = "cudaGraphInstantiate: " + cuda_error_text(err);
  }
  if (graph) cudaGraphDestroy(graph);
  if (!failure.empty()) {
    cudaGetLastError();  // capture errors are not sticky: clear it, the stream goes on uncaptured
    why_not = failure;
    return nullptr;
  }
  return std::make_unique<GraphReplay>(exec, stream_);
}

std::unique_ptr<KernelRecorder> CudaStream::make_kernel_recorder() {
  if (!stream_) return nullptr;
  std::string why_not;
  return make_cupti_recorder(why_not);
}

std::unique_ptr<CacheFlusher> CudaStream::make_cache_flusher() {
  if (!stream_) return nullptr;
  return std::make_unique<L2Flusher>(stream_);
}

std::int64_t CudaStream::last_level_cache_bytes() {
  if (!stream_) return 0;
  int device = 0, l2 = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device) != cudaSuccess)
    return 0;
  return l2;
}

cudaStream_t cuda_stream_of(Stream& stream) {
  auto* cuda = dynamic_cast<CudaStream*>(&stream);
  if (!cuda) throw std::invalid_argument("a GPU provider runs only on the CUDA streams GPU providers make");
  if (!cuda->get()) throw std::runtime_error("the stream has no CUDA device");
  return cuda->get();
}

EventTimer::EventTimer(cudaStream_t stream) : stream_(stream) {
  cuda_check(cudaEventCreate(&start_), "cudaEventCreate");
  cuda_check(cudaEventCreate(&stop_), "cudaEventCreate");
}

EventTimer::~EventTimer() {
  if (start_) cudaEventDestroy(start_);
  if (stop_) cudaEventDestroy(stop_);
}

void EventTimer::start() {
  cuda_check(cudaEventRecord(start_, stream_), "cudaEventRecord");
}
void EventTimer::stop() {
  cuda_check(cudaEventRecord(stop_, stream_), "cudaEventRecord");
}

double EventTimer::elapsed_ms() {
  cuda_check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
  float ms = 0;
  cuda_check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  return ms;
}

L2Flusher::L2Flusher(cudaStream_t stream) : stream_(stream) {
  int device = 0, l2 = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cuda_check(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device), "cudaDeviceGetAttribute(L2 size)");
  l2_bytes_ = static_cast<std::size_t>(l2);
  // Twice the L2: its replacement policy is not LRU, so one pass of exactly its size can leave
  // some of the plan's lines resident (nvbench's l2flush writes the L2's size; we pay 2x for margin).
  bytes_ = 2 * std::max<std::size_t>(l2_bytes_, 1u << 20);
  cuda_check(cudaMalloc(&buffer_, bytes_), fmt::format("cudaMalloc of {} bytes for the L2 flush", bytes_));
}

L2Flusher::~L2Flusher() {
  if (buffer_) cudaFree(buffer_);
}

void L2Flusher::flush() {
  // A different byte each pass, so no layer can skip a write of unchanged data.
  cuda_check(cudaMemsetAsync(buffer_, static_cast<int>(++pass_ & 0xff), bytes_, stream_),
             "cudaMemsetAsync (L2 flush)");
}

std::string L2Flusher::description() const {
  return fmt::format("cudaMemsetAsync of {} MiB (2x the {} MiB L2) on the stream", bytes_ >> 20,
                     l2_bytes_ >> 20);
}

DeviceMemory::DeviceMemory(std::size_t bytes) : bytes_(bytes) {
  // cudaMalloc(0) returns no pointer; one byte keeps data() non-null for empty tensors.
  cuda_check(cudaMalloc(&ptr_, bytes == 0 ? 1 : bytes), fmt::format("cudaMalloc of {} bytes", bytes));
}

DeviceMemory::~DeviceMemory() {
  if (ptr_) cudaFree(ptr_);
}

std::string cuda_runtime_version_string() {
  int v = 0;
  cudaRuntimeGetVersion(&v);
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

std::vector<std::pair<std::string, std::string>> device_description() {
  std::vector<std::pair<std::string, std::string>> props;
  if (auto reason = no_device_reason()) {
    props.emplace_back("device", *reason);
    return props;
  }
  int device = 0;
  cuda_check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp p{};
  cuda_check(cudaGetDeviceProperties(&p, device), "cudaGetDeviceProperties");
  int driver = 0, sm_clock_khz = 0, mem_clock_khz = 0;
  cudaDriverGetVersion(&driver);
  cudaDeviceGetAttribute(&sm_clock_khz, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, device);
  props.emplace_back("device", p.name);
  props.emplace_back("device_index", std::to_string(device));
  char pci_bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(pci_bus_id, sizeof pci_bus_id, device) == cudaSuccess)
    props.emplace_back("pci_bus_id", pci_bus_id);
  props.emplace_back("compute_capability", fmt::format("{}.{}", p.major, p.minor));
  props.emplace_back("sm_count", std::to_string(p.multiProcessorCount));
  props.emplace_back("memory_bytes", std::to_string(p.totalGlobalMem));
  props.emplace_back("l2_cache_bytes", std::to_string(p.l2CacheSize));
  props.emplace_back("max_sm_clock_mhz", std::to_string(sm_clock_khz / 1000));
  props.emplace_back("memory_clock_mhz", std::to_string(mem_clock_khz / 1000));
  props.emplace_back("cuda_driver_version", fmt::format("{}.{}", driver / 1000, (driver % 1000) / 10));
  props.emplace_back("cuda_runtime_version", cuda_runtime_version_string());
  return props;
}

std::unique_ptr<Stream> CudaProvider::make_stream() {
  return std::make_unique<CudaStream>();
}

std::unique_ptr<DeviceBuffer> CudaProvider::allocate(std::size_t bytes) {
  return std::make_unique<DeviceMemory>(bytes);
}

void CudaProvider::copy_to_device(void* dst, const void* src, std::size_t bytes, Stream& stream) {
  cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cuda_stream_of(stream)),
             "copy to device");
}

void CudaProvider::copy_to_host(void* dst, const void* src, std::size_t bytes, Stream& stream) {
  cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cuda_stream_of(stream)),
             "copy to host");
}

bool CudaProvider::set_device_bytes(void* dst, unsigned char value, std::size_t bytes, Stream& stream) {
  cuda_check(cudaMemsetAsync(dst, value, bytes, cuda_stream_of(stream)), "cudaMemsetAsync");
  return true;
}

std::optional<std::int64_t> CudaProvider::device_memory_free() {
  if (no_device_) return std::nullopt;
  return device_free_bytes();
}

}  // namespace dnnbench::cuda
