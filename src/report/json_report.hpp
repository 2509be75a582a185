#pragma once
// JSON results (schema in docs/results.schema.json). Every documented key is always present,
// null when empty.
#include <filesystem>

#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

inline constexpr int kResultsSchemaVersion = 1;

nlohmann::json stats_to_json(const std::optional<Stats>& stats);
nlohmann::json delta_to_json(const std::optional<PairedDelta>& delta);
nlohmann::json oracle_to_json(const std::optional<OracleResult>& oracle);
nlohmann::json row_to_json(const RowResult& row);
nlohmann::json graph_to_json(const GraphResult& graph);
nlohmann::json suite_to_json(const SuiteResult& suite);
// Writes atomically: a temporary file beside `path`, then rename, so a reader never sees a
// half-written file. Throws std::runtime_error naming the path.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& document);

}  // namespace dnnbench
