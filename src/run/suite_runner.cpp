#include "run/suite_runner.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "graph/errors.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"
#include "providers/registry.hpp"
#include "run/graph_data.hpp"
#include "run/row_runner.hpp"
#include "tensor/npy.hpp"

namespace dnnbench {
namespace {

struct ProviderSlot {
  std::unique_ptr<Provider> provider;
  std::unique_ptr<Stream> stream;
};

std::vector<ProviderSlot> make_providers(const RunOptions& options) {
  std::vector<std::string> names = options.providers;
  if (names.empty()) names = default_provider_names();
  std::vector<ProviderSlot> slots;
  for (const auto& name : names) {
    auto provider = make_provider(name);
    if (!provider) throw std::invalid_argument(unknown_provider_message(name));
    auto stream = provider->make_stream();
    slots.push_back({std::move(provider), std::move(stream)});
  }
  return slots;
}

void dump_graph_tensors(GraphData& data, const std::string& dir) {
  const auto& graph = data.graph();
  const auto root = std::filesystem::path(dir) / sanitize_for_path(graph.name);
  for (const auto& [uid, tensor] : data.inputs())
    write_npy(root / "inputs" / (sanitize_for_path(tensor.desc().name) + ".npy"), tensor.to_dense(),
              tensor.desc().dtype);
  const auto& reference = data.reference();
  for (auto uid : graph.output_uids()) {
    const auto& desc = graph.tensor(uid);
    write_npy(root / "reference" / (sanitize_for_path(desc.name) + ".npy"), reference.at(uid), desc.dtype);
  }
}

void run_graph(GraphResult& result, const Graph& graph, std::vector<ProviderSlot>& providers,
               const RunOptions& options, RunObserver& observer) {
  auto add = [&](RowResult row) {
    result.results.push_back(std::move(row));
    observer.row_finished(result, result.results.back());
  };
  GraphData data(graph, options.seed);
  result.analytical_flops = data.cost().flops;
  result.analytical_io_bytes = data.cost().min_bytes;

  const auto unsupported = graph.unsupported_types();
  if (!unsupported.empty()) {
    for (auto& slot : providers)
      add(skipped_row(&data, slot.provider->name(), "unsupported op " + unsupported.front()));
    return;
  }
  if (options.dump_tensors_dir) {
    try {
      dump_graph_tensors(data, *options.dump_tensors_dir);
    } catch (const std::exception& e) {
      result.error_message = fmt::format("--dump-tensors: {}", e.what());
    }
  }
  for (auto& slot : providers) {
    auto& provider = *slot.provider;
    std::vector<EngineInfo> offered;
    try {
      offered = provider.engines(graph);
    } catch (const Unsupported& e) {
      add(skipped_row(&data, provider.name(), e.what()));
      continue;
    } catch (const std::exception& e) {
      auto row = skipped_row(&data, provider.name(), "");
      row.status = RowStatus::error;
      row.skip_reason.reset();
      row.error_message = fmt::format("engine enumeration failed: {}", e.what());
      add(std::move(row));
      continue;
    }
    const auto selection = select_engines(offered, options.engines);
    for (const auto& engine : selection.engines) add(run_row(data, provider, *slot.stream, engine, options));
    for (const auto& id : selection.missing) {
      auto row =
          skipped_row(&data, provider.name(), fmt::format("engine '{}' is not offered for this graph", id));
      row.engine_id = id;
      add(std::move(row));
    }
    if (offered.empty())
      add(skipped_row(&data, provider.name(), "the provider offers no engine for this graph"));
  }
}

}  // namespace

EngineSelection select_engines(const std::vector<EngineInfo>& offered,
                               const std::vector<std::string>& wanted) {
  EngineSelection selection;
  if (wanted.empty()) {
    selection.engines = offered;
    return selection;
  }
  for (const auto& w : wanted) {
    bool found = false;
    for (const auto& e : offered)
      if (e.id == w || e.name == w) {
        found = true;
        const bool already = std::any_of(selection.engines.begin(), selection.engines.end(),
                                         [&](const EngineInfo& s) { return s.id == e.id; });
        if (!already) selection.engines.push_back(e);
      }
    if (!found) selection.missing.push_back(w);
  }
  return selection;
}

SuiteResult run_suite(const std::vector<std::string>& graph_paths, const RunOptions& options,
                      RunObserver& observer) {
  auto providers = make_providers(options);
  SuiteResult suite;
  for (std::size_t i = 0; i < graph_paths.size(); ++i) {
    const auto& path = graph_paths[i];
    observer.graph_started(i, graph_paths.size(), path);
    GraphResult result;
    result.graph_path = path;
    result.graph_name = std::filesystem::path(path).stem().string();
    std::optional<Graph> graph;
    try {
      graph = read_graph_file(path);
      result.graph_name = graph->name;
      validate_graph(*graph, options.limits);
    } catch (const std::exception& e) {
      result.ok = false;
      result.error_message = e.what();
    }
    if (result.ok) {
      try {
        run_graph(result, *graph, providers, options, observer);
      } catch (const std::exception& e) {  // failures outside any row (fills, dumps)
        result.ok = false;
        result.error_message = fmt::format("graph {}: {}", result.graph_name, e.what());
      }
    }
    suite.graphs.push_back(std::move(result));
    observer.graph_finished(suite.graphs.back());
  }
  suite.complete = true;
  return suite;
}

}  // namespace dnnbench
