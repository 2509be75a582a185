#pragma once
// The row runner: one (graph, provider, engine) measurement. Whatever goes wrong becomes the
// row's status and message; nothing throws past it.
#include <optional>
#include <string>

#include "providers/provider.hpp"
#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// OOTB pass: heuristic plan -> build (timed) -> bind (poisoned outputs) -> checked run ->
// warm-up -> measure (stopping rule) -> re-check the outputs of the last execution.
RowResult run_row(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                  const RunOptions& options);

// The fp32 math a row of this engine runs with ("strict" or "tf32"); nullopt when the graph has
// no fp32 tensor.
std::optional<std::string> fp32_math_of(const Graph& graph, const EngineInfo& engine);

// A row that never ran (provider cannot express the graph, unsupported op, ...).
RowResult skipped_row(const GraphData* data, std::string_view provider, std::string reason);

}  // namespace dnnbench
