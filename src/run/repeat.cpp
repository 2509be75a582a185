#include "run/repeat.hpp"

#include "env/calibration.hpp"
#include "env/gpu_clocks.hpp"
#include "session/plan_session.hpp"

namespace dnnbench {

RepeatResult measure_repeats(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& plan,
                             const RunOptions& options, double first_median_ms) {
  RepeatResult out;
  out.medians_ms.push_back(first_median_ms);
  for (std::int64_t i = 1; i < options.repeat; ++i) {
    // Timed as the row's own session (row_runner.cpp); never checked, so no tolerances to set.
    PlanSession session(data, provider, stream, plan);
    session.set_measure_options(options.measure);
    session.set_clock_source(gpu_clock_source(provider));
    session.warm_up_until_steady(options.warmup);
    auto rule = make_stopping_rule(options, session);
    out.medians_ms.push_back(session.measure(*rule, false).primary().median);
  }
  out.spread = spread_of(out.medians_ms);
  return out;
}

}  // namespace dnnbench
