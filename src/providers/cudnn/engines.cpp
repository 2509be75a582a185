#include "providers/cudnn/engines.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

namespace dnnbench::cudnn {

HeurMode parse_heur_mode(std::string_view text) {
  if (text == "a" || text == "A") return HeurMode::a;
  if (text == "b" || text == "B") return HeurMode::b;
  if (text == "fallback") return HeurMode::fallback;
  throw std::invalid_argument("cuDNN heuristic mode must be a, b or fallback, not '" + std::string(text) +
                              "'");
}

std::string_view heur_mode_name(HeurMode mode) {
  switch (mode) {
    case HeurMode::a:
      return "a";
    case HeurMode::b:
      return "b";
    case HeurMode::fallback:
      break;
  }
  return "fallback";
}

namespace {

cudnnBackendHeurMode_t backend_mode(HeurMode mode) {
  switch (mode) {
    case HeurMode::a:
      return CUDNN_HEUR_MODE_A;
    case HeurMode::b:
      return CUDNN_HEUR_MODE_B;
    case HeurMode::fallback:
      break;
  }
  return CUDNN_HEUR_MODE_FALLBACK;
}

std::string numerical_note(cudnnBackendNumericalNote_t note) {
  switch (note) {
    case CUDNN_NUMERICAL_NOTE_TENSOR_CORE:
      return "TENSOR_CORE";
    case CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS:
      return "DOWN_CONVERT_INPUTS";
    case CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION:
      return std::string(kReducedPrecisionNote);
    case CUDNN_NUMERICAL_NOTE_FFT:
      return "FFT";
    case CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC:
      return "NONDETERMINISTIC";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD:
      return "WINOGRAD";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_4x4:
      return "WINOGRAD_TILE_4x4";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_6x6:
      return "WINOGRAD_TILE_6x6";
    case CUDNN_NUMERICAL_NOTE_WINOGRAD_TILE_13x13:
      return "WINOGRAD_TILE_13x13";
    case CUDNN_NUMERICAL_NOTE_STRICT_NAN_PROP:
      return "STRICT_NAN_PROP";
    default:
      break;
  }
  return fmt::format("NUMERICAL_NOTE_{}", static_cast<int>(note));
}

std::string behavior_note(cudnnBackendBehaviorNote_t note) {
  switch (note) {
    case CUDNN_BEHAVIOR_NOTE_RUNTIME_COMPILATION:
      return "RUNTIME_COMPILATION";
    case CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER:
      return "REQUIRES_FILTER_INT8x32_REORDER";
    case CUDNN_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER:
      return "REQUIRES_BIAS_INT8x32_REORDER";
    case CUDNN_BEHAVIOR_NOTE_SUPPORTS_CUDA_GRAPH_NATIVE_API:
      return "SUPPORTS_CUDA_GRAPH_NATIVE_API";
    default:
      break;
  }
  return fmt::format("BEHAVIOR_NOTE_{}", static_cast<int>(note));
}

Descriptor make_engine(const OpGraph& graph, std::int64_t index) {
  Descriptor engine(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
  set(engine, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, graph.graph);
  set(engine, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, index);
  return engine;
}

std::vector<std::string> engine_notes(const Descriptor& engine) {
  std::vector<std::string> notes;
  for (auto n : get_all<cudnnBackendNumericalNote_t>(engine, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
                                                     CUDNN_NUMERICAL_NOTE_TYPE_COUNT))
    notes.push_back(numerical_note(n));
  for (auto n : get_all<cudnnBackendBehaviorNote_t>(engine, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE,
                                                    CUDNN_BEHAVIOR_NOTE_TYPE_COUNT))
    notes.push_back(behavior_note(n));
  return notes;
}

std::vector<KnobRange> engine_knobs(const Descriptor& engine) {
  std::vector<KnobRange> knobs;
  for (const auto& info : get_descriptors(engine, CUDNN_ATTR_ENGINE_KNOB_INFO,
                                          CUDNN_BACKEND_KNOB_INFO_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS)) {
    KnobRange k;
    k.type = static_cast<std::int64_t>(get_one<cudnnBackendKnobType_t>(info, CUDNN_ATTR_KNOB_INFO_TYPE));
    k.min = get_one<std::int64_t>(info, CUDNN_ATTR_KNOB_INFO_MINIMUM_VALUE);
    k.max = get_one<std::int64_t>(info, CUDNN_ATTR_KNOB_INFO_MAXIMUM_VALUE);
    k.stride = std::max<std::int64_t>(1, get_one<std::int64_t>(info, CUDNN_ATTR_KNOB_INFO_STRIDE));
    knobs.push_back(k);
  }
  return knobs;
}

// The heuristic's configs, best first; an empty list (and the reason) when it gives none.
std::vector<EngineConfig> heuristic_configs(const OpGraph& graph, HeurMode mode, std::string& error) {
  try {
    Descriptor heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    set(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph.graph);
    set(heur, CUDNN_ATTR_ENGINEHEUR_MODE, backend_mode(mode));
    heur.finalize("finalizing the engine heuristic");
    const std::int64_t n = count_of(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR);
    std::vector<EngineConfig> configs;
    for (const auto& cfg :
         get_descriptors(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, n)) {
      try {
        configs.push_back(read_config(cfg));
      } catch (const std::exception&) {
        // A result that cannot be read back is one the heuristic could not describe; skip it.
      }
    }
    if (configs.empty()) error = "the heuristic returned no configuration";
    return configs;
  } catch (const std::exception& e) {
    error = e.what();
    return {};
  }
}

}  // namespace

EngineConfig read_config(const Descriptor& config) {
  EngineConfig out;
  auto engines = get_descriptors(config, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR, 1);
  if (engines.empty()) throw std::runtime_error("engine config without an engine");
  out.engine = get_one<std::int64_t>(engines.front(), CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
  for (const auto& choice : get_descriptors(config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                            CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR, CUDNN_KNOB_TYPE_COUNTS)) {
    KnobChoice k;
    k.type =
        static_cast<std::int64_t>(get_one<cudnnBackendKnobType_t>(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE));
    k.value = get_one<std::int64_t>(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE);
    out.knobs.push_back(k);
  }
  std::sort(out.knobs.begin(), out.knobs.end(),
            [](const KnobChoice& a, const KnobChoice& b) { return a.type < b.type; });
  return out;
}

Analysis analyze(std::shared_ptr<OpGraph> graph, HeurMode mode) {
  Analysis a;
  a.graph = std::move(graph);
  a.mode = mode;
  a.global_count = get_one<std::int64_t>(a.graph->graph, CUDNN_ATTR_OPERATIONGRAPH_ENGINE_GLOBAL_COUNT);
  const auto configs = heuristic_configs(*a.graph, mode, a.heuristic_error);

  // Heuristic order: first appearance of each index in the results, then the rest by index.
  std::vector<std::int64_t> order;
  for (const auto& c : configs)
    if (std::find(order.begin(), order.end(), c.engine) == order.end()) order.push_back(c.engine);
  for (std::int64_t i = 0; i < a.global_count; ++i)
    if (std::find(order.begin(), order.end(), i) == order.end()) order.push_back(i);

  for (const std::int64_t index : order) {
    Descriptor engine = make_engine(*a.graph, index);
    if (const cudnnStatus_t s = engine.try_finalize(); s != CUDNN_STATUS_SUCCESS) {
      a.refused.push_back(status_message(s, engine_id(index)));
      continue;
    }
    EngineEntry entry;
    entry.index = index;
    entry.notes = engine_notes(engine);
    entry.knobs = engine_knobs(engine);
    for (const auto& c : configs)
      if (c.engine == index) entry.heuristic_configs.push_back(c);
    if (entry.heuristic_configs.empty()) entry.notes.push_back("not in the heuristic's results");
    a.engines.push_back(std::move(entry));
  }
  return a;
}

std::string engine_id(std::int64_t index) {
  return fmt::format("eng{}", index);
}

namespace {

std::optional<std::int64_t> parse_int(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::int64_t> parse_engine_id(std::string_view id) {
  if (id.substr(0, 3) != "eng") return std::nullopt;
  return parse_int(id.substr(3));
}

PlanSpec to_spec(const EngineConfig& config) {
  PlanSpec spec;
  spec.engine_id = engine_id(config.engine);
  for (const auto& k : config.knobs)
    spec.knobs.push_back({fmt::format("k{}", k.type), std::to_string(k.value)});
  return spec;
}

EngineConfig from_spec(const PlanSpec& spec) {
  EngineConfig config;
  const auto index = parse_engine_id(spec.engine_id);
  if (!index) throw Unsupported("'" + spec.engine_id + "' is not a cuDNN engine id (eng<index>)");
  config.engine = *index;
  for (const auto& knob : spec.knobs) {
    const auto type =
        knob.name.size() > 1 && knob.name[0] == 'k' ? parse_int(knob.name.substr(1)) : std::nullopt;
    const auto value = parse_int(knob.value);
    if (!type || !value)
      throw Unsupported("cuDNN knobs are k<type>=<integer>, not '" + knob.name + "=" + knob.value + "'");
    config.knobs.push_back({*type, *value});
  }
  return config;
}

BuiltConfig build_config(const OpGraph& graph, const EngineConfig& config) {
  BuiltConfig b;
  b.engine = make_engine(graph, config.engine);
  b.engine.finalize("engine " + engine_id(config.engine));
  std::vector<const Descriptor*> choices;
  for (const auto& k : config.knobs) {
    Descriptor choice(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR);
    set(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE, static_cast<cudnnBackendKnobType_t>(k.type));
    set(choice, CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, k.value);
    choice.finalize(fmt::format("knob choice k{}={}", k.type, k.value));
    b.choices.push_back(std::move(choice));
  }
  for (const auto& c : b.choices) choices.push_back(&c);
  b.config = Descriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
  set(b.config, CUDNN_ATTR_ENGINECFG_ENGINE, b.engine);
  if (!choices.empty()) set(b.config, CUDNN_ATTR_ENGINECFG_KNOB_CHOICES, choices);
  const std::string what = "engine config " + to_spec(config).name();
  if (const cudnnStatus_t s = b.config.try_finalize(); s != CUDNN_STATUS_SUCCESS) {
    if (is_not_supported(s)) throw Unsupported(status_message(s, what));
    throw ConfigFailed(s, status_message(s, what));
  }
  return b;
}

std::vector<EngineConfig> plan_space(const EngineEntry& engine, int limit) {
  std::vector<EngineConfig> plans;
  const auto max = static_cast<std::size_t>(limit > 0 ? limit : 1);
  auto add = [&](const EngineConfig& c) {
    if (plans.size() < max && std::find(plans.begin(), plans.end(), c) == plans.end()) plans.push_back(c);
  };
  for (const auto& c : engine.heuristic_configs) add(c);
  const EngineConfig base =
      engine.heuristic_configs.empty() ? EngineConfig{engine.index, {}} : engine.heuristic_configs.front();
  add(base);
  for (const auto& range : engine.knobs) {
    for (std::int64_t v = range.min; v <= range.max && plans.size() < max; v += range.stride) {
      EngineConfig c = base;
      auto it = std::find_if(c.knobs.begin(), c.knobs.end(),
                             [&](const KnobChoice& k) { return k.type == range.type; });
      if (it != c.knobs.end())
        it->value = v;
      else
        c.knobs.push_back({range.type, v});
      std::sort(c.knobs.begin(), c.knobs.end(),
                [](const KnobChoice& a, const KnobChoice& b) { return a.type < b.type; });
      add(c);
      if (range.max - v < range.stride) break;  // no overflow past max
    }
  }
  return plans;
}

}  // namespace dnnbench::cudnn
