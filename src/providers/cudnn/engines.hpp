#pragma once
// Engines, knobs and heuristics of one operation graph: which global engine indices finalize,
// in the heuristic's order, with their notes, knob ranges and the heuristic's configs.
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "providers/cudnn/lowering.hpp"
#include "providers/provider.hpp"

namespace dnnbench::cudnn {

enum class HeurMode { a, b, fallback };
// "a", "b" or "fallback" (DNNBENCH_CUDNN_HEUR_MODE); throws std::invalid_argument otherwise.
HeurMode parse_heur_mode(std::string_view text);
std::string_view heur_mode_name(HeurMode mode);

struct KnobChoice {
  std::int64_t type = 0;  // cudnnBackendKnobType_t
  std::int64_t value = 0;
  bool operator==(const KnobChoice&) const = default;
};

// One engine configuration: a global engine index and knob choices (none: the defaults).
struct EngineConfig {
  std::int64_t engine = 0;
  std::vector<KnobChoice> knobs;
  bool operator==(const EngineConfig&) const = default;
};

struct KnobRange {
  std::int64_t type = 0, min = 0, max = 0, stride = 1;
};

struct EngineEntry {
  std::int64_t index = 0;
  std::vector<std::string> notes;  // numerical and behaviour notes
  std::vector<KnobRange> knobs;
  std::vector<EngineConfig> heuristic_configs;  // this engine's heuristic results, best first
};

struct Analysis {
  std::shared_ptr<OpGraph> graph;
  std::int64_t global_count = 0;
  HeurMode mode = HeurMode::a;
  std::string heuristic_error;       // why the heuristic gave nothing ("" when it did)
  std::vector<EngineEntry> engines;  // heuristic order, then the rest by index
  std::vector<std::string> refused;  // "eng<i>: <reason>" per index that did not finalize
};

Analysis analyze(std::shared_ptr<OpGraph> graph, HeurMode mode);

std::string engine_id(std::int64_t index);
// Parses "eng<i>"; nullopt when the id is not one.
std::optional<std::int64_t> parse_engine_id(std::string_view id);
PlanSpec to_spec(const EngineConfig& config);
// Throws Unsupported when the spec is not an engine id with "k<type>" knobs.
EngineConfig from_spec(const PlanSpec& spec);

// cuDNN failed to finalize an engine config with a status other than NOT_SUPPORTED.
class ConfigFailed : public std::runtime_error {
 public:
  ConfigFailed(cudnnStatus_t status_, const std::string& message)
      : std::runtime_error(message), status(status_) {}
  cudnnStatus_t status;
};

// A finalized ENGINECFG with everything it points to.
struct BuiltConfig {
  Descriptor engine;
  std::vector<Descriptor> choices;
  Descriptor config;
};
// Throws Unsupported when cuDNN refuses the engine or the knob choices (NOT_SUPPORTED),
// ConfigFailed when the config fails to finalize with another status.
BuiltConfig build_config(const OpGraph& graph, const EngineConfig& config);
// The engine index and knob choices a finalized ENGINECFG describes.
EngineConfig read_config(const Descriptor& config);

// The plan space of one engine: its heuristic configs, then each knob varied one at a time
// around the first of them (or the defaults) from min to max by stride; at most `limit`.
std::vector<EngineConfig> plan_space(const EngineEntry& engine, int limit);

}  // namespace dnnbench::cudnn
