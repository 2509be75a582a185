// The cuDNN provider. engines(): every global engine index whose ENGINE finalizes for the
// graph, ordered by first appearance in the heuristic's results (mode A unless told), then by
// index. heuristic_plan(): that engine's first heuristic config, or its default knobs.
// plan_space(): its heuristic configs plus one-knob variations read from its knob info.
// build(): a runtime-compiled engine's plan is kept in the compiled-plan cache and loaded from it
// on later builds (providers/compiled_plan_cache.hpp says why). A batch-norm training or backward
// graph also lists the legacy API's engine (providers/cudnn/legacy_batchnorm.hpp says why).
#include "providers/cudnn/cudnn_provider.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "measure/host_timer.hpp"
#include "providers/compiled_plan_cache.hpp"
#include "providers/cudnn/device.hpp"
#include "providers/cudnn/engines.hpp"
#include "providers/cudnn/legacy_batchnorm.hpp"
#include "providers/cudnn/plan.hpp"
#include "providers/graph_cache_key.hpp"
#include "sys/utc_timestamp.hpp"
#include "version/git_revision.hpp"

namespace dnnbench {

namespace cudnn {
namespace {

// The environment variable that picks the heuristic mode when the constructor is not told.
constexpr const char* kHeurModeEnv = "DNNBENCH_CUDNN_HEUR_MODE";

// True when a convolution or matmul of the graph reads fp32 data.
bool fp32_contraction(const Graph& graph) {
  for (const auto& node : graph.nodes) {
    if (node.kind != OpKind::conv_fwd && node.kind != OpKind::conv_bwd_data &&
        node.kind != OpKind::conv_bwd_weights && node.kind != OpKind::matmul)
      continue;
    for (const auto& port : node.inputs)
      if (graph.tensor(port.uid).dtype == DataType::f32) return true;
  }
  return false;
}

class CudnnProvider final : public CudaProvider {
 public:
  explicit CudnnProvider(HeurMode mode) : mode_(mode) {}

  std::string_view name() const override { return "cudnn"; }
  std::string version() const override {
    return fmt::format("cuDNN {} (CUDA runtime {})", cudnn_version_string(), cuda_runtime_version_string());
  }
  std::vector<std::pair<std::string, std::string>> device_properties() override {
    auto props = device_description();
    props.emplace_back("cudnn_heuristic_mode", std::string(heur_mode_name(mode_)));
    return props;
  }

  std::vector<EngineInfo> engines(const Graph& graph) override {
    if (no_device()) throw Unsupported(*no_device());
    std::string legacy_why;
    auto legacy = legacy_batchnorm_engine(graph, legacy_why);
    std::vector<EngineInfo> out;
    try {
      out = graph_api_engines(graph);
    } catch (const Unsupported& e) {
      if (!legacy) throw;
      legacy->notes.push_back(std::string("the graph API runs no engine for it: ") + e.what());
    }
    // After the engines the heuristic lists, before those it does not: cuDNN itself would pick
    // none of those, while the legacy call is what frameworks run (so `--max-engines 3` and the
    // oracle's graph regret hold the heuristic's pick against it).
    if (legacy)
      out.insert(out.begin() + static_cast<std::ptrdiff_t>(listed_engines(graph, out)), std::move(*legacy));
    return out;
  }

  std::string not_offered_reason(const Graph& graph, const std::string& engine_id) override {
    if (engine_id != kLegacyBatchnormEngine) return "";
    std::string why;
    return legacy_batchnorm_engine(graph, why) ? "" : why;
  }

  PlanSpec heuristic_plan(const Graph& graph, const EngineInfo& engine) override {
    if (engine.id == kLegacyBatchnormEngine) return legacy_plan_space(graph).front();
    const EngineEntry& e = entry(graph, engine.id);
    return to_spec(e.heuristic_configs.empty() ? EngineConfig{e.index, {}} : e.heuristic_configs.front());
  }

