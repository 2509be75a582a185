#include "session/plan_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <limits>
#include <thread>

#include "measure/cache_flusher.hpp"
#include "measure/host_timer.hpp"
#include "providers/activity_names.hpp"
#include "reference/device_compare.hpp"
#include "tensor/compare.hpp"

namespace dnnbench {
namespace {

// Back-to-back executions per device-timed sample. One event pair per launch doubles a ~25 us
// kernel on the H200 (launch gaps land inside the pair; shared/reference/ANCHORS.md), so short
// kernels are batched until a batch lasts about kTargetBatchMs. 10 ms, not 1: between samples the
// device idles while the host synchronizes and reads the events, and at the H200's power cap
// those gaps move the SM clock. Measured there (bench/RESULTS.md): a 0.62 ms conv timed in 1.3 ms
// samples spread 3.7% over five repeats, in 13 ms samples 0.2%; a 25 us conv in 1 ms samples
// (under the cap) 0.1%.
constexpr double kTargetBatchMs = 10.0;
constexpr std::int64_t kMaxBatch = 1000;
// At most this many executions are queued behind a stream gate (a cuDNN execution is a few
// launches; the CUDA launch queue holds about a thousand).
constexpr std::int64_t kMaxGatedExecutions = 32;
// NVML sampling period: the SM clock moves in steps of tens of ms under the power cap, and a
// reading costs ~0.1 ms of a host core, so 10 ms sees every step at ~1% of one core.
constexpr double kClockPeriodMs = 10;

// The CPU's LLC flush behind the providers' flusher interface, for host providers.
class HostLlcFlusher final : public CacheFlusher {
 public:
  void flush() override { flusher_.flush(); }
  std::string description() const override { return flusher_.description(); }

 private:
  HostCacheFlusher flusher_;
};

std::int64_t batch_for(double single_ms, double target_ms) {
  return single_ms > 0 ? std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(target_ms / single_ms)),
                                                  1, kMaxBatch)
                       : kMaxBatch;
}

}  // namespace

std::string_view cache_mode_name(CacheMode mode) {
  return mode == CacheMode::cold ? "cold" : "hot";
}

std::string_view regime_name(Regime regime) {
  return regime == Regime::paced ? "paced" : "sustained";
}

std::optional<Regime> regime_from_name(std::string_view name) {
  for (auto r : {Regime::sustained, Regime::paced})
    if (regime_name(r) == name) return r;
  return std::nullopt;
}

Regime other_regime(Regime regime) {
  return regime == Regime::paced ? Regime::sustained : Regime::paced;
}

PlanBuffers::PlanBuffers(const GraphData& data, Provider& provider, Stream& stream) : graph_(data.graph()) {
  const bool on_host = provider.device() == DeviceKind::host;
  const auto& outputs = graph_.output_uids();
  for (auto uid : graph_.input_uids())
    if (graph_.tensor(uid).is_by_value()) scalars_[uid] = *graph_.tensor(uid).scalar_value;
  for (auto& [uid, value] : scalars_) bindings_.buffers[uid] = &value;
  if (on_host) {
    // A host provider reads and may write its buffers in place: it gets private copies of the
    // inputs, and its outputs.
    for (const auto& [uid, tensor] : data.inputs()) tensors_.emplace(uid, tensor);
    for (auto uid : outputs) tensors_.emplace(uid, HostTensor(graph_.tensor(uid)));
    poison_outputs(provider, stream);
    for (auto& [uid, tensor] : tensors_) bindings_.buffers[uid] = tensor.data();
    return;
  }
  // A device provider's private copies are on the device, filled from the graph's inputs. Host
  // copies of its outputs are made only when fetched: zeroing a perf-sized one each row cost
  // ~1 ms per MiB on the H200 (4.7 s of a 89 s suite), for rows compared on the device.
  const auto allocate = [&](std::int64_t uid, std::size_t bytes) {
    auto buffer = provider.allocate(bytes);
    if (!buffer) throw std::runtime_error("the provider allocated no device memory");
    bindings_.buffers[uid] = buffer->data();
    return device_.emplace(uid, std::move(buffer)).first->second->data();
  };
  for (const auto& [uid, tensor] : data.inputs())
    if (std::find(outputs.begin(), outputs.end(), uid) == outputs.end())  // an output is poisoned instead
      provider.copy_to_device(allocate(uid, tensor.size_bytes()), tensor.data(), tensor.size_bytes(), stream);
  for (auto uid : outputs) {
    require_storage(graph_.tensor(uid));
    allocate(uid, static_cast<std::size_t>(graph_.tensor(uid).storage_bytes()));
  }
  poison_outputs(provider, stream);
}

