#pragma once
// PlanSession: one built plan bound to its own buffers, ready to be checked and measured. The
// OOTB pass, the oracle's sweep and its paired re-timing all go through it, so every plan is
// built, bound, checked and timed the same way.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "measure/clock_sampler.hpp"
#include "measure/steady_state.hpp"
#include "measure/stopping_rule.hpp"
#include "providers/provider.hpp"
#include "report/results.hpp"
#include "session/graph_data.hpp"
#include "session/run_options.hpp"
#include "tensor/host_tensor.hpp"

namespace dnnbench {

// The buffers one plan binds: private copies of the inputs (a library that writes its inputs
// cannot corrupt other plans), outputs, and by-value scalars (bound by host pointer). For device
// providers each tensor also gets a device buffer, filled from the host copy.
class PlanBuffers {
 public:
  PlanBuffers(const GraphData& data, Provider& provider, Stream& stream);
  const Bindings& bindings() const { return bindings_; }
  // The host copy of `uid`: the inputs' and outputs' own buffers for host providers; for device
  // providers, an output as fetch_outputs() last brought it back.
  const HostTensor& host(std::int64_t uid) const { return tensors_.at(uid); }
  // The device buffer of `uid`; nullptr for host providers.
  const void* device_data(std::int64_t uid) const {
    const auto it = device_.find(uid);
    return it == device_.end() ? nullptr : it->second->data();
  }
  // NaN (floats) or a sentinel (integers) into every output (its device buffer, for device
  // providers), so that elements a plan does not write fail the check.
  void poison_outputs(Provider& provider, Stream& stream);
  // Brings the outputs back to the host copies (a no-op for host providers).
  void fetch_outputs(Provider& provider, Stream& stream);

 private:
  HostTensor& host_copy(std::int64_t uid);  // made on first use

  const Graph& graph_;
  std::map<std::int64_t, HostTensor> tensors_;
  std::map<std::int64_t, double> scalars_;
  std::map<std::int64_t, std::unique_ptr<DeviceBuffer>> device_;
  Bindings bindings_;
};

struct Measurement {
  Stats host, kernel;  // kernel: n == 0 on host providers
  bool has_kernel = false;
  TimingInfo timing;
  std::vector<KernelSummary> kernels;  // CUPTI; empty without it
  std::optional<Stats> kernel_sum;     // per-execution sum of kernel durations (CUPTI)
  // The figure comparisons use: kernel time where there is one, else host time.
  const Stats& primary() const { return has_kernel ? kernel : host; }
};

class PlanSession {
 public:
  // Builds (timed: build_ms) and binds (timed: bind_ms) the plan. Throws Unsupported or
  // std::exception from the provider.
  PlanSession(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& spec);
  // Judge fp32 outputs with the TF32 tolerance (the engine says it computes in TF32).
  void set_tf32_math(bool on) { tf32_math_ = on; }
  // How samples are taken (cache mode, latency, forced batch, steady-state warm-up); the default
  // is hot, steady-state throughput with automatic batching.
  void set_measure_options(const MeasureOptions& options);
  // GPU sensors to sample while measuring (nullptr: none); must outlive the session.
  void set_clock_source(ClockSource* source) { clock_source_ = source; }
  // Judge outputs with the Winograd tolerance (the engine says it uses Winograd transforms).
  void set_winograd(bool on) { winograd_ = on; }
  // Judge outputs with the reduced-precision tolerance (the engine says it accumulates in a
  // reduced precision).
  void set_reduced_precision(bool on) { reduced_precision_ = on; }
  // The power regime of sample() and measure() (the oracle's comparisons: set_measure_options
  // sets it for the OOTB pass).
  void set_regime(Regime regime) {
    measure_options_.regime = regime;
    pacing_on_ = regime == Regime::paced;
  }
  // The device time a batch of back-to-back executions aims at (default_batch_target_ms(), 10 ms:
  // long enough that the gaps between samples do not move the clock at the power cap). The
  // oracle's screening ranks a plan space with shorter batches (tune/oracle.cpp). A batch
  // already chosen is sized again for the new target.
  void set_batch_target_ms(double ms);
  static double default_batch_target_ms();
  PlanSession(const PlanSession&) = delete;
  PlanSession& operator=(const PlanSession&) = delete;

  Plan& plan() { return *plan_; }
  const PlanSpec& spec() const { return spec_; }
  double build_ms() const { return build_ms_; }
  double bind_ms() const { return bind_ms_; }
  const PlanBuffers& buffers() const { return *buffers_; }