  std::vector<PlanSpec> plan_space(const Graph& graph, const EngineInfo& engine,
                                   const SweepLimits& limits) override {
    if (engine.id == kLegacyBatchnormEngine) {
      auto specs = legacy_plan_space(graph);
      if (limits.max_plans > 0 && specs.size() > static_cast<std::size_t>(limits.max_plans))
        specs.resize(static_cast<std::size_t>(limits.max_plans));
      return specs;
    }
    std::vector<PlanSpec> specs;
    for (const auto& c : cudnn::plan_space(entry(graph, engine.id), limits.max_plans))
      specs.push_back(to_spec(c));
    return specs;
  }

  bool can_build_ahead() override { return plan_cache_.enabled() && !no_device(); }

  // The legacy engine compiles nothing: there is nothing to build ahead.
  bool build_ahead(const Graph& graph, const EngineInfo& engine) override {
    if (engine.id == kLegacyBatchnormEngine) return false;
    const EngineConfig config = from_spec(heuristic_plan(graph, engine));
    return build_or_load(graph, config, /*ahead=*/true) != nullptr;
  }

  bool build_plan_ahead(const Graph& graph, const PlanSpec& spec) override {
    if (spec.engine_id == kLegacyBatchnormEngine) return false;
    return build_or_load(graph, from_spec(spec), /*ahead=*/true) != nullptr;
  }

  std::unique_ptr<Plan> build(const Graph& graph, const PlanSpec& spec) override {
    if (spec.engine_id == kLegacyBatchnormEngine)
      return build_legacy_batchnorm(graph, legacy_mode(graph, spec), handle());
    return build_graph_api_plan(graph, spec);
  }

 private:
  // The graph API's engines for the graph, in the heuristic's order. Throws Unsupported when
  // cuDNN finalizes none.
  std::vector<EngineInfo> graph_api_engines(const Graph& graph) {
    const Analysis& a = analysis(graph);
    if (a.engines.empty())
      throw Unsupported(fmt::format(
          "cuDNN finalizes none of its {} engines for this graph ({}){}{}", a.global_count, a.graph->summary,
          a.refused.empty() ? "" : ": " + a.refused.front(), hints_text(a.graph->hints)));
    std::vector<EngineInfo> out;
    for (const auto& e : a.engines) {
      EngineInfo info{engine_id(e.index), engine_id(e.index), e.notes};
      // Tensor cores have no fp32 multiply: on fp32 data a TENSOR_CORE engine rounds its
      // inputs to TF32 (10-bit mantissa), so its error is TF32's, not fp32's; so does an engine
      // that says it down-converts its inputs.
      const auto noted = [&e](const char* note) {
        return std::find(e.notes.begin(), e.notes.end(), note) != e.notes.end();
      };
      if (fp32_contraction(graph) && (noted("TENSOR_CORE") || noted("DOWN_CONVERT_INPUTS")))
        info.notes.push_back(std::string(kTf32Note));
      // WINOGRAD, WINOGRAD_TILE_4x4, ...: transform-domain arithmetic, judged with the wider
      // Winograd tolerance (tensor/compare.hpp says why and by how much).
      if (std::any_of(e.notes.begin(), e.notes.end(),
                      [](const std::string& n) { return n.starts_with("WINOGRAD"); }))
        info.notes.push_back(std::string(kWinogradNote));
      if (!e.heuristic_configs.empty())
        info.notes.push_back(
            fmt::format("heuristic {} configs: {}", heur_mode_name(a.mode), e.heuristic_configs.size()));
      out.push_back(std::move(info));
    }
    return out;
  }

  std::unique_ptr<Plan> build_graph_api_plan(const Graph& graph, const PlanSpec& spec) {
    const EngineConfig config = from_spec(spec);
    const auto& hints = analysis(graph).graph->hints;
    try {
      return build_or_load(graph, config);
    } catch (const Unsupported& e) {
      // cuDNN's reason, then what it would accept where the lowering knows.
      if (hints.empty()) throw;
      throw Unsupported(e.what() + hints_text(hints));
    } catch (const ConfigFailed& e) {
      // Measured on cuDNN 9.14 (H200): layer norm engines that the heuristic does not list for
      // the graph fail their engine config with EXECUTION_FAILED (fillup_num_execution_groups())
      // where other engines say NOT_SUPPORTED, while the listed engine builds and passes.
      // Nothing has run at config finalize: it is cuDNN refusing the engine, so the row is
      // skipped with cuDNN's own message. A listed engine failing so stays an error.
      // Batch-norm training and backward on eng3-5 fail so with INTERNAL_ERROR_UNEXPECTED_VALUE
      // ("matcher_casted == nullptr": no pattern of the engine matched the graph), 2026-12-01.
      if ((e.status == CUDNN_STATUS_EXECUTION_FAILED ||
           e.status == CUDNN_STATUS_INTERNAL_ERROR_UNEXPECTED_VALUE) &&
          !listed_by_heuristic(graph, config.engine))
        throw Unsupported(
            std::string(e.what()) +
            " (an engine the heuristic does not list for this graph: cuDNN refuses its config)" +
            hints_text(hints));
      throw;
    }
  }

