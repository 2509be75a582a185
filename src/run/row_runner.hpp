#pragma once
// The row runner: one (graph, provider, engine) measurement. Whatever goes wrong becomes the
// row's status and message; nothing throws past it.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "providers/provider.hpp"
#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

class KeepWarm;  // run/keep_warm.hpp

// OOTB pass: heuristic plan -> build (timed) -> bind (poisoned outputs) -> checked run ->
// warm-up -> measure (stopping rule) -> re-check the outputs of the last execution.
RowResult run_row(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                  const RunOptions& options);

// Whether run_row_group groups the rows of this stream: a device-timed one (its samples are the
// device's, whose power state the gaps move), with --row-groups, not in a profiled child.
bool groups_rows(Stream& stream, const RunOptions& options);

// One row of a group: an engine of a provider, on that provider's stream.
struct GroupRow {
  Provider& provider;
  Stream& stream;
  const EngineInfo& engine;
};

// The rows of one graph, of one provider or of several on the same device. Where the first row's
// stream groups rows (groups_rows) they run in groups whose steps are taken together: every row's
// host work first (plan build, reference, checked run), then the warm-ups and measurements back
// to back, then the paced figures, re-checks and releases. The device is then never
// idle between two rows' sustained samples while the host builds or checks, so a row at the power
// cap finds the device where the last one left it instead of climbing back from an idle gap
// (docs/methodology.md, "Power regimes"). A group holds its rows' plans and buffers at once: at
// most 16 rows and a quarter of the free device memory. Each row's own figure, warm-up and checks
// are as run_row's. `starting(i)` is asked before rows[i] starts, in order: false starts no more
// rows (those started still finish). `running(i)` is told before each later step of a grouped row
// (its measurement, its re-check, its oracle), so that whoever records the row in progress (the
// journal, from which an isolated child's crash is charged to a row) names the one the device is
// running, not the group's last started. `finished(i, row)` gets each started row's result, in
// order.
//
// `keep_warm` (may be nullptr): stopped before any row measures; started after a group one of
// whose rows measured in the sustained regime held at the power cap (RunOptions::keep_warm), so
// the device stays there until the next group (run/keep_warm.hpp).
void run_row_group(GraphData& data, const std::vector<GroupRow>& rows, const RunOptions& options,
                   const std::function<bool(std::size_t)>& starting,
                   const std::function<void(std::size_t)>& running,
                   const std::function<void(std::size_t, RowResult)>& finished,
                   KeepWarm* keep_warm = nullptr);
// The fp32 math a row of this engine runs with ("strict" or "tf32"); nullopt when the graph has
// no fp32 tensor.
std::optional<std::string> fp32_math_of(const Graph& graph, const EngineInfo& engine);

// A row that never ran (provider cannot express the graph, unsupported op, ...).
RowResult skipped_row(const GraphData* data, std::string_view provider, std::string reason);

}  // namespace dnnbench
