#pragma once
// PlanSession: a row's plan, checked and then measured. It puts together a plan instance (build,
// bind, execute: session/plan_instance.hpp), the output check (session/output_judge.hpp) and a
// sampler chosen once from the measure options (session/sampler.hpp), and holds the one
// warm-up/measurement loop every timing method goes through: steady-state warm-up, the stopping
// rule over placements, the other regime, the kernel record. The OOTB pass, the oracle's sweep
// and its paired re-timing all go through it, so every plan is built, bound, checked and timed
// the same way.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "measure/clock_sampler.hpp"
#include "measure/steady_state.hpp"
#include "measure/stopping_rule.hpp"
#include "providers/provider.hpp"
#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/measurement.hpp"
#include "session/output_judge.hpp"
#include "session/plan_buffers.hpp"
#include "session/plan_instance.hpp"
#include "session/run_options.hpp"
#include "session/sampler.hpp"

namespace dnnbench {

class PlanSession {
 public:
  // Builds (timed: build_ms) and binds (timed: bind_ms) the plan; outputs judged by the default
  // rules, samples hot with steady-state throughput, one placement. Throws Unsupported or
  // std::exception from the provider.
  PlanSession(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& spec);
  PlanSession(const PlanSession&) = delete;
  PlanSession& operator=(const PlanSession&) = delete;

  // How outputs are judged (OutputRules::of: the engine's notes and the run's options).
  void judge_outputs(const OutputRules& rules) {
    judge_ = OutputJudge(instance_.data(), device_kind(), rules);
  }
  // How samples are taken (cache mode, latency, forced batch, regime, placements); chooses the
  // sampler.
  void set_measure_options(const MeasureOptions& options);
  // GPU sensors to sample while measuring (nullptr: none); must outlive the session.
  void set_clock_source(ClockSource* source) { clock_source_ = source; }
  // The power regime of sample() and measure() (the oracle's comparisons: set_measure_options
  // sets it for the OOTB pass).
  void set_regime(Regime regime);
  // The device time a batch of back-to-back executions aims at (default_batch_target_ms(), 10 ms:
  // long enough that the gaps between samples do not move the clock at the power cap). Unset, a
  // sustained row starts at MeasureOptions::uncapped_batch_ms and its warm-up goes to 10 ms once
  // the device is held at its cap. The oracle's screening ranks a plan space with shorter batches
  // (tune/oracle.cpp). A batch already chosen is sized again for the new target.
  void set_batch_target_ms(double ms);
  static double default_batch_target_ms();

  Plan& plan() { return instance_.plan(); }
  const PlanSpec& spec() const { return instance_.spec(); }
  double build_ms() const { return instance_.build_ms(); }
  double bind_ms() const { return instance_.bind_ms(); }
  const PlanBuffers& buffers() const { return instance_.buffers(); }

  // Poisons the outputs, executes once, publishes and compares with the reference.
  Correctness checked_run() { return judge_.checked_run(instance_); }
  // Compares the outputs the last execution left with the reference.
  Correctness check_current_outputs() { return judge_.check_current(instance_); }
  // The same after the measurement's repeated executions (OutputJudge::recheck).
  Correctness recheck_outputs() { return judge_.recheck(instance_); }

