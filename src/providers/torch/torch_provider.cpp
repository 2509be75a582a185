// The torch provider. Engines are the eager modes a PyTorch user picks between:
//   eager                    ATen eager ops; on CUDA cudnn.benchmark off, TF32 off (cuDNN and cuBLAS)
//   eager+cudnn.benchmark    CUDA, graphs with a convolution: cuDNN's algorithms timed on first use
//                            (during build here, never in the timed region)
//   <either>+tf32            CUDA, graphs with an fp32 convolution or matmul: allow_tf32 on for
//                            cuDNN and cuBLAS (noted, so --fp32-math strict lists and skips them)
//   eager+sdpa=<backend>     CUDA, graphs with attention: only that SDPA backend enabled (cudnn,
//                            flash, efficient, math); `eager` there is ATen's own pick
// Each engine has one plan (no knobs). build() runs the graph once on scratch tensors: "supported"
// is ATen accepting the ops, dtypes and layouts on this device, and its refusal is the reason.
#include "providers/torch/torch_provider.hpp"
#include "providers/host_stream.hpp"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>
#include <dlfcn.h>
#include <fmt/format.h>
#include <torch/version.h>

#include <algorithm>
#include <optional>

#include "providers/torch/aten_graph.hpp"

#ifdef DNNBENCH_TORCH_CUDA
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_runtime.h>

#include "providers/cuda/device.hpp"
#endif

namespace dnnbench {

namespace torch_provider {
namespace {

constexpr std::string_view kEager = "eager";
constexpr std::string_view kBenchmarkSuffix = "+cudnn.benchmark";
constexpr std::string_view kTf32Suffix = "+tf32";

// The attention backend a graph's SDPA runs on: `any` is ATen's own pick among the enabled ones
// (every one enabled, PyTorch's default); the others are what torch.nn.attention.sdpa_kernel(...)
// forces (only that backend enabled).
enum class SdpaBackend { any, cudnn, flash, efficient, math };
constexpr SdpaBackend kSdpaBackends[] = {SdpaBackend::any, SdpaBackend::cudnn, SdpaBackend::flash,
                                         SdpaBackend::efficient, SdpaBackend::math};
std::string_view sdpa_backend_name(SdpaBackend b) {
  switch (b) {
    case SdpaBackend::cudnn:
      return "cudnn";
    case SdpaBackend::flash:
      return "flash";
    case SdpaBackend::efficient:
      return "efficient";
    case SdpaBackend::math:
      return "math";
    case SdpaBackend::any:
      break;
  }
  return "any";
}

struct Flags {
  bool benchmark = false;  // torch.backends.cudnn.benchmark
  bool tf32 = false;       // torch.backends.cudnn.allow_tf32 and torch.backends.cuda.matmul.allow_tf32
  SdpaBackend sdpa = SdpaBackend::any;
};

std::string engine_id(Flags f) {
  return std::string(kEager) + (f.benchmark ? std::string(kBenchmarkSuffix) : "") +
         (f.tf32 ? std::string(kTf32Suffix) : "") +
         (f.sdpa != SdpaBackend::any ? "+sdpa=" + std::string(sdpa_backend_name(f.sdpa)) : "");
}

std::optional<Flags> parse_engine(const std::string& id) {
  for (bool benchmark : {false, true})
    for (bool tf32 : {false, true})
      for (SdpaBackend sdpa : kSdpaBackends)
        if (engine_id({benchmark, tf32, sdpa}) == id) return Flags{benchmark, tf32, sdpa};
  return std::nullopt;
}

bool has_sdpa(const Graph& g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(),
                     [](const Node& n) { return n.kind == OpKind::sdpa_fwd; });
}

std::string torch_reason(const c10::Error& e) {
  std::string text = e.what_without_backtrace();
  if (const auto nl = text.find('\n'); nl != std::string::npos) text.resize(nl);
  return "ATen: " + text;
}

bool has_conv(const Graph& g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) {
    return n.kind == OpKind::conv_fwd || n.kind == OpKind::conv_bwd_data ||
           n.kind == OpKind::conv_bwd_weights;
  });
}

// A convolution or matmul reading fp32 data: the ops TF32 changes.
bool fp32_contraction(const Graph& g) {
  for (const auto& node : g.nodes) {
    if (node.kind != OpKind::matmul && node.kind != OpKind::conv_fwd && node.kind != OpKind::conv_bwd_data &&
        node.kind != OpKind::conv_bwd_weights)
      continue;
    for (const auto& port : node.inputs)
      if (g.tensor(port.uid).dtype == DataType::f32) return true;
  }
  return false;
}

