#include "report/merge.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "report/json_read.hpp"
#include "report/json_report.hpp"

namespace dnnbench {
namespace {

using nlohmann::json;

const json& field(const json& object, const char* key) {
  static const json null;
  if (!object.is_object()) return null;
  const auto it = object.find(key);
  return it == object.end() ? null : *it;
}

}  // namespace

MergeOutcome merge_results(const std::vector<MergeInput>& inputs) {
  MergeOutcome outcome;
  struct Entry {
    GraphResult graph;
    std::set<std::string> rows;
    double order = 0;  // input index where known, else after all known ones, in order met
  };
  std::vector<Entry> entries;
  std::map<std::string, std::size_t> by_path;
  bool complete = !inputs.empty();
  std::optional<int> shard_count;
  std::set<int> shards_seen;
  json merged_from = json::array();
  double next_unknown = 1e12;
  for (const auto& input : inputs) {
    const auto& doc = input.results;
    if (!doc.is_object() || !doc.contains("graphs") || !doc.contains("schema_version"))
      throw std::runtime_error(
          fmt::format("{}: not dnnbench results (no schema_version and graphs)", input.path));
    if (doc.at("schema_version") != kResultsSchemaVersion)
      throw std::runtime_error(fmt::format("{}: results schema version {} (this dnnbench reads {})",
                                           input.path, doc.at("schema_version").dump(),
                                           kResultsSchemaVersion));
    if (!doc.value("complete", false)) {
      complete = false;
      outcome.warnings.push_back(fmt::format("{} is incomplete (complete: false)", input.path));
    }
    const auto& meta = field(doc, "metadata");
    const auto& shard = field(meta, "shard");
    std::vector<std::size_t> indices;
    if (shard.is_object()) {
      const int count = shard.at("count").get<int>();
      if (shard_count && *shard_count != count) {
        outcome.warnings.push_back(fmt::format("{} is shard {}/{}, another file is of a split into {}",
                                               input.path, shard.at("index").get<int>(), count,
                                               *shard_count));
        complete = false;
      }
      shard_count = count;
      shards_seen.insert(shard.at("index").get<int>());
      indices = shard.at("input_indices").get<std::vector<std::size_t>>();
    }
    merged_from.push_back({{"path", input.path},
                           {"host", field(field(meta, "host"), "hostname")},
                           {"shard", shard},
                           {"providers", field(meta, "providers")},
                           {"complete", doc.value("complete", false)}});
    const auto& graphs = doc.at("graphs");
    for (std::size_t g = 0; g < graphs.size(); ++g) {
      GraphResult graph;
      try {
        graph = graph_from_json(graphs[g]);
      } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("{}: graphs[{}]: {}", input.path, g, e.what()));
      }
      const auto known = by_path.find(graph.graph_path);
      if (known == by_path.end()) {
        Entry entry;
        entry.order = g < indices.size() ? static_cast<double>(indices[g]) : next_unknown++;
        for (const auto& row : graph.results) entry.rows.insert(row_key(row));
        entry.graph = std::move(graph);
        by_path.emplace(entry.graph.graph_path, entries.size());
        entries.push_back(std::move(entry));
        continue;
      }
      auto& entry = entries[known->second];
      for (auto& row : graph.results) {
        if (!entry.rows.insert(row_key(row)).second) {
          ++outcome.rows_dropped;
          continue;
        }
        entry.graph.results.push_back(std::move(row));
      }
    }
  }
  if (shard_count) {
    std::vector<int> missing;
    for (int s = 1; s <= *shard_count; ++s)
      if (!shards_seen.count(s)) missing.push_back(s);
    if (!missing.empty()) {
      complete = false;
      outcome.warnings.push_back(fmt::format("shard{} {} of {} missing", missing.size() == 1 ? "" : "s",
                                             fmt::join(missing, ", "), *shard_count));
    }
  }
  if (outcome.rows_dropped > 0)
    outcome.warnings.push_back(fmt::format("{} row{} given by more than one file: the first file's kept",
                                           outcome.rows_dropped, outcome.rows_dropped == 1 ? "" : "s"));
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.order < b.order; });
  for (auto& entry : entries) outcome.suite.graphs.push_back(std::move(entry.graph));
  outcome.suite.complete = complete;
  json metadata = inputs.empty() ? json::object() : field(inputs.front().results, "metadata");
  if (!metadata.is_object()) metadata = json::object();
  metadata.erase("shard");
  metadata["merged_from"] = merged_from;
  metadata["merge_warnings"] = outcome.warnings;
  outcome.suite.metadata = metadata;
  return outcome;
}

}  // namespace dnnbench