  const std::shared_ptr<const Handle>& handle() {
    if (!handle_) handle_ = std::make_shared<const Handle>();
    return handle_;
  }

  // The analysis of the last graph asked about: rows of one graph ask engines(), then per
  // engine heuristic_plan() and build(), so one cached graph saves re-running the heuristic.
  const Analysis& analysis(const Graph& graph) {
    if (no_device()) throw Unsupported(*no_device());
    const std::string key = graph_cache_key(graph);
    if (cached_ && cached_graph_ == &graph && cached_key_ == key) return *cached_;
    cached_.reset();
    auto lowered = lower_graph(graph, handle());
    cached_ = analyze(std::move(lowered), mode_);
    cached_graph_ = &graph;
    cached_key_ = key;
    return *cached_;
  }

  // A runtime-compiled engine's plan comes from the compiled-plan cache when the cache holds one
  // for this graph, library, device and config; otherwise it is built (compiled) and stored there.
  // While another process compiles it (a compile-ahead child, another rank), this build waits for
  // that record rather than compiling it a second time. Every other engine is built: its build
  // takes microseconds to milliseconds. `ahead` (build_ahead()): only a plan that is neither
  // stored nor being compiled elsewhere is compiled; nullptr otherwise.
  std::unique_ptr<CudnnPlan> build_or_load(const Graph& graph, const EngineConfig& config,
                                           bool ahead = false) {
    const auto& lowered = analysis(graph).graph;
    const std::string key = plan_cache_key(graph, config);
    if (key.empty()) return ahead ? nullptr : std::make_unique<CudnnPlan>(lowered, config);
    if (ahead && plan_cache_.find(key)) return nullptr;
    std::string load_failure;
    if (!ahead)
      if (auto plan = load_cached(lowered, config, key, load_failure)) return plan;
    // Long enough for the slowest compile measured (29 s on the H200) many times over.
    constexpr double kMaxWaitS = 600;
    auto claim = plan_cache_.claim(key, ahead ? 0.0 : kMaxWaitS);
    if (ahead && !claim.claim.held()) return nullptr;
    if (claim.contended && !ahead) {
      if (auto plan = load_cached(lowered, config, key, load_failure)) {
        plan->add_note(
            fmt::format("waited {:.0f} ms for another process that was compiling it", claim.waited_ms));
        return plan;
      }
    }
    HostTimer timer;
    auto plan = std::make_unique<CudnnPlan>(lowered, config);
    const double compile_ms = timer.elapsed_ms();
    if (!load_failure.empty())
      plan->add_note("the compiled-plan cache's record did not load (" + load_failure + "): compiled again");
    const std::string blob = plan->serialized();
    const std::string why_not = blob.empty()
                                    ? "cuDNN gives no serialized form of this plan"
                                    : plan_cache_.store(key, CachedPlan{blob, compile_ms, utc_timestamp()});
    plan->add_note(
        why_not.empty()
            ? fmt::format("runtime-compiled engine: compiled in {:.0f} ms and kept in the compiled-plan "
                          "cache ({})",
                          compile_ms, plan_cache_.path_for(key).string())
            : "runtime-compiled engine: not kept in the compiled-plan cache: " + why_not);
    plan->set_cache_use(PlanCacheUse{why_not.empty() ? "stored" : "not stored", compile_ms});
    return plan;
  }

