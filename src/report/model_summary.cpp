#include "report/model_summary.hpp"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>

namespace dnnbench {
namespace {

// The row's time: kernel time where the provider has one, else host time.
std::optional<double> row_ms(const RowResult& row) {
  if (row.status != RowStatus::success) return std::nullopt;
  const auto& stats = row.gpu_kernel_stats ? row.gpu_kernel_stats : row.host_stats;
  if (!stats || stats->n == 0) return std::nullopt;
  return stats->median;
}

std::string engine_of(const RowResult& row) {
  return row.engine_name.value_or(row.engine_id.value_or("?"));
}

}  // namespace

std::vector<ProviderModelSummary> model_summary(const SuiteResult& suite,
                                                const std::map<std::string, std::int64_t>& counts) {
  std::vector<ProviderModelSummary> out;
  if (counts.empty()) return out;
  const auto provider = [&](const std::string& name) -> ProviderModelSummary& {
    for (auto& p : out)
      if (p.provider == name) return p;
    out.push_back({name, 0, 0, 0, 0, {}});
    return out.back();
  };
  for (const auto& graph : suite.graphs) {
    const auto it = counts.find(graph.graph_path);
    if (it == counts.end() || graph.duplicate_of || graph.filtered) continue;
    std::vector<std::string> seen;
    for (const auto& row : graph.results)
      if (std::find(seen.begin(), seen.end(), row.provider) == seen.end()) seen.push_back(row.provider);
    for (const auto& name : seen) {
      auto& summary = provider(name);
      std::optional<ModelLayerTime> layer;
      for (const auto& row : graph.results) {
        if (row.provider != name) continue;
        const auto ms = row_ms(row);
        if (!ms) continue;
        // Rows come in the provider's heuristic order: the first timed one is the library's pick.
        if (!layer)
          layer = ModelLayerTime{graph.graph_path, graph.graph_name, it->second, *ms, *ms,
                                 engine_of(row),   engine_of(row)};
        double best = *ms;
        if (row.best_plan && row.best_plan->median_ms > 0) best = std::min(best, row.best_plan->median_ms);
        if (best < layer->best_ms) {
          layer->best_ms = best;
          layer->best_engine = engine_of(row);
        }
      }
      if (!layer) {
        summary.layers_untimed += it->second;
        continue;
      }
      const auto n = static_cast<double>(layer->count);
      summary.pick_total_ms += n * layer->pick_ms;
      summary.best_total_ms += n * layer->best_ms;
      summary.layers_timed += layer->count;
      summary.layers.push_back(*layer);
    }
  }
  for (auto& p : out)
    std::sort(p.layers.begin(), p.layers.end(), [](const ModelLayerTime& a, const ModelLayerTime& b) {
      return static_cast<double>(a.count) * a.pick_ms > static_cast<double>(b.count) * b.pick_ms;
    });
  return out;
}

void print_model_summary(std::ostream& out, const std::vector<ProviderModelSummary>& summary,
                         std::size_t top) {
  for (const auto& p : summary) {
    fmt::print(out, "\nModel summary, {}: {} layer{} timed, {} without a time (skipped or failed)\n",
               p.provider, p.layers_timed, p.layers_timed == 1 ? "" : "s", p.layers_untimed);
    if (p.layers.empty()) continue;
    const double gain = p.best_total_ms > 0 ? p.pick_total_ms / p.best_total_ms : 1;
    fmt::print(
        out,
        "  total under the library's picks {:.4f} ms, under the best plans measured {:.4f} ms ({:.3f}x)\n",
        p.pick_total_ms, p.best_total_ms, gain);
    fmt::print(out, "  {:>5}  {:>10}  {:>10}  {:>6}  layer\n", "count", "pick ms", "best ms", "share");
    for (std::size_t k = 0; k < p.layers.size() && k < top; ++k) {
      const auto& l = p.layers[k];
      const double share =
          p.pick_total_ms > 0 ? static_cast<double>(l.count) * l.pick_ms / p.pick_total_ms : 0;
      fmt::print(out, "  {:>5}  {:>10.4f}  {:>10.4f}  {:>5.1f}%  {}\n", l.count, l.pick_ms, l.best_ms,
                 100 * share, graph_label(l.graph_name, l.graph_path));
    }
  }
}

nlohmann::json model_summary_to_json(const std::vector<ProviderModelSummary>& summary) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : summary) {
    nlohmann::json layers = nlohmann::json::array();
    for (const auto& l : p.layers)
      layers.push_back({{"graph_path", l.graph_path},
                        {"graph_name", l.graph_name},
                        {"count", l.count},
                        {"pick_ms", l.pick_ms},
                        {"pick_engine", l.pick_engine},
                        {"best_ms", l.best_ms},
                        {"best_engine", l.best_engine}});
    out.push_back({{"provider", p.provider},
                   {"pick_total_ms", p.pick_total_ms},
                   {"best_total_ms", p.best_total_ms},
                   {"layers_timed", p.layers_timed},
                   {"layers_untimed", p.layers_untimed},
                   {"layers", std::move(layers)}});
  }
  return out;
}

}  // namespace dnnbench
