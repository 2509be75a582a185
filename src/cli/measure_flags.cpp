#include "cli/measure_flags.hpp"

#include <map>
#include <string>

namespace dnnbench {
namespace {

// CLI11 fills a std::optional only through a callback; --batch 0 is refused by the check.
void add_batch_flag(CLI::App& app, MeasureOptions& options) {
  app.add_option_function<std::int64_t>(
         "--batch", [&options](const std::int64_t& n) { options.batch = n; },
         "Executions per timed sample, forced (1 = single-run timing; default: automatic, ~10 ms batches on "
         "GPU providers)")
      ->check(CLI::PositiveNumber);
}

}  // namespace

void add_measure_flags(CLI::App& app, MeasureOptions& options) {
  const std::map<std::string, CacheMode> modes{{"hot", CacheMode::hot}, {"cold", CacheMode::cold}};
  app.add_option("--cache-mode", options.cache_mode,
                 "hot: caches keep what the last execution left (default); cold: flush the GPU L2 / CPU "
                 "last-level cache before every timed execution, outside the timed region (no batching)")
      ->transform(CLI::CheckedTransformer(modes, CLI::ignore_case));
  app.add_flag("--per-execution-events", options.per_execution_events,
               "GPU: time each execution of a batch with its own event pair (a sample is their median), "
               "to check batched timing against single-run timing at the same clocks");
  app.add_flag(
      "!--no-graph-replay", options.graph_replay,
      "GPU: time throughput batches as back-to-back launches instead of one CUDA-graph replay per "
      "sample (the default replays, so the host's launch cost cannot show in a short kernel's time)");
  app.add_flag("!--no-kernel-activity", options.kernel_activity,
               "GPU: do not record the kernels a row ran (CUPTI; default: one extra sample after the "
               "measurement lists them with their durations)");
  app.add_flag("--latency", options.latency,
               "Time isolated executions after an idle gap (latency of one call) instead of steady-state "
               "throughput in a loop (no batching)");
  app.add_option("--latency-idle-ms", options.latency_idle_ms,
                 "--latency: idle milliseconds before each execution")
      ->check(CLI::NonNegativeNumber);
  add_batch_flag(app, options);
  app.add_option(
         "--warmup-max-ms", options.steady.max_ms,
         "Warm up (after --warmup executions) until timings and clocks are steady, for at most this many "
         "milliseconds (0: no steady-state warm-up)")
      ->check(CLI::NonNegativeNumber);
  app.add_option(
         "--clock-tolerance", options.clock_tolerance,
         "Flag a row clock_unstable when the GPU's SM clock moved by more than this fraction while it was "
         "timed")
      ->check(CLI::Range(0.0, 1.0));
}

}  // namespace dnnbench
