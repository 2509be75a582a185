// engines(): every algo id cuBLASLt lists for the problem's types whose capabilities admit the
// problem (epilogue, strided batch), ranked algos first in heuristic order; for fp32 data, the
// same again under CUBLAS_COMPUTE_32F_FAST_TF32 (noted as TF32 math, so --fp32-math strict leaves
// them out). heuristic_plan(): that algo's first heuristic config, or for an algo the heuristic
// did not rank, the first candidate config cublasLtMatmulAlgoCheck accepts (algos with none are
// not listed; their reason is kept with the refusals).
// plan_space(): configs.hpp's candidates that cublasLtMatmulAlgoCheck accepts, bounded.
#include "providers/cublaslt/cublaslt_provider.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>

#include "providers/cublaslt/configs.hpp"
#include "providers/cublaslt/lt.hpp"
#include "providers/cublaslt/problem.hpp"
#include "providers/cuda/device.hpp"
#include "providers/graph_cache_key.hpp"

namespace dnnbench {

namespace cublaslt {
namespace {

std::string cublaslt_version_string() {
  // cublasLtGetVersion() is major*10000 + minor*100 + patch (the library loaded).
  const auto v = lt().cublasLtGetVersion();
  return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100);
}

// Names of the config attributes cuBLASLt filled in where the plan left them undefined.
std::vector<std::string> resolved_attributes(const AlgoConfig& want, const AlgoConfig& got) {
  std::vector<std::string> out;
  const auto note = [&out](const char* name, auto w, auto g) {
    if (w == 0 && g != 0) out.push_back(fmt::format("{}=0 -> {}", name, g));
  };
  note("tile", want.tile, got.tile);
  note("stages", want.stages, got.stages);
  note("clu", want.cluster, got.cluster);
  note("inner", want.inner, got.inner);
  return out;
}

class LtPlan final : public Plan {
 public:
  LtPlan(std::shared_ptr<const Handle> handle, const GemmProblem& problem, MathMode math,
         const AlgoConfig& config)
      : handle_(std::move(handle)),
        problem_(problem),
        op_(problem, math),
        name_(to_spec(config, math).name()) {
    algo_ = make_algo(*handle_, op_, config);
    const CheckResult r = check_algo(*handle_, op_, algo_);
    if (!r.ok) throw Unsupported(name_ + ": " + r.reason);
    if (config_differs(config, r.actual))
      throw Unsupported(
          fmt::format("cuBLASLt would run {} for the requested {}", to_spec(r.actual, math).name(), name_));
    for (const auto& s : resolved_attributes(config, r.actual)) notes_.push_back("cuBLASLt resolved " + s);
    workspace_bytes_ = r.workspace;
    if (workspace_bytes_ > 0) workspace_ = std::make_unique<cuda::DeviceMemory>(workspace_bytes_);
    notes_.push_back(fmt::format("{}, {}, waves {:.2f}", problem_.summary, op_.compute_name(), r.waves));
  }

  std::string name() const override { return name_; }
  std::size_t workspace_bytes() const override { return workspace_bytes_; }
  void bind(const Bindings& bindings, Stream&) override {
    a_ = bindings.at(problem_.a.uid);
    b_ = bindings.at(problem_.b.uid);
    d_ = bindings.at(problem_.d.uid);
    if (problem_.bias_uid) op_.set_bias_pointer(bindings.at(*problem_.bias_uid));
    bound_workspace_ = bindings.workspace ? bindings.workspace : workspace_ ? workspace_->data() : nullptr;
  }
  void execute(Stream& stream) override {
    if (!d_) throw std::logic_error("execute before bind");
    const cublasStatus_t status = lt().cublasLtMatmul(
        handle_->get(), op_.desc(), op_.alpha(), a_, op_.a(), b_, op_.b(), op_.beta(), d_, op_.c(), d_,
        op_.d(), &algo_, bound_workspace_, workspace_bytes_, cuda::cuda_stream_of(stream));
    // cublasLtMatmulAlgoCheck's success does not promise a launch (LIBRARY-NOTES.md 3): a refusal
    // here comes at the checked run, before anything is measured, and skips the row with it.
    if (status == CUBLAS_STATUS_NOT_SUPPORTED)
      throw Unsupported("cublasLtMatmul refused " + name_ +
                        " at launch (cublasLtMatmulAlgoCheck had accepted it): " + status_text(status));
    check(status, "cublasLtMatmul " + name_);
  }
  void publish_outputs(Stream&) override {}
  std::vector<std::string> notes() const override { return notes_; }