void apply_flags(Flags f, bool cuda) {
  if (!cuda) return;  // the flags change only CUDA backends
  auto& ctx = at::globalContext();
  ctx.setBenchmarkCuDNN(f.benchmark);
  // Newer PyTorch steers TF32 through fp32_precision too and may mark these setters deprecated;
  // they still set what torch.backends.*.allow_tf32 set.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  ctx.setAllowTF32CuDNN(f.tf32);
  ctx.setAllowTF32CuBLAS(f.tf32);
#pragma GCC diagnostic pop
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 5)
  const auto on = [&](SdpaBackend b) { return f.sdpa == SdpaBackend::any || f.sdpa == b; };
  ctx.setSDPUseCuDNN(on(SdpaBackend::cudnn));
  ctx.setSDPUseFlash(on(SdpaBackend::flash));
  ctx.setSDPUseMemEfficient(on(SdpaBackend::efficient));
  ctx.setSDPUseMath(on(SdpaBackend::math));
#endif
}

std::vector<std::string> flag_notes(Flags f, bool cuda) {
  std::vector<std::string> notes{
      fmt::format("torch {} (LibTorch), ATen eager ops on dnnbench's buffers", TORCH_VERSION)};
  if (cuda) {
    notes.push_back(fmt::format("cudnn.benchmark={}, allow_tf32 cudnn={} cublas={}",
                                f.benchmark ? "on" : "off", f.tf32 ? "on" : "off", f.tf32 ? "on" : "off"));
    if (f.sdpa != SdpaBackend::any)
      notes.push_back(fmt::format("attention: only the {} SDPA backend enabled (sdpa_kernel(SDPBackend.{}))",
                                  sdpa_backend_name(f.sdpa),
                                  f.sdpa == SdpaBackend::cudnn       ? "CUDNN_ATTENTION"
                                  : f.sdpa == SdpaBackend::flash     ? "FLASH_ATTENTION"
                                  : f.sdpa == SdpaBackend::efficient ? "EFFICIENT_ATTENTION"
                                                                     : "MATH"));
    notes.push_back("on dnnbench's stream (c10::cuda::getStreamFromExternal + CUDAStreamGuard)");
  } else {
    notes.push_back(fmt::format("CPU, intra-op threads: {}", at::get_num_threads()));
  }
  return notes;
}

// The cuDNN the process loaded (not the one torch was built with): with another cuDNN provider
// in the same binary both share the first libcudnn.so.9 the loader found.
std::string loaded_cudnn() {
  using GetVersion = std::size_t (*)();
  void* sym = dlsym(RTLD_DEFAULT, "cudnnGetVersion");
  if (!sym) return "not loaded";
  const std::size_t v = reinterpret_cast<GetVersion>(sym)();
  Dl_info info{};
  const char* where = dladdr(sym, &info) && info.dli_fname ? info.dli_fname : "?";
  return fmt::format("{}.{}.{} ({})", v / 10000, (v % 10000) / 100, v % 100, where);
}

#ifdef DNNBENCH_TORCH_CUDA
using cuda::cuda_check;
using cuda::DeviceMemory;

// A batch captured with PyTorch's own graph capture (at::cuda::CUDAGraph: its caching allocator
// serves the ops' result tensors from a private pool, as torch.cuda.graph does), replayed on
// dnnbench's stream.
class TorchGraphReplay final : public BatchReplay {
 public:
  TorchGraphReplay(std::unique_ptr<at::cuda::CUDAGraph> graph, c10::cuda::CUDAStream stream)
      : graph_(std::move(graph)), stream_(stream) {}
  void launch() override {
    c10::cuda::CUDAStreamGuard guard(stream_);
    graph_->replay();
  }

 private:
  std::unique_ptr<at::cuda::CUDAGraph> graph_;
  c10::cuda::CUDAStream stream_;
};

