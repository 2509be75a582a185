#pragma once
// --plans-from FILE: instead of sweeping, re-time what a tuning file (report/tuning_db.hpp)
// stored for a row: the stored winner and the stored heuristic plan, each against today's
// heuristic plan, paired and interleaved like the oracle's final comparison. The row then says
// whether the tuned plan still wins, whether today's heuristic picks another plan, and whether
// either stored plan got slower than the file recorded. A stored plan today's library cannot
// build is `skipped` with the library's reason. The OOTB fields, status and exit code never change.
#include "providers/provider.hpp"
#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// Fills row.plans_from when the file holds a record for the row; never throws.
void retime_stored_plans(GraphData& data, Provider& provider, Stream& stream, const EngineInfo& engine,
                         const PlanSpec& heuristic, const RunOptions& options, RowResult& row);

// Today's time is slower than the stored one: the lower end of today's median CI is above the
// stored median's upper CI end (its median when no CI was stored) by more than `min_effect`
// (the caller passes the cross-run band, report/noise_model.hpp's cross_run_band).
bool got_slower(double today_ci_lo_ms, double stored_ci_hi_ms, double min_effect);

}  // namespace dnnbench
