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
std::optional<PlanRef> plan_ref_from_json(const nlohmann::json& plan);
nlohmann::json plan_ref_to_json(const std::optional<PlanRef>& plan);

}  // namespace dnnbench
