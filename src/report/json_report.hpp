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
// Knob choices as an array of [name, value] pairs: their order is part of a plan's name.
nlohmann::json knob_list_to_json(const std::vector<std::pair<std::string, std::string>>& knobs);
nlohmann::json row_to_json(const RowResult& row);
nlohmann::json graph_to_json(const GraphResult& graph);
nlohmann::json suite_to_json(const SuiteResult& suite);
// Writes atomically: a temporary file beside `path`, then rename, so a reader never sees a
// half-written file. Creates no folders. Throws std::runtime_error naming the path.
void write_json_file(const std::filesystem::path& path, const nlohmann::json& document);

// Throws std::runtime_error saying why write_json_file(path) (or a journal at `path`) could not
// write there: `path` is a folder, its folder is missing or not a folder, or a file cannot be
// created beside it. Checked before a run, so that a long run never ends unable to save.
// Leaves nothing behind (the probe file it creates is removed).
void check_writable_file(const std::filesystem::path& path);

}  // namespace dnnbench
