#pragma once
// The provider interface: one DNN library behind one adapter. run/ talks to libraries only
// through this. "Supported" is proven only by a successful build().
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graph/graph.hpp"

namespace dnnbench {

enum class DeviceKind { host, cuda };

// An engine note saying the engine computes fp32 data with TF32 (10-bit mantissa) tensor-core
// math: its fp32 outputs are judged with the reduced-precision tolerance, said in the row.
inline constexpr std::string_view kTf32MathNote = "TF32 math on fp32 data";
// An engine note saying the engine convolves through Winograd transforms, whose rounding error
// is legitimately larger than a direct convolution's: its outputs are judged with the Winograd
// tolerance (tensor/compare.hpp), said in the row.
inline constexpr std::string_view kWinogradNote = "Winograd transforms: larger rounding error than direct";
// An engine note saying the engine accumulates in a reduced precision (cuDNN's numerical note of
// that name): its outputs follow --reduced-precision and are judged with the reduced-precision
// tolerance (tensor/compare.hpp), said in the row.
inline constexpr std::string_view kReducedPrecisionNote = "REDUCED_PRECISION_REDUCTION";

struct EngineInfo {
  std::string id;                  // stable within provider + library version (e.g. oneDNN impl name)
  std::string name;                // human-readable
  std::vector<std::string> notes;  // numerical / behaviour notes
};

struct Knob {
  std::string name;
  std::string value;
};

struct PlanSpec {
  std::string engine_id;
  std::vector<Knob> knobs;
  // Stable printable name: engine id then `_<knob>=<value>` per knob.
  std::string name() const;
};

struct SweepLimits {
  int max_plans = 64;
};

// Device pointers (or host pointers for host providers) by tensor uid, each buffer in the
// tensor's own data type and strides. By-value scalars are bound by a host pointer to a double.
struct Bindings {
  std::unordered_map<std::int64_t, void*> buffers;
  // Device memory of at least the plan's workspace_bytes() that the plan uses instead of its own
  // workspace (a placement of the plan's buffers moves its workspace too: split-K GEMMs reduce
  // through it); nullptr: the plan's own.
  void* workspace = nullptr;
  void* at(std::int64_t uid) const;
};

// Times the device work enqueued on a stream between start() and stop() (CUDA events on GPU
// providers). Host providers have none.
class KernelTimer {
 public:
  virtual ~KernelTimer() = default;
  virtual void start() = 0;
  virtual void stop() = 0;
  // Milliseconds between start and stop; waits for stop to complete.
  virtual double elapsed_ms() = 0;
};

// Evicts the data a plan could find in cache (--cache-mode cold). Called outside the timed
// region, before each timed execution; device flushers enqueue on the stream that made them.
class CacheFlusher {
 public:
  virtual ~CacheFlusher() = default;
  virtual void flush() = 0;
  virtual std::string description() const = 0;  // what it does, for the row (e.g. "memset 100 MiB")
};

// Holds a device stream's later work until release() (or a short timeout), so that the start
// event and the launches of a single timed execution are all queued before the device reaches
// them: the event pair then holds the execution, not the host's launch latency (nvbench hides it
// behind a blocking kernel for the same reason). Releases on destruction.
class StreamGate {
 public:
  virtual ~StreamGate() = default;
  virtual void release() = 0;
};

// One kernel the device ran, as its activity records saw it (CUPTI on GPU providers).
struct KernelRecord {
  std::string name;
  std::array<int, 3> grid{}, block{};
  std::uint64_t start_ns = 0, end_ns = 0;  // device timestamps
};

// Records the kernels the device runs between start() and stop().
class KernelRecorder {
 public:
  virtual ~KernelRecorder() = default;
  virtual void start() = 0;
  // The kernels since start(), in start order; the caller has synchronized the stream.
  virtual std::vector<KernelRecord> stop() = 0;
};

// A batch of executions captured once and replayed as one unit (a CUDA graph on GPU providers):
// one launch instead of N, so the host's per-execution launch cost cannot leave the device idle
// between executions of a short kernel.
class BatchReplay {
 public:
  virtual ~BatchReplay() = default;
  // Enqueues one replay (every captured execution, in order) on the stream that captured it.
  virtual void launch() = 0;
};

// Keeps a device under sustained load while the host works between two rows' samples (plans,
// references, checks, writing results), so that a row at the power cap finds the device where the
// last one left it instead of climbing back from idle (run/keep_warm.hpp). Its work runs on a
// stream of its own at the lowest priority, in short blocks, so the host's device work between
// rows (checked runs, GPU references) still gets the device within tens of microseconds.
class DeviceHeater {
 public:
  virtual ~DeviceHeater() = default;
  // Starts loading the device (a no-op while it does); it stops by itself after `max_ms`, so a
  // process that stops asking for the device lets it cool.
  virtual void start(double max_ms) = 0;
  // Stops, and returns once the device has finished the heater's work: the next work enqueued
  // anywhere runs alone.
  virtual void stop() = 0;
};

class Stream {
 public:
  virtual ~Stream() = default;
  virtual void synchronize() = 0;
  // nullptr when the provider runs on the host (then only host time is measured).
  virtual std::unique_ptr<KernelTimer> make_kernel_timer() { return nullptr; }
  // The device cache flush of this stream; nullptr for host providers (the runner flushes the
  // CPU's caches itself).
  virtual std::unique_ptr<CacheFlusher> make_cache_flusher() { return nullptr; }
  // Bytes of the device's last-level cache (a GPU's L2); 0 for host providers (the runner reads
  // the CPU's LLC itself) or when unknown.
  virtual std::int64_t last_level_cache_bytes() { return 0; }
  // A gate on this stream (nullptr: the provider has none; host providers need none).
  virtual std::unique_ptr<StreamGate> make_gate() { return nullptr; }
  // The device's kernel activity recorder; nullptr when the provider has none (host providers, or
  // CUPTI not loadable).
  virtual std::unique_ptr<KernelRecorder> make_kernel_recorder() { return nullptr; }
  // Captures `executions` calls of `enqueue` (each enqueues one execution on this stream) into a
  // replayable batch. nullptr when the stream cannot: host providers (why_not stays empty), or a
  // capture the library refused (why_not says why; the stream is usable as before).
  virtual std::unique_ptr<BatchReplay> capture(const std::function<void()>& /*enqueue*/,
                                               std::int64_t /*executions*/, std::string& /*why_not*/) {
    return nullptr;
  }
  // Enqueues a device-side wait of `microseconds` (a kernel that spins on the device's timer) after
  // the work already queued, captured into replays like any launch: a planted slowdown of known
  // length for `compare`'s tests (session/planted_slowdown.hpp). False where the stream has none.
  virtual bool enqueue_delay(double /*microseconds*/) { return false; }
  // The device's heater (DeviceHeater); nullptr where the stream has none (host providers, or
  // the kernel was not built).
  virtual std::unique_ptr<DeviceHeater> make_heater() { return nullptr; }
  // Brackets the executions an external profiler should capture (--profile: a profiled child
  // calls them around its timed executions only): on CUDA, cudaProfilerStart/Stop and an NVTX
  // range named `label`. No-ops for host providers.
  virtual void profiler_start(const std::string& /*label*/) {}
  virtual void profiler_stop() {}
};

// Memory a device provider's plans read and write. Owned by the row runner for one row.
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual void* data() = 0;
  virtual std::size_t size() const = 0;
};