HostTensor& PlanBuffers::host_copy(std::int64_t uid) {
  auto it = tensors_.find(uid);
  if (it == tensors_.end()) it = tensors_.emplace(uid, HostTensor(graph_.tensor(uid))).first;
  return it->second;
}

void PlanBuffers::poison_outputs(Provider& provider, Stream& stream) {
  for (auto uid : graph_.output_uids()) {
    if (device_.empty()) {
      tensors_.at(uid).poison();
      continue;
    }
    // On the device a memset of NaN bytes where the type has them: a perf-sized output poisoned
    // on the host and uploaded cost several ms a row on the H200, twice (at construction, and
    // again before the checked run).
    const auto& desc = graph_.tensor(uid);
    void* device = device_.at(uid)->data();
    const auto nan_byte = nan_fill_byte(desc.dtype);
    if (nan_byte &&
        provider.set_device_bytes(device, *nan_byte, static_cast<std::size_t>(desc.storage_bytes()), stream))
      continue;
    auto& tensor = host_copy(uid);
    tensor.poison();
    provider.copy_to_device(device, tensor.data(), tensor.size_bytes(), stream);
  }
  stream.synchronize();
}

void PlanBuffers::fetch_outputs(Provider& provider, Stream& stream) {
  if (device_.empty()) return;
  for (auto uid : graph_.output_uids()) {
    auto& tensor = host_copy(uid);
    provider.copy_to_host(tensor.data(), device_.at(uid)->data(), tensor.size_bytes(), stream);
  }
  stream.synchronize();
}

bool uses_tf32_math(const EngineInfo& engine) {
  return std::find(engine.notes.begin(), engine.notes.end(), kTf32MathNote) != engine.notes.end();
}

bool uses_winograd(const EngineInfo& engine) {
  return std::find(engine.notes.begin(), engine.notes.end(), kWinogradNote) != engine.notes.end();
}

bool uses_reduced_precision(const EngineInfo& engine) {
  return std::find(engine.notes.begin(), engine.notes.end(), kReducedPrecisionNote) != engine.notes.end();
}

void judge_as_engine_notes_say(PlanSession& session, const EngineInfo& engine) {
  session.set_tf32_math(uses_tf32_math(engine));
  session.set_winograd(uses_winograd(engine));
  session.set_reduced_precision(uses_reduced_precision(engine));
}

std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options) {
  if (options.iters) return std::make_unique<FixedCountRule>(*options.iters);
  return std::make_unique<AdaptiveMedianRule>(options.adaptive);
}

std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options, const PlanSession& session) {
  if (options.iters || !session.warmup_capped()) return make_stopping_rule(options);
  auto limits = options.adaptive;
  limits.min_time_ms =
      std::max(limits.min_time_ms, std::min(options.measure.capped_min_ms, limits.max_time_ms));
  return std::make_unique<AdaptiveMedianRule>(limits);
}

PlanSession::PlanSession(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& spec)
    : data_(data), provider_(provider), stream_(stream), spec_(spec) {
  HostTimer timer;
  plan_ = provider.build(data.graph(), spec);
  build_ms_ = timer.elapsed_ms();
  buffers_ = std::make_unique<PlanBuffers>(data, provider, stream);
  timer.restart();
  plan_->bind(buffers_->bindings(), stream);
  stream.synchronize();
  bind_ms_ = timer.elapsed_ms();
  kernel_timer_ = stream.make_kernel_timer();
}

Correctness PlanSession::check_current_outputs(const RunOptions& options) {
  plan_->publish_outputs(stream_);
  stream_.synchronize();
  if (auto passed = compare_passing_outputs_on_device(options)) return *passed;
  buffers_->fetch_outputs(provider_, stream_);
  return compare_fetched_outputs(options);
}

Correctness PlanSession::recheck_outputs(const RunOptions& options) {
  plan_->publish_outputs(stream_);
  stream_.synchronize();
  // On the device a second comparison costs about what a bitwise one would.
  if (auto passed = compare_passing_outputs_on_device(options)) return *passed;
  buffers_->fetch_outputs(provider_, stream_);
  const bool same =
      checked_ && std::all_of(checked_bytes_.begin(), checked_bytes_.end(), [&](const auto& kv) {
        const auto& now = buffers_->host(kv.first);
        return now.size_bytes() == kv.second.size() &&
               std::equal(kv.second.begin(), kv.second.end(), now.data(), now.data() + now.size_bytes());
      });
  return same ? *checked_ : compare_fetched_outputs(options);
}

