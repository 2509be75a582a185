#pragma once
// The oracle pass (--oracle): sweep an engine's plan space, pick the measured winner, re-time
// the heuristic plan and the winner paired and interleaved, validate the winner, report the gap.
#include <vector>

#include "providers/provider.hpp"
#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/plan_session.hpp"
#include "session/run_options.hpp"

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

// Which of the two plans' instances is built (and so placed in memory) first.
enum class BuildOrder { baseline_first, other_first };

// Paired, interleaved re-timing of two plans (both built fresh, bound to their own buffers,
// warmed up; the control instance last). Exposed for tests.
PairedDelta paired_delta(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& baseline,
                         const PlanSpec& other, const RunOptions& options,
                         std::optional<Stats>* baseline_stats, std::optional<Stats>* other_stats,
                         BuildOrder order = BuildOrder::baseline_first);

// Times `a` (the baseline), `b` and `control` (a second instance of the baseline's plan, its own
// buffers) in interleaved rounds; `b`'s gain is significant only when it clears what `control`
// gains on `a` by chance. The oracle's final comparison; --plans-from uses it too.
PairedDelta paired_between(PlanSession& a, PlanSession& b, PlanSession& control, Stream& stream,
                           const RunOptions& options, std::optional<Stats>* baseline_stats,
                           std::optional<Stats>* other_stats);

// A significant `delta` must show again between fresh instances of both plans: instances of one
// plan can differ steadily by more than one control instance shows (8% on a 37 us grouped 3-D
// convolution in the H200's A/A), while a real difference between
// plans stays with new instances. `again` times fresh instances; `delta` keeps its figures and is
// significant only when the replication is significant in the same direction.
void replicate_if_significant(PairedDelta& delta, const std::function<PairedDelta()>& again);

// replicate_if_significant with fresh instances of `baseline` and `other` built in the order
// opposite to the first comparison's (`first`): buffers are allocated in build order, so a first comparison's
// placement repeats when the order does. On the H200 a second instance of one plan (a 35 us dgrad) ran 1.9%
// slower than the first and, rebuilt in the same order, 1.4% slower again. A
// difference that goes with the build order flips; one that goes with the plans stays.
void replicate_with_fresh_instances(PairedDelta& delta, GraphData& data, Provider& provider, Stream& stream,
                                    const PlanSpec& baseline, const PlanSpec& other,
                                    const RunOptions& options, BuildOrder first = BuildOrder::baseline_first);

// A plan's knob choices as (name, value) pairs, in order, and back.
std::vector<std::pair<std::string, std::string>> knob_pairs(const PlanSpec& spec);
PlanSpec plan_spec_of(const std::string& engine_id,
                      const std::vector<std::pair<std::string, std::string>>& knobs);

// Warnings (printed once per run) about settings that make oracle results less trustworthy.
std::vector<std::string> oracle_warnings(const RunOptions& options);

// "Type: message" for an exception.
std::string describe_exception(const std::exception& e);

}  // namespace dnnbench
