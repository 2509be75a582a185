#pragma once
// --repeat N (run/run_options.hpp): a row's plan measured again in fresh plan instances, so that
// the row carries its own run-to-run noise (RowResult::repeat) for `compare`
// (report/noise_model.hpp). Fresh instances in one process, not fresh processes: each has a new
// build, new buffers (new addresses, TLB and cache state) and its own warm-up and stopping rule,
// which is most of what moves a number between processes, for a fraction of a process start per
// row (a oneDNN or cuDNN process start costs 0.3-2 s).
#include "providers/provider.hpp"
#include "report/results.hpp"
#include "run/graph_data.hpp"
#include "run/run_options.hpp"

namespace dnnbench {

// The row's own median first (`first_median_ms`), then options.repeat - 1 more instances.
RepeatResult measure_repeats(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& plan,
                             const RunOptions& options, double first_median_ms);

}  // namespace dnnbench