Tolerance PlanSession::tolerance_for(const TensorDesc& desc, ReferenceKind kind,
                                     const RunOptions& options) const {
  Tolerance tol = tf32_math_ ? tf32_math_tolerance(desc.dtype, data_.cost().reduction_length)
                             : default_tolerance(desc.dtype, data_.cost().reduction_length);
  if (winograd_) tol = winograd_tolerance(tol);
  if (reduced_precision_) tol = reduced_precision_tolerance(tol, desc.dtype, data_.cost().reduction_length);
  if (kind == ReferenceKind::gpu_fp32) tol = with_fp32_reference(tol, data_.cost().reduction_length);
  if (options.rtol) tol.rtol = *options.rtol, tol.basis = "--rtol/--atol";
  if (options.atol) tol.atol = *options.atol, tol.basis = "--rtol/--atol";
  return tol;
}

std::optional<Correctness> PlanSession::compare_passing_outputs_on_device(const RunOptions& options) {
  compared_on_device_ = false;
  // --dump-tensors writes the host copies: they must hold what the plan wrote.
  if (provider_.device() != DeviceKind::cuda || options.dump_tensors_dir) return std::nullopt;
  const auto& graph = data_.graph();
  const ReferenceKind kind = data_.reference_kind_for(provider_.device());
  std::vector<OutputComparison> comparisons;
  for (auto uid : graph.output_uids()) {
    const void* out = buffers_->device_data(uid);
    const auto* ref = out ? data_.device_reference(kind, uid) : nullptr;
    if (!ref) return std::nullopt;
    auto tol = tolerance_for(graph.tensor(uid), kind, options);
    auto result = compare_on_device(out, graph.tensor(uid), *ref, tol);
    if (!result || !result->passed) return std::nullopt;
    comparisons.push_back({uid, std::move(*result), std::move(tol)});
  }
  compared_on_device_ = true;
  auto c = correctness_of(comparisons, kind);
  c.compared_on = "device";
  return c;
}

Correctness PlanSession::correctness_of(const std::vector<OutputComparison>& comparisons,
                                        ReferenceKind kind) const {
  const auto& graph = data_.graph();
  Correctness c;
  c.reference = reference_kind_name(kind);
  double worst = -1;
  for (const auto& [uid, result, tol] : comparisons) {
    const auto& desc = graph.tensor(uid);
    OutputCheck o{desc.name,
                  result.passed,
                  result.max_abs_diff,
                  result.max_rel_diff,
                  result.norm_rel_error,
                  result.mismatches,
                  result.nonfinite,
                  result.first_mismatch,
                  tol.rtol,
                  tol.atol,
                  tol.basis};
    c.passed = c.passed && o.passed;
    c.max_abs_diff = std::max(c.max_abs_diff, o.max_abs_diff);
    c.max_rel_diff = std::max(c.max_rel_diff, o.max_rel_diff);
    if (o.norm_rel_error > worst || !std::isfinite(o.norm_rel_error)) {
      worst = o.norm_rel_error;
      c.norm_rel_error = o.norm_rel_error;
      c.rtol = o.rtol;
      c.atol = o.atol;
    }
    c.outputs.push_back(std::move(o));
  }
  return c;
}

Correctness PlanSession::compare_fetched_outputs(const RunOptions& options) {
  const auto& graph = data_.graph();
  const ReferenceKind kind = data_.reference_kind_for(provider_.device());
  const auto& reference = data_.reference(kind);
  std::vector<OutputComparison> comparisons;
  for (auto uid : graph.output_uids()) {
    const auto& desc = graph.tensor(uid);
    const Dense out = buffers_->host(uid).to_dense();
    auto tol = tolerance_for(desc, kind, options);
    auto result = compare_values(out, reference.at(uid), tol);
    // An elementwise failure of finite values in a contraction gets its second chance: the
    // componentwise bound (tensor/compare.hpp), unless the user set the tolerance.
    const bool user_tolerance = options.rtol || options.atol;
    if (!result.passed && result.nonfinite == 0 && !tol.max_norm_rel && !user_tolerance) {
      if (const Values* magnitude = data_.magnitude(kind)) {
        auto wider = componentwise_tolerance(tol, desc.dtype, data_.cost().reduction_length,
                                             kind == ReferenceKind::gpu_fp32);
        // Judged by the wider rule either way: a failure then names elements beyond even it.
        result = compare_values(out, reference.at(uid), wider, &magnitude->at(uid));
        tol = std::move(wider);
      }
    }
    comparisons.push_back({uid, std::move(result), std::move(tol)});
  }
  return correctness_of(comparisons, kind);
}