  // The plan stored under `key`, deserialized; nullptr when there is none or it does not load
  // (`load_failure` says why: the caller compiles it again and replaces the record).
  std::unique_ptr<CudnnPlan> load_cached(const std::shared_ptr<OpGraph>& lowered, const EngineConfig& config,
                                         const std::string& key, std::string& load_failure) {
    const auto cached = plan_cache_.find(key);
    if (!cached) return nullptr;
    try {
      auto plan = std::make_unique<CudnnPlan>(lowered, config, cached->blob);
      plan->add_note(fmt::format(
          "runtime-compiled engine: loaded from the compiled-plan cache ({}), not compiled again; it "
          "compiled in {:.0f} ms on {}",
          plan_cache_.path_for(key).string(), cached->compile_ms, cached->created_utc));
      plan->set_cache_use(PlanCacheUse{"loaded", cached->compile_ms});
      return plan;
    } catch (const std::exception& e) {
      load_failure = e.what();
      return nullptr;
    }
  }

  // "" when the plan is not cached: no cache, a graph built in memory, or an engine that does not
  // compile at run time.
  std::string plan_cache_key(const Graph& graph, const EngineConfig& config) {
    if (!plan_cache_.enabled() || graph.content_hash.empty()) return "";
    const Analysis& a = analysis(graph);
    const auto e = std::find_if(a.engines.begin(), a.engines.end(),
                                [&](const EngineEntry& entry) { return entry.index == config.engine; });
    if (e == a.engines.end() ||
        std::find(e->notes.begin(), e->notes.end(), "RUNTIME_COMPILATION") == e->notes.end())
      return "";
    const std::string& device = device_key();
    if (device.empty()) return "";
    // The dnnbench revision stands for the lowering (the uids and operations the plan binds).
    return fmt::format("cudnn {} | {} | dnnbench {} {} | graph {} | {} | {}", cudnn_version_string(), device,
                       DNNBENCH_VERSION, git_revision(), graph.content_hash, a.graph->summary,
                       to_spec(config).name());
  }

  // What a compiled kernel depends on besides the graph and the config: the device's name,
  // compute capability and SM count, from the device description (read once: a process keeps
  // its device).
  // "" when the device cannot be described: the plan is then built, not cached.
  const std::string& device_key() {
    if (!device_key_.empty()) return device_key_;
    try {
      for (const auto& [key, value] : device_description())
        if (key == "device" || key == "compute_capability" || key == "sm_count")
          device_key_ += (device_key_.empty() ? "" : " ") + key + "=" + value;
    } catch (const std::exception&) {
      device_key_.clear();
    }
    return device_key_;
  }

  // How many of the graph API's engines the heuristic lists (they come first); 0 when it runs none.
  std::size_t listed_engines(const Graph& graph, const std::vector<EngineInfo>& graph_api) {
    if (graph_api.empty()) return 0;
    const auto& engines = analysis(graph).engines;
    return static_cast<std::size_t>(
        std::find_if(engines.begin(), engines.end(),
                     [](const EngineEntry& e) { return e.heuristic_configs.empty(); }) -
        engines.begin());
  }

  bool listed_by_heuristic(const Graph& graph, std::int64_t index) {
    for (const auto& e : analysis(graph).engines)
      if (e.index == index) return !e.heuristic_configs.empty();
    return false;
  }

  const EngineEntry& entry(const Graph& graph, const std::string& id) {
    const Analysis& a = analysis(graph);
    for (const auto& e : a.engines)
      if (engine_id(e.index) == id) return e;
    throw Unsupported("cuDNN lists no engine '" + id + "' for this graph");
  }

  HeurMode mode_;
  CompiledPlanCache plan_cache_ = CompiledPlanCache::from_environment();
  std::string device_key_;  // device_key(), once read
  std::shared_ptr<const Handle> handle_;
  std::optional<Analysis> cached_;
  const Graph* cached_graph_ = nullptr;
  std::string cached_key_;
};

}  // namespace
}  // namespace cudnn

std::unique_ptr<Provider> make_cudnn_provider(std::optional<std::string> heur_mode) {
  if (!heur_mode)
    if (const char* env = std::getenv(cudnn::kHeurModeEnv); env && *env) heur_mode = env;
  return std::make_unique<cudnn::CudnnProvider>(cudnn::parse_heur_mode(heur_mode.value_or("a")));
}

bool cudnn_device_available() {
  return !cudnn::no_device_reason().has_value();
}

}  // namespace dnnbench
