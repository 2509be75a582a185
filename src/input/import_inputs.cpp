#include "input/import_inputs.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "input/manifest.hpp"

namespace dnnbench {
namespace {

namespace fs = std::filesystem;

void append(GraphInputs& to, GraphInputs&& from) {
  for (auto& input : from.inputs) to.inputs.push_back(std::move(input));
  for (auto& folder : from.extraction_folders) to.extraction_folders.push_back(std::move(folder));
}

// The paths results will show: the source, with the graph's name when one source line made
// several graphs (a MIOpenDriver line with -F 0 has three passes).
std::vector<std::string> input_paths(const Manifest& manifest) {
  std::map<std::string, int> uses;
  for (const auto& g : manifest.graphs) ++uses[g.sources.front()];
  std::vector<std::string> paths;
  for (const auto& g : manifest.graphs)
    paths.push_back(uses[g.sources.front()] > 1 ? fmt::format("{} ({})", g.sources.front(), g.name)
                                                : g.sources.front());
  return paths;
}

using Counts = std::map<std::string, std::int64_t>;
using Models = std::map<std::string, std::map<std::string, std::int64_t>>;

void add_imported(GraphInputs& result, const std::string& part, SourceFormat format,
                  const ImportOptions& options, Counts& counts, Models& models) {
  Manifest manifest;
  try {
    manifest = build_manifest({{part, import_source(part, format, options)}});
  } catch (const std::exception& e) {
    result.inputs.push_back({part, part, std::string(e.what())});
    return;
  }
  auto folder = std::make_unique<ScopedTempDir>("dnnbench-import");
  try {
    write_manifest(folder->path(), manifest);
  } catch (const std::exception& e) {
    result.inputs.push_back({part, part, std::string(e.what())});
    return;
  }
  const auto paths = input_paths(manifest);
  for (std::size_t k = 0; k < manifest.graphs.size(); ++k) {
    result.inputs.push_back({paths[k], folder->path() / manifest.graphs[k].file, std::nullopt});
    counts[paths[k]] += manifest.graphs[k].count;
    models[paths[k]][fs::path(part).stem().string()] += manifest.graphs[k].count;
  }
  if (manifest.graphs.empty())
    result.inputs.push_back(
        {part, part,
         fmt::format("{}: nothing in it could be imported ({} item(s) not imported; `dnnbench "
                     "import` lists them with the reasons)",
                     part, manifest.not_imported.size())});
  result.extraction_folders.push_back(std::move(folder));
}

// A manifest's entries with the names results give them: the first source, and the file too for
// graphs whose first source is the same (a layer's forward and backward passes), so that results
// and counts keep them apart.
std::vector<std::pair<std::string, ManifestEntry>> named_entries(const std::vector<ManifestEntry>& entries) {
  std::map<std::string, int> uses;
  for (const auto& entry : entries) ++uses[entry.source];
  std::vector<std::pair<std::string, ManifestEntry>> named;
  for (const auto& entry : entries)
    named.emplace_back(uses[entry.source] > 1
                           ? fmt::format("{} ({})", entry.source, entry.file.stem().string())
                           : entry.source,
                       entry);
  return named;
}

void add_entry(GraphInputs& result, const std::string& name, const ManifestEntry& entry, Counts& counts,
               Models& models) {
  result.inputs.push_back({name, entry.file, std::nullopt});
  counts[name] += entry.count;
  for (const auto& [model, count] : entry.models) models[name][model] += count;
}

bool add_manifest(GraphInputs& result, const fs::path& path, Counts& counts, Models& models) {
  std::optional<std::vector<ManifestEntry>> entries;
  try {
    entries = read_manifest(path);
  } catch (const std::exception& e) {
    result.inputs.push_back({path.string(), path, std::string(e.what())});
    return true;
  }
  if (!entries) return false;
  for (const auto& [name, entry] : named_entries(*entries)) add_entry(result, name, entry, counts, models);
  return true;
}

// A graph file named on its own that its folder's manifest lists (`-g` with some files of
// graphs/workloads): it keeps the name, count and models the whole folder would give it, so a
// subset of a collection still has its workload report. Manifests are read once per folder; one
// that cannot be read leaves its files to be plain graph files.
class ManifestLookup {
 public:
  const std::pair<std::string, ManifestEntry>* find(const fs::path& file) {
    std::error_code ec;
    const auto canonical = fs::weakly_canonical(file, ec);
    if (ec) return nullptr;
    auto it = by_folder_.find(canonical.parent_path());
    if (it == by_folder_.end())
      it = by_folder_.emplace(canonical.parent_path(), read(canonical.parent_path())).first;
    const auto at = it->second.find(canonical);
    return at == it->second.end() ? nullptr : &at->second;
  }

 private:
  static std::map<fs::path, std::pair<std::string, ManifestEntry>> read(const fs::path& folder) {
    std::map<fs::path, std::pair<std::string, ManifestEntry>> by_file;
    std::error_code ec;
    const auto path = folder / std::string(kManifestFileName);
    if (!fs::is_regular_file(path, ec)) return by_file;
    try {
      if (const auto entries = read_manifest(path))
        for (auto& named : named_entries(*entries))
          by_file.emplace(fs::weakly_canonical(named.second.file, ec), std::move(named));
    } catch (const std::exception&) {  // not a manifest of ours: its files are plain graphs
    }
    return by_file;
  }

  std::map<fs::path, std::map<fs::path, std::pair<std::string, ManifestEntry>>> by_folder_;
};

}  // namespace

GraphInputs expand_inputs(const std::vector<std::string>& arguments, const ArchiveLimits& limits,
                          const ImportOptions& options, Counts* layer_counts, Models* layer_models) {
  GraphInputs result;
  Counts counts;
  Models models;
  ManifestLookup manifests;
  for (const auto& argument : arguments) {
    std::stringstream parts(argument);
    std::string part;
    while (std::getline(parts, part, ',')) {
      if (part.empty()) continue;
      std::error_code ec;
      const fs::path path(part);
      if (fs::is_directory(path, ec) && fs::is_regular_file(path / std::string(kManifestFileName), ec) &&
          add_manifest(result, path / std::string(kManifestFileName), counts, models))
        continue;
      if (path.filename() == std::string(kManifestFileName) && add_manifest(result, path, counts, models))
        continue;
      if (const auto format = detect_source_format(path)) {
        add_imported(result, part, *format, options, counts, models);
        continue;
      }
      if (path.extension() == ".json" && fs::is_regular_file(path, ec))
        if (const auto* listed = manifests.find(path)) {
          add_entry(result, listed->first, listed->second, counts, models);
          continue;
        }
      append(result, expand_graph_inputs({part}, limits));
    }
  }
  if (layer_counts) *layer_counts = std::move(counts);
  if (layer_models) *layer_models = std::move(models);
  return result;
}

}  // namespace dnnbench
