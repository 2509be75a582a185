#pragma once
// The oracle pass (--oracle): sweep an engine's plan space, pick the measured winner, re-time
// the heuristic plan and the winner paired and interleaved, validate the winner, report the gap.
#include <vector>

#include "providers/provider.hpp"
#include "report/results.hpp"
#include "run/graph_data.hpp"
#include "run/run_options.hpp"

namespace dnnbench {

// Fills row.oracle / row.oracle_delta, or row.oracle_error ("Type: message"); never throws and
// never touches the row's OOTB fields.
void run_oracle(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                const PlanSpec& heuristic, const RunOptions& options, RowResult& row);

// Graph regret for one provider: its first engine's heuristic plan (the library's overall pick)
// against the fastest plan any of its rows' oracles measured, compared paired. nullopt when the
// provider has no successful row with an oracle result.
std::optional<GraphRegret> graph_regret(GraphData& data, Provider& provider, Stream& stream,
                                        const std::vector<const RowResult*>& rows, const RunOptions& options);

// Paired, interleaved re-timing of two plans (both built fresh, bound to their own buffers,
// warmed up). Exposed for tests.
PairedDelta paired_delta(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& baseline,
                         const PlanSpec& other, const RunOptions& options,
                         std::optional<Stats>* baseline_stats, std::optional<Stats>* other_stats);

// Warnings (printed once per run) about settings that make oracle results less trustworthy.
std::vector<std::string> oracle_warnings(const RunOptions& options);

// "Type: message" for an exception.
std::string describe_exception(const std::exception& e);

}  // namespace dnnbench