 private:
  std::shared_ptr<const Handle> handle_;
  GemmProblem problem_;
  Operation op_;
  std::string name_;
  cublasLtMatmulAlgo_t algo_{};
  std::size_t workspace_bytes_ = 0;
  std::unique_ptr<cuda::DeviceMemory> workspace_;
  void* bound_workspace_ = nullptr;  // the bindings' workspace, else workspace_
  const void *a_ = nullptr, *b_ = nullptr;
  void* d_ = nullptr;
  std::vector<std::string> notes_;
};

class CublasLtProvider final : public cuda::CudaProvider {
 public:
  // With a device, cuBLASLt is loaded now, not at the first call: before a later provider (the
  // torch module, whose LibTorch brings its own libcublasLt.so of the same soname) could load
  // another copy that this provider would then share. Without one it is never loaded.
  CublasLtProvider() {
    if (!no_device()) library_error_ = lt_library_error();
  }
  std::string unusable_reason() override { return no_device() ? *no_device() : library_error_; }
  std::string_view name() const override { return "cublaslt"; }
  std::string version() const override {
    if (!lt_library_error().empty()) return "cuBLASLt (not loaded: " + lt_library_error() + ")";
    return fmt::format("cuBLASLt {} (CUDA runtime {})", cublaslt_version_string(),
                       cuda::cuda_runtime_version_string());
  }
  std::vector<std::pair<std::string, std::string>> device_properties() override {
    auto props = cuda::device_description();
    if (!no_device()) props.emplace_back("cublaslt_version", cublaslt_version_string());
    return props;
  }

  std::vector<EngineInfo> engines(const Graph& graph) override {
    const Analysis& a = analysis(graph);
    if (a.engines.empty()) {
      std::string why = a.heuristic_errors.empty() ? "" : a.heuristic_errors.front();
      if (!a.refused.empty()) why += (why.empty() ? "" : "; ") + a.refused.front();
      throw Unsupported(fmt::format("cuBLASLt lists no algo that can run {}{}", a.problem.summary,
                                    why.empty() ? "" : ": " + why));
    }
    std::vector<EngineInfo> out;
    for (const auto& e : a.engines) {
      const std::string id = engine_id(e.algo, e.math);
      EngineInfo info{
          id,
          e.math == MathMode::tf32 ? fmt::format("algo {} (TF32)", e.algo) : fmt::format("algo {}", e.algo),
          e.notes};
      if (e.math == MathMode::tf32) info.notes.push_back(std::string(kTf32MathNote));
      out.push_back(std::move(info));
    }
    return out;
  }

  PlanSpec heuristic_plan(const Graph& graph, const EngineInfo& engine) override {
    const EngineEntry& e = entry(graph, engine.id);
    return to_spec(base_config(e), e.math);
  }

  std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                   const SweepLimits& limits) override {
    const EngineEntry& e = entry(graph, engine.id);
    const Analysis& a = analysis(graph);
    const Operation op(a.problem, e.math);
    const auto max = static_cast<std::size_t>(limits.max_plans > 0 ? limits.max_plans : 1);
    // The heuristic plan comes first whatever the check says of the candidates (the oracle's
    // baseline; on the H200 every candidate of some algos was refused or adjusted by the check).
    std::vector<PlanSpec> specs{heuristic_plan(graph, engine)};
    for (const auto& c : candidate_configs(base_config(e), heuristic_configs(e), e.caps)) {
      if (specs.size() >= max) break;
      try {
        const auto algo = make_algo(*handle_, op, c);
        const CheckResult r = check_algo(*handle_, op, algo);
        auto spec = to_spec(c, e.math);
        const bool known = std::any_of(specs.begin(), specs.end(),
                                       [&](const PlanSpec& s) { return s.name() == spec.name(); });
        if (r.ok && !config_differs(c, r.actual) && !known) specs.push_back(std::move(spec));
      } catch (const Unsupported&) {
        // an attribute value the algo refuses: not a candidate
      }
    }
    return specs;
  }

  std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) override {
    const AlgoConfig config = from_spec(spec);
    const auto key = parse_engine_id(spec.engine_id);
    const Analysis& a = analysis(graph);
    return std::make_unique<LtPlan>(handle_, a.problem, key->math, config);
  }

 private:
  // The analysis of the last graph asked about (rows of one graph ask engines(), then per engine
  // heuristic_plan(), plan_space() and build()).
  const Analysis& analysis(const Graph& graph) {
    if (no_device()) throw Unsupported(*no_device());
    if (!library_error_.empty()) throw Unsupported(library_error_);
    const std::string key = graph_cache_key(graph);
    if (cached_ && cached_graph_ == &graph && cached_key_ == key) return *cached_;
    ProblemOrReason matched = match_gemm(graph);
    if (!matched.problem) throw Unsupported(matched.reason);
    if (!handle_) handle_ = std::make_shared<const Handle>();
    cached_.reset();
    cached_ = analyze(*handle_, *matched.problem);
    cached_graph_ = &graph;
    cached_key_ = key;
    return *cached_;
  }

  const EngineEntry& entry(const Graph& graph, const std::string& id) {
    for (const auto& e : analysis(graph).engines)
      if (engine_id(e.algo, e.math) == id) return e;
    throw Unsupported("cuBLASLt lists no engine '" + id + "' for this graph");
  }

  std::string library_error_;
  std::shared_ptr<const Handle> handle_;
  std::optional<Analysis> cached_;
  const Graph* cached_graph_ = nullptr;
  std::string cached_key_;
};

}  // namespace
}  // namespace cublaslt

std::unique_ptr<Provider> make_cublaslt_provider() {
  return std::make_unique<cublaslt::CublasLtProvider>();
}

}  // namespace dnnbench
