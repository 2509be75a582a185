#pragma once
// The model summary of a run of imported layers (docs/import.md): per provider, the model's time
// as Σ count × time of each distinct layer, under the library's pick (its first engine's
// heuristic plan) and under the best plan measured (any engine; the oracle's winner where it
// ran), and the layers that dominate it.
#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

struct ModelLayerTime {
  std::string graph_path, graph_name;
  std::int64_t count = 1;
  double pick_ms = 0, best_ms = 0;  // one execution
  std::string pick_engine, best_engine;
};

struct ProviderModelSummary {
  std::string provider;
  double pick_total_ms = 0, best_total_ms = 0;        // Σ count × time over the timed layers
  std::int64_t layers_timed = 0, layers_untimed = 0;  // layers (counted) with and without a time
  std::vector<ModelLayerTime> layers;                 // sorted by count × pick time, largest first
};

// `counts`: graph_path -> layers it stands for, of the inputs that came from import sources or
// manifests (empty: no summary). Layers of graphs not in `counts` are not part of any model.
std::vector<ProviderModelSummary> model_summary(const SuiteResult& suite,
                                                const std::map<std::string, std::int64_t>& counts);
void print_model_summary(std::ostream& out, const std::vector<ProviderModelSummary>& summary,
                         std::size_t top = 5);
nlohmann::json model_summary_to_json(const std::vector<ProviderModelSummary>& summary);

}  // namespace dnnbench
