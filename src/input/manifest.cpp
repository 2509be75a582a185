#include "input/manifest.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>

#include "graph/content_hash.hpp"
#include "graph/cost.hpp"
#include "graph/errors.hpp"
#include "graph/reader.hpp"
#include "graph/validate.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string file_name_for(std::size_t index, const std::string& name) {
  std::string safe;
  for (char c : name)
    safe += std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ? c : '_';
  if (safe.size() > 80) safe.resize(80);
  return fmt::format("{:04}_{}.json", index, safe);
}

// Reads the graph back as `run` will and returns its cost; throws InputError when it does not
// validate. No memory limit: import allocates nothing, and `run` checks the budget of its machine.
GraphCost checked_cost(const json& graph, const std::string& source) {
  Graph parsed = parse_graph_json(graph.dump(), source);
  parsed.source_path = source;
  validate_graph(parsed, ValidationLimits{std::numeric_limits<std::int64_t>::max()});
  return graph_cost(parsed);
}

// The model a source names: the manifest input it starts with (`resnet50.onnx:conv1` ->
// `resnet50`), else what precedes its first `:` (`nets.txt:4` -> `nets`).
std::string model_of_source(const std::string& source, const std::vector<std::string>& inputs) {
  for (const auto& input : inputs)
    if (source.size() > input.size() && source.compare(0, input.size(), input) == 0 &&
        source[input.size()] == ':')
      return fs::path(input).stem().string();
  return fs::path(source.substr(0, source.find(':'))).stem().string();
}

// Models of a graph entry without a `models` key: its count goes to its sources' models, one
// layer per source and the rest (a repeat count) to the first source's.
std::map<std::string, std::int64_t> models_from_sources(const std::vector<std::string>& sources,
                                                        std::int64_t count,
                                                        const std::vector<std::string>& inputs,
                                                        const std::string& fallback) {
  std::map<std::string, std::int64_t> models;
  if (sources.empty()) {
    models[fallback] = count;
    return models;
  }
  for (const auto& source : sources) ++models[model_of_source(source, inputs)];
  const auto listed = static_cast<std::int64_t>(sources.size());
  if (count > listed) models[model_of_source(sources.front(), inputs)] += count - listed;
  return models;
}

std::map<std::string, std::int64_t> read_models(const json& models, const std::string& file,
                                                const std::string& at) {
  if (!models.is_object())
    throw InputError(file, at, "expected an object of model -> {\"count\": N} (or model -> N)");
  std::map<std::string, std::int64_t> out;
  for (const auto& [name, value] : models.items()) {
    const json& count = value.is_object() && value.contains("count") ? value["count"] : value;
    if (!count.is_number_integer() || count.get<std::int64_t>() < 1)
      throw InputError(file, at + "." + name, "expected a positive count of the layer in this model");
    out[name] = count.get<std::int64_t>();
  }
  return out;
}

}  // namespace

Manifest build_manifest(const std::vector<std::pair<std::string, ImportResult>>& results) {
  Manifest manifest;
  std::map<std::string, std::size_t> by_content;
  for (const auto& [input, result] : results) {
    manifest.inputs.push_back(input);
    for (const auto& imported : result.graphs) {
      const auto key = canonical_graph_content(imported.graph.dump());
      if (const auto it = by_content.find(*key); it != by_content.end()) {
        auto& entry = manifest.graphs[it->second];
        entry.count += imported.count;
        entry.sources.push_back(imported.source);
        continue;
      }
      GraphCost cost;
      try {
        cost = checked_cost(imported.graph, imported.source);
      } catch (const std::exception& e) {
        std::string op =
            imported.graph["nodes"].empty() ? "" : imported.graph["nodes"][0]["type"].get<std::string>();
        manifest.not_imported.push_back(
            {imported.source, op, std::string("the graph does not validate: ") + e.what()});
        continue;
      }
      ManifestGraph entry;
      entry.name = imported.graph["name"].get<std::string>();
      entry.graph = imported.graph;
      entry.count = imported.count;
      entry.sources = {imported.source};
      entry.flops = cost.flops;
      for (const auto& node : imported.graph["nodes"]) entry.ops.push_back(node["type"].get<std::string>());
      entry.file = file_name_for(manifest.graphs.size() + 1, entry.name);
      by_content.emplace(*key, manifest.graphs.size());
      manifest.graphs.push_back(std::move(entry));
    }
    for (const auto& skipped : result.not_imported) manifest.not_imported.push_back(skipped);
  }
  return manifest;
}

json manifest_to_json(const Manifest& m) {
  json graphs = json::array();
  std::int64_t layers = 0;
  double flops = 0;
  for (const auto& g : m.graphs) {
    graphs.push_back(json{{"file", g.file},
                          {"name", g.name},
                          {"count", g.count},
                          {"flops", g.flops},
                          {"total_flops", g.flops * static_cast<double>(g.count)},
                          {"ops", g.ops},
                          {"sources", g.sources}});
    layers += g.count;
    flops += g.flops * static_cast<double>(g.count);
  }
  json skipped = json::array();
  for (const auto& s : m.not_imported)
    skipped.push_back(json{{"source", s.source}, {"op", s.op}, {"reason", s.reason}});
  return json{{"format", kManifestFormat},
              {"version", 1},
              {"inputs", m.inputs},
              {"totals",
               {{"graphs", m.graphs.size()},
                {"layers", layers},
                {"flops", flops},
                {"not_imported", m.not_imported.size()}}},
              {"graphs", std::move(graphs)},
              {"not_imported", std::move(skipped)}};
}

void write_manifest(const fs::path& dir, const Manifest& manifest) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(dir.string(), "", "cannot create the output folder: " + ec.message());
  const auto write = [](const fs::path& path, const json& value) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << value.dump(2) << "\n";
    out.close();
    if (!out) throw InputError(path.string(), "", "cannot write the file");
  };
  for (const auto& g : manifest.graphs) write(dir / g.file, g.graph);
  write(dir / std::string(kManifestFileName), manifest_to_json(manifest));
}

std::optional<std::vector<ManifestEntry>> read_manifest(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  const auto doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object() || doc.value("format", "") != kManifestFormat) return std::nullopt;
  const std::string source = path.string();
  if (!doc.contains("graphs") || !doc["graphs"].is_array())
    throw InputError(source, "graphs", "expected an array of graph entries");
  std::vector<std::string> inputs;
  if (doc.contains("inputs") && doc["inputs"].is_array())
    for (const auto& input : doc["inputs"])
      if (input.is_string()) inputs.push_back(input.get<std::string>());
  const std::string folder_model = path.parent_path().filename().string();
  std::vector<ManifestEntry> entries;
  for (std::size_t k = 0; k < doc["graphs"].size(); ++k) {
    const auto& g = doc["graphs"][k];
    const std::string at = fmt::format("graphs[{}]", k);
    if (!g.is_object() || !g.contains("file") || !g["file"].is_string())
      throw InputError(source, at + ".file", "expected the graph's file name, a string");
    ManifestEntry entry;
    entry.file = path.parent_path() / g["file"].get<std::string>();
    entry.count = g.value("count", std::int64_t{1});
    std::vector<std::string> sources;
    if (g.contains("sources") && g["sources"].is_array())
      for (const auto& s : g["sources"])
        if (s.is_string()) sources.push_back(s.get<std::string>());
    entry.source = sources.empty() ? entry.file.string() : sources.front();
    entry.models = g.contains("models") ? read_models(g["models"], source, at + ".models")
                                        : models_from_sources(sources, entry.count, inputs, folder_model);
    entries.push_back(std::move(entry));
  }
  return entries;
}

}  // namespace dnnbench