Correctness PlanSession::checked_run(const RunOptions& options) {
  buffers_->poison_outputs(provider_, stream_);
  plan_->execute(stream_);
  checked_ = check_current_outputs(options);
  checked_bytes_.clear();
  if (compared_on_device_) return *checked_;  // the host copies were not fetched
  for (auto uid : data_.graph().output_uids()) {
    const auto& t = buffers_->host(uid);
    checked_bytes_[uid].assign(t.data(), t.data() + t.size_bytes());
  }
  return *checked_;
}

void PlanSession::set_measure_options(const MeasureOptions& options) {
  measure_options_ = options;
  flusher_.reset();
  if (options.cache_mode == CacheMode::cold) {
    flusher_ = stream_.make_cache_flusher();
    if (!flusher_ && provider_.device() == DeviceKind::host) flusher_ = std::make_unique<HostLlcFlusher>();
    if (!flusher_) throw std::runtime_error("--cache-mode cold: the provider's stream has no cache flush");
  }
  pacing_on_ = options.regime == Regime::paced;
  batch_ = options.batch.value_or(0);
  // A cold or isolated sample is one execution: a batch's later executions would find warm caches
  // or no idle gap, whatever --batch says.
  if (single_execution_samples()) batch_ = 1;
}

void PlanSession::set_batch_target_ms(double ms) {
  const double was = batch_target_ms_;
  batch_target_ms_ = ms > 0 ? ms : kTargetBatchMs;
  // A batch already sized automatically is sized again by the next sample's probe (not in
  // proportion: a batch clamped at 1 or at kMaxBatch does not say its executions' time); a
  // forced or single-execution batch stays. The warm-up's steady samples, of the old batch, are
  // not reused.
  if (batch_ > 0 && !measure_options_.batch && !single_execution_samples() && batch_target_ms_ != was) {
    batch_ = 0;
    steady_samples_.clear();
    steady_readings_.clear();
  }
}

double PlanSession::default_batch_target_ms() {
  return kTargetBatchMs;
}

bool PlanSession::single_execution_samples() const {
  return measure_options_.cache_mode == CacheMode::cold || measure_options_.latency;
}

double PlanSession::warm_up(std::int64_t executions) {
  double fastest_ms = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < executions; ++i) {
    HostTimer one;
    plan_->execute(stream_);
    stream_.synchronize();
    fastest_ms = std::min(fastest_ms, one.elapsed_ms());
  }
  return fastest_ms;
}