// The provider cannot run this graph / plan; the message is the library's own reason.
class Unsupported : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A plan kept between runs (providers/compiled_plan_cache.hpp): what this build did with the
// cache, and what compiling the plan cost when it was compiled.
struct PlanCacheUse {
  std::string use;        // "stored", "loaded" or "not stored"
  double compile_ms = 0;  // measured when compiled: by this build unless "loaded"
};

class Plan {
 public:
  virtual ~Plan() = default;
  virtual std::string name() const = 0;
  virtual std::size_t workspace_bytes() const = 0;
  // Prepares for execution on these buffers: conversions into the plan's own layouts
  // (reorders), variant packs. Never timed as kernel time.
  virtual void bind(const Bindings& bindings, Stream& stream) = 0;
  // The timed region: runs the plan on the bound buffers (asynchronous on GPU providers).
  virtual void execute(Stream& stream) = 0;
  // Makes the outputs visible in the bound buffers in their own layouts (reorders back).
  virtual void publish_outputs(Stream& stream) = 0;
  // What bind/publish do beyond the kernel (e.g. "reorder src abcd->aBcd8b"), for the report.
  virtual std::vector<std::string> notes() const { return {}; }
  // Whether the plan came from, or went into, a cache of compiled plans; nullopt when the
  // provider keeps no such plan (every build is a creation).
  virtual std::optional<PlanCacheUse> cache_use() const { return std::nullopt; }
};

