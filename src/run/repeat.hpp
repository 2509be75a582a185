#pragma once
// --repeat N under MPI (session/run_options.hpp): a row's plan measured again in fresh plan
// instances, so that the row carries its own run-to-run noise (RowResult::repeat) for `compare`
// (report/noise_model.hpp). Outside MPI `run --repeat N` runs the suite as N passes in fresh
// processes instead (isolate/repeat_passes.hpp): instances in one process, measured right after each
// other, share every slow window of the machine, which is what moves a number between runs on a
// VM. Each instance has a new build, new buffers (new addresses, TLB
// and cache state) and its own warm-up and stopping rule.
#include "providers/provider.hpp"
#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/run_options.hpp"

namespace dnnbench {

// The row's own median first (`first_median_ms`), then options.repeat - 1 more instances.
RepeatResult measure_repeats(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& plan,
                             const RunOptions& options, double first_median_ms);

}  // namespace dnnbench
