#pragma once
// Command-line flags of the measurement method (cache mode, latency, batching, steady-state
// warm-up), shared by `run` and `calibrate`.
#include <CLI/CLI.hpp>

#include "run/run_options.hpp"

namespace dnnbench {

void add_measure_flags(CLI::App& app, MeasureOptions& options);

}  // namespace dnnbench