class Provider {
 public:
  virtual ~Provider() = default;
  virtual std::string_view name() const = 0;
  virtual DeviceKind device() const = 0;
  virtual std::string version() const = 0;  // library version actually loaded
  // Empty when the provider can run on this machine; else why not (e.g. "no CUDA device").
  // Unusable providers are left out of the default provider set.
  virtual std::string unusable_reason() { return ""; }
  virtual std::unique_ptr<Stream> make_stream() = 0;
  // Why this process can no longer use the provider's device, naming the first error that lost
  // it (a CUDA kernel's illegal address or fault is sticky: every later CUDA call of the process
  // fails with it); nullopt while it can. The suite then runs no more rows on it in this process.
  virtual std::optional<std::string> device_lost() { return std::nullopt; }
  // Device memory for DeviceKind::cuda providers (host providers never get these calls: the row
  // runner binds host buffers directly). Copies are ordered on `stream`; the runner synchronizes.
  virtual std::unique_ptr<DeviceBuffer> allocate(std::size_t /*bytes*/) { return nullptr; }
  virtual void copy_to_device(void* /*device_dst*/, const void* /*host_src*/, std::size_t /*bytes*/,
                              Stream&) {}
  virtual void copy_to_host(void* /*host_dst*/, const void* /*device_src*/, std::size_t /*bytes*/, Stream&) {}
  // Sets `bytes` of device memory to `value`, ordered on `stream`; false when the provider cannot
  // (the caller then uploads a host copy).
  virtual bool set_device_bytes(void* /*device_dst*/, unsigned char /*value*/, std::size_t /*bytes*/,
                                Stream&) {
    return false;
  }
  // Bytes of device memory free now, for the memory budget (env/memory_budget.hpp); nullopt when
  // the provider cannot say (host providers: the host budget covers them).
  virtual std::optional<std::int64_t> device_memory_free() { return std::nullopt; }
  // Threads a host provider's executions use when it runs its own (the reference: its
  // parallel_for); 0: the OpenMP runtime's (MeasureOptions::host_sync_threads). A row on one
  // thread records no fork-join probe, so compare does not hold it UNDECIDED on the probe's states.
  virtual int host_threads() const { return 0; }
  // Whether a host provider's executions take as long as its cores make them: then the core ruler
  // (sys/core_ruler.hpp) reads the cores beside its samples and `compare` holds rows measured on
  // differently free cores UNDECIDED. False for executions held to a wall-clock deadline (the
  // crashtest provider's DNNBENCH_CRASHTEST_SPIN_MS), whose time the cores do not move.
  virtual bool runs_at_core_speed() const { return true; }
  // Device description for results (name, compute capability, SM count, memory, driver, ...);
  // empty for host providers.
  virtual std::vector<std::pair<std::string, std::string>> device_properties() { return {}; }
  // Engines that can run this graph, in the library's heuristic order. Throws Unsupported
  // (with the reason) when the provider cannot express the graph at all.
  virtual std::vector<EngineInfo> engines(const Graph& graph) = 0;
  // Why `engine_id`, asked for by name (--engine), is not among engines(graph), where the provider
  // knows (cuDNN's legacy batch-norm engine: which part of the graph the legacy call cannot take);
  // empty where it does not.
  virtual std::string not_offered_reason(const Graph& /*graph*/, const std::string& /*engine_id*/) {
    return "";
  }
  virtual PlanSpec heuristic_plan(const Graph& graph, const EngineInfo& engine) = 0;
  virtual std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                           const SweepLimits& limits) = 0;
  // Throws Unsupported when the library refuses the plan, or when the plan it would run is
  // not the one requested.
  virtual std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) = 0;
  // Building ahead (distribute/build_ahead.hpp): plans whose build takes seconds, built by another
  // process of the suite before their row comes, where this provider's build() then finds them.
  // Whether this provider can (cuDNN: on a device, with the compiled-plan cache on).
  virtual bool can_build_ahead() { return false; }
  // Builds the heuristic plan of `engine` for `graph` ahead when its build is slow (cuDNN: a
  // runtime-compiled engine whose plan the cache holds not yet, and no other process is
  // compiling); true when it built one. Throws what build() throws.
  virtual bool build_ahead(const Graph& /*graph*/, const EngineInfo& /*engine*/) { return false; }
  // The same for one plan of the engine's plan space (the oracle's candidates, --oracle): true
  // when it built one; false for a plan whose build is fast, stored or being compiled elsewhere.
  virtual bool build_plan_ahead(const Graph& /*graph*/, const PlanSpec& /*spec*/) { return false; }
};

}  // namespace dnnbench