  // Poisons the outputs, executes once, publishes and compares with the reference.
  Correctness checked_run(const RunOptions& options);
  // Compares the outputs the last execution left (after publishing them) with the reference.
  Correctness check_current_outputs(const RunOptions& options);
  // The same after the measurement's repeated executions; when every output is bit for bit what
  // the checked run left, the checked run's verdict stands without a second comparison (the
  // comparison of a perf-sized output costs a tenth of a second; a deterministic plan repeats
  // its bits).
  Correctness recheck_outputs(const RunOptions& options);
  // `executions` untimed executions, each synchronized; returns the fastest one's host time in ms
  // (infinity for none).
  double warm_up(std::int64_t executions);
  // At least `min_executions`, then samples until the timings (and the SM clock, when sampled)
  // are steady or --warmup-max-ms is spent; records what it did for measure()'s TimingInfo.
  void warm_up_until_steady(std::int64_t min_executions);
  // Samples until the rule finishes; device providers time batches of back-to-back executions
  // (hot throughput) or single executions (cold, latency, --batch 1).
  Measurement measure(StoppingRule& rule, bool keep_samples);
  // One more batch with the device's kernel activity recorded (CUPTI): fills m.kernels and
  // m.kernel_sum. A no-op without a recorder or with --no-kernel-activity.
  void record_kernels(Measurement& m);
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
  struct Sample {
    double host_ms, kernel_ms;  // per execution; kernel_ms is NaN without a kernel timer
  };
  std::int64_t batch();
  // Compares the host copies of the outputs with the reference.
  Correctness compare_fetched_outputs(const RunOptions& options);
  // Compares the outputs where they are, on the device (reference/device_compare.hpp); nullopt
  // unless every output could be compared there and passed: the host comparison then judges.
  std::optional<Correctness> compare_passing_outputs_on_device(const RunOptions& options);
  // One output's comparison and the tolerance it was judged by.
  struct OutputComparison {
    std::int64_t uid;
    CompareResult result;
    Tolerance tolerance;
  };
  // The row's Correctness from one comparison per output.
  Correctness correctness_of(const std::vector<OutputComparison>& comparisons, ReferenceKind kind) const;
  // Both comparisons' tolerance for one output.
  Tolerance tolerance_for(const TensorDesc& desc, ReferenceKind kind, const RunOptions& options) const;
  bool single_execution_samples() const;
  Sample take_sample(std::int64_t executions);
  Sample take_split_sample(std::int64_t executions);
  std::string method() const;
  // After a sample of `sample_ms` wall time: with pacing on (--regime paced), idles so the
  // device's duty cycle stays at the pacing duty; returns the idle time.
  double pace(double sample_ms);
  std::string pacing_text() const;
  // The graph replay for a batch of `executions`, captured on first use; nullptr when this
  // sample is not replayed (not a device batch, --no-graph-replay, or capture failed).
  BatchReplay* replay_for(std::int64_t executions);
  std::vector<std::unique_ptr<KernelTimer>> split_timers_;  // --per-execution-events
  std::unique_ptr<BatchReplay> replay_;
  std::int64_t replay_executions_ = 0;
  std::string replay_fallback_;  // why capture failed; replay is not retried once it has
  GraphData& data_;
  Provider& provider_;
  Stream& stream_;
  PlanSpec spec_;
  std::unique_ptr<Plan> plan_;
  std::unique_ptr<PlanBuffers> buffers_;
  std::unique_ptr<KernelTimer> kernel_timer_;
  std::int64_t batch_ = 0;  // 0: not chosen yet
  double batch_target_ms_ = default_batch_target_ms();
  double build_ms_ = 0, bind_ms_ = 0;
  bool tf32_math_ = false, winograd_ = false, reduced_precision_ = false;
  MeasureOptions measure_options_;
  std::unique_ptr<CacheFlusher> flusher_;  // cold mode only
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
  // The checked run's outputs and verdict, for recheck_outputs.
  std::map<std::int64_t, std::vector<std::byte>> checked_bytes_;
  std::optional<Correctness> checked_;
  bool compared_on_device_ = false;  // the last comparison ran on the device (host copies are stale)
  bool pacing_on_ = false;
};

// True when an engine's notes say it computes fp32 data in TF32.
bool uses_tf32_math(const EngineInfo& engine);
// True when an engine's notes say it convolves through Winograd transforms.
bool uses_winograd(const EngineInfo& engine);
// True when an engine's notes say it accumulates in a reduced precision.
bool uses_reduced_precision(const EngineInfo& engine);
// The engine's outputs judged as its notes say (TF32, Winograd, reduced precision).
void judge_as_engine_notes_say(PlanSession& session, const EngineInfo& engine);

std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options);
// The rule for a measurement after `session`'s warm-up: one found at the power cap measures at
// least --capped-min-ms (MeasureOptions::capped_min_ms), within --max-time-ms.
std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options, const PlanSession& session);

}  // namespace dnnbench