  // `executions` untimed executions, each synchronized; returns the fastest one's host time in ms
  // (infinity for none).
  double warm_up(std::int64_t executions);
  // At least `min_executions`, then samples until the timings (and the SM clock, when sampled)
  // are steady or --warmup-max-ms is spent; records what it did for measure()'s TimingInfo.
  // `device_loaded`: the device ran another row's samples up to this warm-up (a group's later
  // rows), so the driver has been answering sustained load and the row needs no minimum load of
  // its own (SteadyStateLimits::min_load_ms); after idle or host work it does.
  void warm_up_until_steady(std::int64_t min_executions, bool device_loaded = false);
  // Samples until the rule finishes, over the placements the options ask for (each chunk on
  // fresh buffers); device providers time batches of back-to-back executions (hot throughput)
  // or single executions (cold, latency, --batch 1).
  Measurement measure(StoppingRule& rule, bool keep_samples);
  // One more batch with the device's kernel activity recorded (CUPTI): fills m.kernels and
  // m.kernel_sum. A no-op without a recorder or with --no-kernel-activity.
  void record_kernels(Measurement& m);
  // The plan's working set (bound tensors and workspace) against the device's last-level cache;
  // nullopt where the cache size is unknown.
  std::optional<TimingInfo::CacheFit> cache_fit();
  // The bytes one execution touches: the plan's bound tensors and its workspace.
  std::int64_t working_set_bytes() const;
  // What the session holds on the device: the working set once per rotation copy (row groups
  // budget their memory with it).
  std::int64_t held_bytes() const;
  // Threads whose fork-join a host row probes before and after its samples: the provider's own
  // (Provider::host_threads) where it says, capped by MeasureOptions::host_sync_threads; 0 when
  // fewer than 2 or the row is device-timed (no probe).
  std::int64_t host_sync_threads();
  // A device-timed sustained measurement that the driver reported at the power cap gets the
  // paced figure beside it: --other-regime-samples samples with idle gaps (m.timing.other_regime).
  // A no-op otherwise.
  void measure_other_regime(Measurement& m);
  // One sample (one batch) of the primary figure in ms, for paired comparisons.
  double sample();
  // Wall time of the warm-up's steady samples that the last measure() took into its statistics:
  // time the warm-up spent that is measurement, not overhead.
  double reused_warmup_ms() const { return reused_warmup_ms_; }
  // Whether the last warm-up found the device held at its power cap (the driver said so or, in
  // the sustained regime, drew the limit): then it waited for the power to settle.
  bool warmup_capped() const { return warmup_capped_; }

 private:
  DeviceKind device_kind() { return instance_.provider().device(); }
  std::int64_t batch();
  // The sampler of the current regime: paced_ around sampler_ when pacing.
  Sampler& current() { return pacing_on_ ? static_cast<Sampler&>(*paced_) : *sampler_; }
  bool device_timed() const { return sampler_->device_timed(); }
  bool single_execution_samples() const { return sampler_->single_execution(); }
  std::string pacing_text() const;
  // Moves the plan to placement `index` (fresh buffers) and takes one sample there untimed (a
  // new replay's first launch, first touches). False when there was no memory for it.
  bool move_to_placement(std::uint64_t index);

  PlanInstance instance_;
  OutputJudge judge_;
  MeasureOptions measure_options_;
  std::unique_ptr<Sampler> sampler_;
  std::unique_ptr<PacedSampler> paced_;
  std::unique_ptr<KernelTimer> probe_timer_;  // sizes the batch; nullptr on host providers
  std::int64_t batch_ = 0;                    // 0: not chosen yet
  double batch_target_ms_ = default_batch_target_ms();
  bool batch_target_chosen_ = false;  // set_batch_target_ms was called: the warm-up keeps it
  ClockSource* clock_source_ = nullptr;
  std::int64_t warmup_executions_ = 0;
  double warmup_ms_ = 0, reused_warmup_ms_ = 0;
  bool warmup_steady_ = false, warmup_capped_ = false;
  // The samples of the warm-up's last windows, which agreed (steady): they are the first samples
  // of the measurement, so a row on an already steady device pays no extra warm-up. Empty when
  // the warm-up did not end steady or the batch changed after it.
  std::vector<Sample> steady_samples_;
  // The clock readings taken while steady_samples_ were, so a row whose samples are mostly the
  // warm-up's still records the clocks they ran at.
  std::vector<ClockReading> steady_readings_;
  bool pacing_on_ = false;
};

std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options);
// The rule for a measurement after `session`'s warm-up: one found at the power cap measures one
// cycle of the driver's power control, --capped-min-ms (MeasureOptions::capped_min_ms) within
// --max-time-ms, and stops there (PowerCycleRule).
std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options, const PlanSession& session);

}  // namespace dnnbench