void PlanSession::warm_up_until_steady(std::int64_t min_executions) {
  HostTimer timer;
  const double fastest_ms = warm_up(min_executions);
  warmup_executions_ = min_executions;
  // An execution that alone lasts a batch's target is its own batch: batch() need not probe
  // (8 more executions: 0.1 s a row for 14 ms convs, 2 s of the ResNet-50 suite). The fastest
  // of the --warmup executions, since a first one loads modules; 10% over the target, since its
  // host time holds the launch and the synchronization (a batch of 2 chosen after the warm-up
  // would discard the steady samples).
  if (batch_ == 0 && kernel_timer_ && !single_execution_samples() && fastest_ms >= 1.1 * batch_target_ms_)
    batch_ = 1;
  // --warmup-max-ms caps the search's wall time, not only the time inside its samples: a cold
  // sample's flush, a latency sample's idle gap and the host's synchronization all count. No
  // sample starts that the last one (or, first, the --warmup executions) says would end past the
  // cap, so even one slow execution does not overrun it.
  double next_sample_ms = min_executions > 0 ? timer.elapsed_ms() / static_cast<double>(min_executions) : 0.0;
  HostTimer search;
  std::unique_ptr<ClockSampler> sampler;
  if (clock_source_) {
    sampler = std::make_unique<ClockSampler>(*clock_source_, kClockPeriodMs);
    sampler->start();
  }
  SteadyStateDetector detector(measure_options_.steady);
  const auto n = batch();
  next_sample_ms *= static_cast<double>(n);
  std::vector<Sample> recent;
  // The cap grows once the driver says the clock is held down (SteadyStateLimits).
  while (!detector.finished() && search.elapsed_ms() + next_sample_ms <= detector.max_ms()) {
    HostTimer one;
    const auto s = take_sample(n);
    const double sample_ms = one.elapsed_ms();
    const double primary = std::isnan(s.kernel_ms) ? s.host_ms : s.kernel_ms;
    // Steadiness is judged on the timed figure; the --warmup-max-ms cap on elapsed time.
    WarmupSensors sensors;
    if (sampler) {
      // Drawing the limit counts as capped, and the average is awaited up to the limit, only when
      // sustained: a paced row's idle gaps keep the power average, which the driver caps, below
      // the limit its kernels draw.
      const auto r = sampler->latest();
      const bool sustained = measure_options_.regime == Regime::sustained;
      const bool at_limit = r.at_power_limit == 1.0 && sustained;
      sensors = {.sm_mhz = r.sm_mhz,
                 .power_w = r.power_w,
                 .power_limit_w = sustained ? r.power_limit_w : std::numeric_limits<double>::quiet_NaN(),
                 .capped = r.capped == 1.0 || at_limit};
    }
    detector.add(primary * static_cast<double>(n), sensors, s.host_ms * static_cast<double>(n));
    recent.push_back(s);
    warmup_executions_ += n;
    next_sample_ms = sample_ms + pace(sample_ms);
  }
  std::vector<ClockReading> readings;
  if (sampler) readings = sampler->stop();
  warmup_steady_ = detector.steady();
  warmup_capped_ = detector.capped();
  warmup_ms_ = timer.elapsed_ms();
  steady_samples_.clear();
  steady_readings_.clear();
  if (warmup_steady_) {
    const auto keep = std::min<std::size_t>(
        recent.size(),
        static_cast<std::size_t>(measure_options_.steady.windows * measure_options_.steady.window_samples));
    steady_samples_.assign(recent.end() - static_cast<std::ptrdiff_t>(keep), recent.end());
    // The readings of the kept samples' span: one per sampler period, plus the one at the end.
    double span_ms = 0;
    for (const auto& s : steady_samples_) span_ms += s.host_ms * static_cast<double>(n);
    if (pacing_on_) span_ms /= measure_options_.pacing_duty;
    const auto count = std::min(readings.size(), static_cast<std::size_t>(span_ms / kClockPeriodMs) + 1);
    steady_readings_.assign(readings.end() - static_cast<std::ptrdiff_t>(count), readings.end());
  }
  // Re-size the batch from the warm timings when the estimate that chose it was far off (a
  // first execution runs cold); then the warm-up's samples, of another batch, are not reused.
  if (!recent.empty() && !measure_options_.batch && !single_execution_samples() && kernel_timer_) {
    std::vector<double> tail;
    for (auto it = recent.end() - std::min<std::ptrdiff_t>(5, static_cast<std::ptrdiff_t>(recent.size()));
         it != recent.end(); ++it)
      tail.push_back(it->kernel_ms);
    const auto warm_batch = batch_for(summarize(tail).median, batch_target_ms_);
    // 1.5x either way: batches within that last about the same (5-15 ms), which is all the
    // batch size is for; a change would discard the steady samples.
    if (warm_batch * 2 > batch_ * 3 || warm_batch * 3 < batch_ * 2) {
      batch_ = warm_batch;
      steady_samples_.clear();
      steady_readings_.clear();
    }
  }
}

std::int64_t PlanSession::batch() {
  if (batch_ > 0) return batch_;
  batch_ = 1;
  if (!kernel_timer_) return batch_;
  // A few gated executions: one event pair around a single ungated launch would hold the
  // launch latency and size the batch of a short kernel too small.
  constexpr std::int64_t kProbe = 8;
  auto gate = stream_.make_gate();
  kernel_timer_->start();
  for (std::int64_t i = 0; i < kProbe; ++i) plan_->execute(stream_);
  kernel_timer_->stop();
  if (gate) gate->release();
  stream_.synchronize();
  batch_ = batch_for(kernel_timer_->elapsed_ms() / static_cast<double>(kProbe), batch_target_ms_);
  return batch_;
}

