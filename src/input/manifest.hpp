#pragma once
// The result of an import: one graph per distinct layer (identical layers of every source
// counted once), each with its sources, count and FLOPs, and what was not imported; written as
// graph JSON files plus DIR/manifest.json (docs/import.md).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "input/import.hpp"

namespace dnnbench {

struct ManifestGraph {
  std::string file;  // file name inside the output folder
  std::string name;  // the graph's name
  nlohmann::json graph;
  std::int64_t count = 0;            // layers this graph stands for, over every source
  std::vector<std::string> sources;  // where each of them came from
  double flops = 0;                  // of one execution (graph/cost.hpp)
  std::vector<std::string> ops;      // node types
};

struct Manifest {
  std::vector<std::string> inputs;
  std::vector<ManifestGraph> graphs;
  std::vector<NotImported> not_imported;
};

// Merges the converters' results in order. Every graph is read back with dnnbench's own reader
// and validated; one that does not validate is listed as not imported with the reason.
Manifest build_manifest(const std::vector<std::pair<std::string, ImportResult>>& results);

nlohmann::json manifest_to_json(const Manifest& manifest);
// Writes the graph files and manifest.json into `dir` (created when missing).
void write_manifest(const std::filesystem::path& dir, const Manifest& manifest);

// The name of the manifest file in an import folder.
inline constexpr std::string_view kManifestFileName = "manifest.json";
// The value of the manifest's "format" key, by which run -g recognises one.
inline constexpr std::string_view kManifestFormat = "dnnbench-import-manifest";

// A manifest read back: its graphs' files (absolute or relative to the manifest) with their
// sources and counts. nullopt when `path` is not a dnnbench import manifest. Throws InputError
// for a manifest that is malformed.
struct ManifestEntry {
  std::filesystem::path file;
  std::string source;  // the first source, as results name it
  std::int64_t count = 1;
  // The models the graph's layers come from, model -> occurrences: a collection's `models` key
  // (graphs/workloads, docs/import.md), else the stem of the input each source names
  // (`resnet50.onnx:conv1` is model `resnet50`).
  std::map<std::string, std::int64_t> models;
};
std::optional<std::vector<ManifestEntry>> read_manifest(const std::filesystem::path& path);

}  // namespace dnnbench