// dnnbench's CUDA stream (providers/cuda/: event timer, L2 flush, gate, CUPTI kernel records,
// profiler range), the same one cuDNN's and cuBLASLt's rows run on, so torch's rows are timed by
// the same method; ATen sees it as an external stream. Only capture is torch's own: ops that
// allocate need at::cuda::CUDAGraph's private memory pool.
class TorchCudaStream final : public Stream {
 public:
  explicit TorchCudaStream(int device) {
    cuda_check(cudaSetDevice(device), "cudaSetDevice");
    base_.emplace();
    torch_.emplace(c10::cuda::getStreamFromExternal(base_->get(), static_cast<c10::DeviceIndex>(device)));
  }
  void synchronize() override { base_->synchronize(); }
  std::unique_ptr<KernelTimer> make_kernel_timer() override { return base_->make_kernel_timer(); }
  std::unique_ptr<CacheFlusher> make_cache_flusher() override { return base_->make_cache_flusher(); }
  std::int64_t last_level_cache_bytes() override { return base_->last_level_cache_bytes(); }
  std::unique_ptr<StreamGate> make_gate() override { return base_->make_gate(); }
  std::unique_ptr<KernelRecorder> make_kernel_recorder() override { return base_->make_kernel_recorder(); }
  void profiler_start(const std::string& label) override { base_->profiler_start(label); }
  void profiler_stop() override { base_->profiler_stop(); }
  std::unique_ptr<BatchReplay> capture(const std::function<void()>& enqueue, std::int64_t executions,
                                       std::string& why_not) override {
    auto graph = std::make_unique<at::cuda::CUDAGraph>();
    try {
      c10::cuda::CUDAStreamGuard guard(*torch_);
#if TORCH_VERSION_MAJOR >= 2
      // Thread-local capture: the clock sampler's thread may call CUDA meanwhile.
      graph->capture_begin({0, 0}, cudaStreamCaptureModeThreadLocal);
#else
      graph->capture_begin();
#endif
      try {
        for (std::int64_t i = 0; i < executions; ++i) enqueue();
      } catch (...) {
        try {
          graph->capture_end();
        } catch (...) {
        }
        throw;
      }
      graph->capture_end();
    } catch (const std::exception& e) {
      cudaGetLastError();  // capture errors are not sticky; the stream goes on uncaptured
      why_not = std::string("at::cuda::CUDAGraph capture: ") + e.what();
      return nullptr;
    }
    return std::make_unique<TorchGraphReplay>(std::move(graph), *torch_);
  }
  c10::cuda::CUDAStream torch() const {
    return *torch_;
  }
  cudaStream_t get() const {
    return base_->get();
  }

 private:
  std::optional<cuda::CudaStream> base_;  // created after cudaSetDevice
  std::optional<c10::cuda::CUDAStream> torch_;
};

TorchCudaStream& cuda_stream_of(Stream& stream) {
  auto* s = dynamic_cast<TorchCudaStream*>(&stream);
  if (!s) throw std::invalid_argument("the torch provider runs only on streams it made");
  return *s;
}

#endif  // DNNBENCH_TORCH_CUDA

bool cuda_usable() {
#ifdef DNNBENCH_TORCH_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return count > 0 && at::hasCUDA();
#else
  return false;
#endif
}

class TorchPlan final : public Plan {
 public:
  TorchPlan(const Graph& graph, const PlanSpec& spec, Flags flags, bool cuda)
      : graph_(graph),
        name_(spec.name()),
        flags_(flags),
        cuda_(cuda),
        aten_(graph_, cuda ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU)) {
    // The trial run: ATen proves it can run the graph here (and cudnn.benchmark does its search).
    try {
      apply_flags(flags_, cuda_);
      aten_.bind_scratch();
      aten_.run();
#ifdef DNNBENCH_TORCH_CUDA
      if (cuda_) cuda_check(cudaDeviceSynchronize(), "trial run");
#endif
    } catch (const c10::Error& e) {
      throw Unsupported(torch_reason(e));
    }
  }
  std::string name() const override {
    return name_;
  }
  std::size_t workspace_bytes() const override {
    return 0;
  }  // ATen allocates its own
  void bind(const Bindings& bindings, Stream&) override {
    aten_.bind(bindings.buffers);
  }
  void execute(Stream& stream) override {
#ifdef DNNBENCH_TORCH_CUDA
    if (cuda_) {
      c10::cuda::CUDAStreamGuard guard(cuda_stream_of(stream).torch());
      apply_flags(flags_, true);
      aten_.run();
      return;
    }
#endif
    (void)stream;
    aten_.run();
  }
  void publish_outputs(Stream&) override {}  // run() writes the bound outputs
  std::vector<std::string> notes() const override {
    return aten_.notes();
  }

 private:
  Graph graph_;
  std::string name_;
  Flags flags_;
  bool cuda_;
  AtenGraph aten_;
};

