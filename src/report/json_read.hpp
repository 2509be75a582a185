#pragma once
// Reads results back from their JSON (report/json_report.hpp), for the journal and --resume.
// The round trip is exact: writing what was read gives the same JSON. Figures the writer derives
// (`passed`, throughputs, a graph's `status`) are not read; non-finite numbers, written as null,
// read back as NaN. Throws std::runtime_error naming the key that is missing or of the wrong type.
#include <nlohmann/json.hpp>

#include "report/results.hpp"

namespace dnnbench {

RowResult row_from_json(const nlohmann::json& row);
GraphResult graph_from_json(const nlohmann::json& graph);
// A whole results file (`run -o`); keys added to schema version 1 later (content_hash, data_type,
// ops, peak, layer_models) may be absent. Errors name the graph's index.
SuiteResult suite_from_json(const nlohmann::json& results);
// Reads and parses a results file; errors name the path.
SuiteResult read_results_file(const std::string& path);
std::optional<PlanRef> plan_ref_from_json(const nlohmann::json& plan);
// Knob choices written as an array of [name, value] pairs (knob_list_to_json); null reads as none.
std::vector<std::pair<std::string, std::string>> read_knob_list(const nlohmann::json& knobs);
nlohmann::json plan_ref_to_json(const std::optional<PlanRef>& plan);

}  // namespace dnnbench