// A batch whose executions each sit between their own event pair; the batch is still queued
// back to back, so the device never idles between them.
PlanSession::Sample PlanSession::take_split_sample(std::int64_t executions) {
  while (static_cast<std::int64_t>(split_timers_.size()) < executions) {
    auto timer = stream_.make_kernel_timer();
    if (!timer) throw std::runtime_error("--per-execution-events: the provider has no device timer");
    split_timers_.push_back(std::move(timer));
  }
  // Gated like take_sample, so that no execution's event pair waits on the host's launches.
  std::unique_ptr<StreamGate> gate;
  if (executions <= kMaxGatedExecutions) gate = stream_.make_gate();
  HostTimer timer;
  for (std::int64_t i = 0; i < executions; ++i) {
    auto& t = *split_timers_[static_cast<std::size_t>(i)];
    t.start();
    plan_->execute(stream_);
    t.stop();
  }
  if (gate) gate->release();
  stream_.synchronize();
  std::vector<double> times;
  for (std::int64_t i = 0; i < executions; ++i)
    times.push_back(split_timers_[static_cast<std::size_t>(i)]->elapsed_ms());
  std::sort(times.begin(), times.end());
  return Sample{timer.elapsed_ms() / static_cast<double>(executions), quantile_sorted(times, 0.5)};
}

PlanSession::Sample PlanSession::take_sample(std::int64_t executions) {
  if (measure_options_.per_execution_events && kernel_timer_ && !flusher_ && !measure_options_.latency)
    return take_split_sample(executions);
  if (flusher_) {
    // Outside the timed region: a device flush is enqueued before the start event, so the event
    // pair holds only the execution; the host waits for it before its own clock starts.
    flusher_->flush();
    stream_.synchronize();
  }
  if (measure_options_.latency) {
    stream_.synchronize();
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(measure_options_.latency_idle_ms));
  }
  if (auto* replay = replay_for(executions)) {
    HostTimer timer;
    kernel_timer_->start();
    replay->launch();
    kernel_timer_->stop();
    stream_.synchronize();
    const auto n = static_cast<double>(executions);
    return Sample{timer.elapsed_ms() / n, kernel_timer_->elapsed_ms() / n};
  }
  // Short samples are gated: the device waits until the start event and every launch are queued,
  // so a single execution's event pair holds no launch latency. Long batches are not (their
  // launches could fill the queue behind the gate; batching already amortizes the latency).
  std::unique_ptr<StreamGate> gate;
  if (kernel_timer_ && executions <= kMaxGatedExecutions) gate = stream_.make_gate();
  HostTimer timer;
  if (kernel_timer_) kernel_timer_->start();
  for (std::int64_t i = 0; i < executions; ++i) plan_->execute(stream_);
  if (kernel_timer_) kernel_timer_->stop();
  if (gate) gate->release();
  stream_.synchronize();
  const auto n = static_cast<double>(executions);
  Sample s{timer.elapsed_ms() / n, std::numeric_limits<double>::quiet_NaN()};
  if (kernel_timer_) s.kernel_ms = kernel_timer_->elapsed_ms() / n;
  return s;
}

BatchReplay* PlanSession::replay_for(std::int64_t executions) {
  if (!measure_options_.graph_replay || !kernel_timer_ || executions <= 1 || flusher_ ||
      measure_options_.latency || !replay_fallback_.empty())
    return nullptr;
  if (replay_ && replay_executions_ == executions) return replay_.get();
  replay_.reset();
  std::string why_not;
  replay_ = stream_.capture([this] { plan_->execute(stream_); }, executions, why_not);
  if (!replay_) {
    replay_fallback_ = why_not.empty() ? "the provider's stream cannot capture" : why_not;
    return nullptr;
  }
  replay_executions_ = executions;
  return replay_.get();
}

double PlanSession::sample() {
  const auto n = batch();
  const auto s = take_sample(n);
  pace(s.host_ms * static_cast<double>(n));
  return kernel_timer_ ? s.kernel_ms : s.host_ms;
}

double PlanSession::pace(double sample_ms) {
  if (!pacing_on_ || sample_ms <= 0) return 0;
  const double idle_ms = sample_ms * (1.0 / measure_options_.pacing_duty - 1.0);
  stream_.synchronize();
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(idle_ms));
  return idle_ms;
}

std::string PlanSession::pacing_text() const {
  if (!pacing_on_) return "off";
  return fmt::format("duty {:.0f}% (--regime paced)", measure_options_.pacing_duty * 100.0);
}