class TorchProvider final : public Provider {
 public:
  TorchProvider() : cuda_(cuda_usable()) {}

  std::string_view name() const override { return "torch"; }
  DeviceKind device() const override { return cuda_ ? DeviceKind::cuda : DeviceKind::host; }
  std::string version() const override {
    if (!cuda_) return fmt::format("torch {} (LibTorch, CPU)", TORCH_VERSION);
    return fmt::format("torch {} (LibTorch, CUDA; built with cuDNN {}, loaded cuDNN {})", TORCH_VERSION,
                       at::detail::getCUDAHooks().versionCuDNN(), loaded_cudnn());
  }
  std::unique_ptr<Stream> make_stream() override {
#ifdef DNNBENCH_TORCH_CUDA
    if (cuda_) return std::make_unique<TorchCudaStream>(0);
#endif
    return std::make_unique<SynchronousHostStream>();
  }
#ifdef DNNBENCH_TORCH_CUDA
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) override {
    return std::make_unique<DeviceMemory>(bytes);
  }
  void copy_to_device(void* dst, const void* src, std::size_t bytes, Stream& stream) override {
    cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, cuda_stream_of(stream).get()),
               "copy to device");
  }
  void copy_to_host(void* dst, const void* src, std::size_t bytes, Stream& stream) override {
    cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, cuda_stream_of(stream).get()),
               "copy to host");
  }
  std::optional<std::int64_t> device_memory_free() override {
    if (!cuda_) return std::nullopt;
    std::size_t free_bytes = 0, total = 0;
    if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
      cudaGetLastError();
      return std::nullopt;
    }
    return static_cast<std::int64_t>(free_bytes);
  }
  std::optional<std::string> device_lost() override {
    return cuda_ ? cuda::context_lost() : std::nullopt;
  }
#endif
  std::vector<std::pair<std::string, std::string>> device_properties() override {
    if (!cuda_) return {};
    std::vector<std::pair<std::string, std::string>> props{{"torch_version", TORCH_VERSION},
                                                           {"torch_loaded_cudnn", loaded_cudnn()}};
#ifdef DNNBENCH_TORCH_CUDA
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) props.emplace_back("name", prop.name);
#endif
    return props;
  }

  std::vector<EngineInfo> engines(const Graph& graph) override {
    if (const auto types = graph.unsupported_types(); !types.empty())
      throw Unsupported("the torch provider has no ATen lowering of " + types.front());
    AtenGraph check(graph, at::Device(at::kCPU));  // refuses dtypes ATen has no tensors of
    std::vector<Flags> variants{{false, false}};
    if (cuda_ && has_conv(graph)) variants.push_back({true, false});
    if (cuda_ && fp32_contraction(graph)) {
      const std::size_t strict = variants.size();
      for (std::size_t i = 0; i < strict; ++i) variants.push_back({variants[i].benchmark, true});
    }
    // Attention on CUDA: ATen's own pick (`eager`), then each backend forced.
    if (cuda_ && has_sdpa(graph))
      for (SdpaBackend b : kSdpaBackends)
        if (b != SdpaBackend::any) variants.push_back({false, false, b});
    std::vector<EngineInfo> out;
    for (const Flags f : variants) {
      EngineInfo info{engine_id(f), engine_id(f), flag_notes(f, cuda_)};
      if (f.tf32) info.notes.push_back(std::string(kTf32MathNote));
      out.push_back(std::move(info));
    }
    return out;
  }
  PlanSpec heuristic_plan(const Graph&, const EngineInfo& engine) override {
    return {engine.id, {}};
  }
  std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                   const SweepLimits&) override {
    return {heuristic_plan(graph, engine)};
  }
  std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) override {
    const auto flags = parse_engine(spec.engine_id);
    if (!flags || !spec.knobs.empty() ||
        ((flags->benchmark || flags->tf32 || flags->sdpa != SdpaBackend::any) && !cuda_))
      throw Unsupported("the torch provider has no plan " + spec.name() + " here");
    return std::make_unique<TorchPlan>(graph, spec, *flags, cuda_);
  }

 private:
  bool cuda_;
};

}  // namespace
}  // namespace torch_provider

std::unique_ptr<Provider> make_torch_provider() {
  return std::make_unique<torch_provider::TorchProvider>();
}

}  // namespace dnnbench

extern "C" dnnbench::Provider* dnnbench_make_torch_provider() {
  return dnnbench::make_torch_provider().release();
}
