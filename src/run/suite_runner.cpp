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
#include "run/graph_loader.hpp"
#include "run/oracle.hpp"
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
    auto provider = make_provider(name, options.provider_settings);
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
  GraphData data(graph, options.seed, options.gpu_reference);
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
    const auto wanted = wanted_engines(options, provider.name());
    auto selection = select_engines(offered, wanted.ids, options.skip_engines);
    if (options.max_engines > 0 && selection.engines.size() > static_cast<std::size_t>(options.max_engines))
      selection.engines.resize(static_cast<std::size_t>(options.max_engines));
    const auto first_row = result.results.size();
    for (const auto& engine : selection.engines) {
      auto row = run_row(data, provider, *slot.stream, engine, options);
      row.engine_label = wanted.label_of(engine);
      add(std::move(row));
    }
    if (options.oracle.enabled && !options.oracle.aa_self_check) {
      std::vector<const RowResult*> rows;
      for (auto i = first_row; i < result.results.size(); ++i) rows.push_back(&result.results[i]);
      if (auto regret = graph_regret(data, provider, *slot.stream, rows, options))
        result.regret.push_back(std::move(*regret));
    }
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

WantedEngines wanted_engines(const RunOptions& options, std::string_view provider) {
  WantedEngines wanted;
  for (const auto& choice : options.engine_matrix)
    if (choice.provider == provider) {
      wanted.ids.push_back(choice.id);
      wanted.labels.push_back(choice.label);
    }
  if (wanted.ids.empty()) wanted.ids = options.engines;
  return wanted;
}

std::optional<std::string> WantedEngines::label_of(const EngineInfo& engine) const {
  for (std::size_t k = 0; k < ids.size() && k < labels.size(); ++k)
    if (labels[k] && (ids[k] == engine.id || ids[k] == engine.name)) return labels[k];
  return std::nullopt;
}

EngineSelection select_engines(const std::vector<EngineInfo>& offered, const std::vector<std::string>& wanted,
                               const std::vector<std::string>& skipped) {
  EngineSelection selection;
  const auto is_skipped = [&](const EngineInfo& e) {
    return std::any_of(skipped.begin(), skipped.end(),
                       [&](const std::string& s) { return s == e.id || s == e.name; });
  };
  if (wanted.empty()) {
    for (const auto& e : offered)
      if (!is_skipped(e)) selection.engines.push_back(e);
    return selection;
  }
  for (const auto& w : wanted) {
    bool found = false;
    for (const auto& e : offered)
      if (e.id == w || e.name == w) {
        found = true;
        if (is_skipped(e)) continue;
        const bool already = std::any_of(selection.engines.begin(), selection.engines.end(),
                                         [&](const EngineInfo& s) { return s.id == e.id; });
        if (!already) selection.engines.push_back(e);
      }
    if (!found) selection.missing.push_back(w);
  }
  return selection;
}

SuiteResult run_suite(const std::vector<GraphInput>& inputs, const RunOptions& options,
                      RunObserver& observer) {
  auto providers = make_providers(options);
  SuiteResult suite;
  GraphLoader loader(options);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    observer.graph_started(i, inputs.size(), inputs[i].path);
    GraphResult result;
    const auto graph = loader.load(inputs[i], result);
    if (graph && !options.dry_run) {
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