void PlanSession::measure_other_regime(Measurement& m) {
  const auto samples = measure_options_.other_regime_samples;
  const bool capped =
      m.timing.clocks && m.timing.clocks->capped_fraction && *m.timing.clocks->capped_fraction > 0;
  if (samples <= 0 || measure_options_.regime != Regime::sustained || !kernel_timer_ || !capped) return;
  const auto n = batch();
  std::unique_ptr<ClockSampler> sampler;
  if (clock_source_) {
    sampler = std::make_unique<ClockSampler>(*clock_source_, kClockPeriodMs);
    sampler->start();
  }
  pacing_on_ = true;
  // The first gap before the first sample: the device leaves the sustained state before it.
  double last_ms = m.host.median * static_cast<double>(n);
  std::vector<double> figures;
  for (std::int64_t i = 0; i < samples; ++i) {
    pace(last_ms);
    HostTimer one;
    const auto s = take_sample(n);
    last_ms = one.elapsed_ms();
    figures.push_back(s.kernel_ms);
  }
  pace(last_ms);
  pacing_on_ = false;
  TimingInfo::OtherRegime other{
      std::string(regime_name(Regime::paced)), samples, summarize(figures).median, {}};
  if (sampler) {
    const auto clocks = summarize_clocks(sampler->stop(), measure_options_.clock_tolerance);
    if (clocks.sm_mhz) other.sm_mhz = clocks.sm_mhz->mean;
  }
  m.timing.other_regime = other;
}

std::string PlanSession::method() const {
  const bool replayed = replay_ && replay_executions_ == batch_;
  std::string m = !kernel_timer_ ? "host-per-execution"
                  : replayed     ? fmt::format("cuda-graph-replay({} per sample)", batch_)
                  : batch_ > 1   ? fmt::format("device-events-batched({} per sample)", batch_)
                                 : "device-events-single";
  if (measure_options_.per_execution_events && kernel_timer_ && !flusher_ && !measure_options_.latency)
    m = fmt::format("device-events-per-execution(median of {} back-to-back per sample)", batch_);
  if (flusher_) m += "+cold-flush";
  if (measure_options_.latency) m += fmt::format("+idle-gap({} ms)", measure_options_.latency_idle_ms);
  return m;
}

void PlanSession::record_kernels(Measurement& m) {
  if (!measure_options_.kernel_activity || !kernel_timer_) return;
  auto recorder = stream_.make_kernel_recorder();
  if (!recorder) return;
  // Back-to-back launches, not the graph replay: kernel records of launches are certain on every
  // CUPTI version, and a kernel's own duration does not depend on how it was launched. A quarter
  // of a batch (about 2.5 ms of executions), at least 3 and at most 100, gives a median: a whole
  // batch cost 10 ms a row (2.7 s of the ResNet-50 suite), and 100 records of a three-kernel plan
  // fit one CUPTI buffer.
  constexpr std::int64_t kRecordedExecutions = 100;
  const auto batch_size = batch();
  const auto n =
      std::clamp<std::int64_t>(batch_size / 4, std::min<std::int64_t>(3, batch_size), kRecordedExecutions);
  recorder->start();
  for (std::int64_t i = 0; i < n; ++i) plan_->execute(stream_);
  stream_.synchronize();
  auto records = recorder->stop();
  if (records.empty()) return;
  const auto executions = static_cast<std::size_t>(n);
  // Kernels of one execution are consecutive; a plan launches the same kernels every time, so
  // the records split evenly. When they do not (a plan that varies), one "execution" is the
  // whole batch divided evenly: the sum stays right, the kernel list is per batch.
  const bool even = records.size() % executions == 0;
  const std::size_t per = even ? records.size() / executions : records.size();
  const std::size_t groups = even ? executions : 1;
  const double scale = even ? 1.0 : 1.0 / static_cast<double>(executions);
  // The sum counts kernels only, as Nsight Compute's does (it profiles no memset or copy); the
  // memsets and copies CUPTI recorded (providers/activity_names.hpp) stay in the list below.
  std::vector<double> sums;
  for (std::size_t g = 0; g < groups; ++g) {
    double sum = 0;
    for (std::size_t j = 0; j < per; ++j) {
      const auto& r = records[g * per + j];
      if (is_kernel_name(r.name)) sum += static_cast<double>(r.end_ns - r.start_ns) * 1e-6;
    }
    sums.push_back(sum * scale);
  }
  m.kernel_sum = summarize(sums);
  for (std::size_t j = 0; j < per; ++j) {
    std::vector<double> durations;
    for (std::size_t g = 0; g < groups; ++g) {
      const auto& r = records[g * per + j];
      durations.push_back(static_cast<double>(r.end_ns - r.start_ns) * 1e-6);
    }
    const auto& first = records[j];
    // Consecutive launches of the same kernel and shape are one entry with a launch count.
    if (!m.kernels.empty() && m.kernels.back().name == first.name && m.kernels.back().grid == first.grid &&
        m.kernels.back().block == first.block) {
      ++m.kernels.back().launches;
      continue;
    }
    m.kernels.push_back(KernelSummary{first.name, first.grid, first.block, 1, summarize(durations).median});
  }
  if (!even)
    for (auto& k : m.kernels) k.launches = std::max<std::int64_t>(1, k.launches / n);
}

Measurement PlanSession::measure(StoppingRule& rule, bool keep_samples) {
  const auto n = batch();
  std::vector<double> host_samples, kernel_samples;
  std::unique_ptr<ClockSampler> sampler;
  if (clock_source_) {
    sampler = std::make_unique<ClockSampler>(*clock_source_, kClockPeriodMs);
    sampler->start();
  }
  HostTimer wall;
  double timed_ms = 0, idle_ms = 0;
  auto add = [&](const Sample& s) {
    host_samples.push_back(s.host_ms);
    if (kernel_timer_) kernel_samples.push_back(s.kernel_ms);
    // The rule judges the primary figure (kernel time where there is one); its caps count the
    // sample's whole elapsed time, batch included.
    const double primary = kernel_timer_ ? s.kernel_ms : s.host_ms;
    rule.add(primary, s.host_ms * static_cast<double>(n));
    timed_ms += primary * static_cast<double>(n);
  };
  std::vector<ClockReading> readings;
  // Every steady warm-up sample joins the statistics (they were timed in the steady state and are
  // paid for), unless the rule promises an exact count (--iters).
  reused_warmup_ms_ = 0;
  for (const auto& s : steady_samples_) {
    if (rule.finished() && rule.exact_count()) break;
    add(s);
    reused_warmup_ms_ += s.host_ms * static_cast<double>(n);
  }
  if (!steady_samples_.empty()) readings = steady_readings_;
  steady_samples_.clear();  // used once: a second measure() takes fresh samples
  steady_readings_.clear();
  while (!rule.finished()) {
    const auto s = take_sample(n);
    add(s);
    idle_ms += pace(s.host_ms * static_cast<double>(n));
  }
  Measurement m;
  m.timing.wall_ms = wall.elapsed_ms();
  if (sampler) {
    const auto taken = sampler->stop();
    readings.insert(readings.end(), taken.begin(), taken.end());
    m.timing.clocks = summarize_clocks(readings, measure_options_.clock_tolerance);
  }
  m.timing.regime = std::string(regime_name(measure_options_.regime));
  m.timing.pacing = pacing_text();
  m.timing.pacing_idle_ms = idle_ms;
  m.host = summarize(host_samples);
  m.has_kernel = kernel_timer_ != nullptr;
  if (m.has_kernel) m.kernel = summarize(kernel_samples);
  m.timing.method = method();
  m.timing.batch = n;
  m.timing.meaning = measure_options_.latency ? "latency" : "throughput";
  m.timing.cache_mode = std::string(cache_mode_name(measure_options_.cache_mode));
  if (flusher_) m.timing.cache_flush = flusher_->description();
  m.timing.rule = rule.name();
  m.timing.converged = rule.converged();
  m.timing.stop_reason = rule.stop_reason();
  if (kernel_timer_ && n > 1 && !(replay_ && replay_executions_ == n))
    m.timing.replay_fallback = replay_fallback_;
  if (kernel_timer_ && n > 1 && !measure_options_.graph_replay)
    m.timing.replay_fallback = "--no-graph-replay";
  m.timing.warmup = warmup_executions_;
  m.timing.warmup_ms = warmup_ms_;
  m.timing.warmup_steady = warmup_steady_;
  m.timing.elapsed_ms = rule.elapsed_ms();
  m.timing.timed_ms = timed_ms;
  if (keep_samples) m.timing.samples_ms = rule.samples();
  return m;
}

}  // namespace dnnbench
