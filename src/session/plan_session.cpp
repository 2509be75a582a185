#include "session/plan_session.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "graph/memory.hpp"
#include "measure/cache_flusher.hpp"
#include "measure/host_timer.hpp"
#include "session/kernel_record.hpp"
#include "session/placement_summary.hpp"
#include "sys/thread_sync_probe.hpp"

namespace dnnbench {
namespace {

// What the core ruler read over one measurement: the readings and disturbed windows `now` holds
// past the `readings_before` and `disturbed_before` it held when the measurement began. A
// measurement inside one window (begun in the warm-up's) has that window's reading.
std::optional<TimingInfo::CoreState> core_state_since(const CoreRulerTally& now, std::size_t readings_before,
                                                      std::int64_t disturbed_before) {
  const auto& all = now.readings_us;
  if (all.empty()) return std::nullopt;
  // No vector built and then grown here: g++ 13 took that for a delete at an offset
  // (-Wfree-nonheap-object, an error with warnings as errors).
  const double ruler_us = readings_before < all.size()
                              ? median_of(std::vector<double>(
                                    all.begin() + static_cast<std::ptrdiff_t>(readings_before), all.end()))
                              : all.back();
  return TimingInfo::CoreState{now.threads, ruler_us, now.best_us,
                               now.windows() - static_cast<std::int64_t>(readings_before),
                               now.disturbed_windows - disturbed_before};
}

// Back-to-back executions per device-timed sample. One event pair per launch doubles a ~25 us
// kernel on the H200 (launch gaps land inside the pair; shared/reference/ANCHORS.md), so short
// kernels are batched until a batch lasts about kTargetBatchMs. 10 ms, not 1: between samples the
// device idles while the host synchronizes and reads the events, and at the H200's power cap
// those gaps move the SM clock: a 0.62 ms conv timed in 1.3 ms samples spread 3.7% over five
// repeats, in 13 ms samples 0.2%; a 25 us conv in 1 ms samples (under the cap) 0.1%.
constexpr double kTargetBatchMs = 10.0;
// Below the cap, short batches read the same: a 25 us conv in 1 ms samples spread 0.1% on the
// H200 (bench/results/measurement-method.json). So a sustained row starts its warm-up in batches of
// MeasureOptions::uncapped_batch_ms and goes to kTargetBatchMs only once the driver says the clock
// is held down: its minimum samples then cost a fifth of the time.
constexpr std::int64_t kMaxBatch = 1000;
// NVML sampling period: the SM clock moves in steps of tens of ms under the power cap, and a
// reading costs ~0.1 ms of a host core, so 10 ms sees every step at ~1% of one core.
constexpr double kClockPeriodMs = 10;
// The placements' seed: fixed, so two runs put their buffers at the same offsets and differ only
// in what the allocator and the driver hand out.
constexpr std::uint64_t kPlacementSeed = 0x706c6163656d6e74ull;
// A plan whose tensors take more than this stays at one placement: moving it holds two sets of
// buffers at once, which the memory budget (env/memory_budget.hpp) does not count, and a working
// set of gigabytes streams through L2 wherever it lies.
constexpr std::int64_t kMaxPlacedBytes = std::int64_t{1} << 30;

std::int64_t batch_for(double single_ms, double target_ms) {
  return single_ms > 0 ? std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(target_ms / single_ms)),
                                                  1, kMaxBatch)
                       : kMaxBatch;
}

// `n` rounded up to a whole number of `multiple`.
std::int64_t whole_rounds(std::int64_t n, std::int64_t multiple) {
  return multiple > 1 ? (n + multiple - 1) / multiple * multiple : n;
}

std::unique_ptr<ClockSampler> started_clock_sampler(ClockSource* source) {
  if (!source) return nullptr;
  auto sampler = std::make_unique<ClockSampler>(*source, kClockPeriodMs);
  sampler->start();
  return sampler;
}

}  // namespace

std::string_view cache_mode_name(CacheMode mode) {
  switch (mode) {
    case CacheMode::cold:
      return "cold";
    case CacheMode::rotating:
      return "rotating";
    case CacheMode::producer:
      return "producer";
    case CacheMode::automatic:
      return "auto";
    case CacheMode::hot:
      break;
  }
  return "hot";
}

std::optional<CacheMode> cache_mode_from_name(std::string_view name) {
  for (auto m :
       {CacheMode::hot, CacheMode::cold, CacheMode::rotating, CacheMode::producer, CacheMode::automatic})
    if (cache_mode_name(m) == name) return m;
  return std::nullopt;
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

std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options) {
  if (options.iters) return std::make_unique<FixedCountRule>(*options.iters);
  return std::make_unique<AdaptiveMedianRule>(options.adaptive);
}

std::unique_ptr<StoppingRule> make_stopping_rule(const RunOptions& options, const PlanSession& session) {
  if (options.iters || !session.warmup_capped() || options.measure.capped_min_ms <= 0)
    return make_stopping_rule(options);
  return std::make_unique<PowerCycleRule>(
      std::max(options.adaptive.min_time_ms,
               std::min(options.measure.capped_min_ms, options.adaptive.max_time_ms)),
      options.adaptive);
}

PlanSession::PlanSession(GraphData& data, Provider& provider, Stream& stream, const PlanSpec& spec)
    : instance_(data, provider, stream, spec), judge_(data, provider.device()) {
  probe_timer_ = stream.make_kernel_timer();
  // One placement unless the options ask for more: the oracle's sweep and paired rounds compare
  // plans within one process, where placement is common to both.
  MeasureOptions options;
  options.placements = 1;
  set_measure_options(options);
}

void PlanSession::set_measure_options(const MeasureOptions& options) {
  measure_options_ = options;
  paced_.reset();
  sampler_ = make_sampler(instance_, options);
  paced_ = std::make_unique<PacedSampler>(*sampler_, instance_.stream(), options.pacing_duty);
  pacing_on_ = options.regime == Regime::paced;
  batch_ = options.batch.value_or(0);
  if (batch_ > 0) sampler_->fit_batch(batch_);  // --batch N: a rotation of at most N sets
  // A cold or isolated sample is one execution: a batch's later executions would find warm caches
  // or no idle gap, whatever --batch says.
  if (single_execution_samples()) batch_ = 1;
  // Sustained rows start short (the warm-up lengthens them at the cap); paced rows keep the
  // batches their duty cycle was measured with; a target the oracle set stays.
  if (!batch_target_chosen_)
    batch_target_ms_ = options.regime == Regime::sustained && options.uncapped_batch_ms > 0
                           ? std::min(options.uncapped_batch_ms, kTargetBatchMs)
                           : kTargetBatchMs;
  steady_samples_.clear();
  steady_readings_.clear();
}

void PlanSession::set_regime(Regime regime) {
  measure_options_.regime = regime;
  pacing_on_ = regime == Regime::paced;
}

void PlanSession::set_batch_target_ms(double ms) {
  const double was = batch_target_ms_;
  batch_target_ms_ = ms > 0 ? ms : kTargetBatchMs;
  batch_target_chosen_ = true;
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

double PlanSession::warm_up(std::int64_t executions) {
  double fastest_ms = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < executions; ++i) {
    HostTimer one;
    instance_.execute();
    instance_.stream().synchronize();
    fastest_ms = std::min(fastest_ms, one.elapsed_ms());
  }
  return fastest_ms;
}

void PlanSession::warm_up_until_steady(std::int64_t min_executions, bool device_loaded) {
  // What a sample spends before its executions (a cold flush: timed once here if no sample has
  // taken one yet, before the warm-up's clock starts, like the sampler's other setup).
  const double preparation_ms = current().preparation_ms();
  HostTimer timer;
  const double fastest_ms = warm_up(min_executions);
  warmup_executions_ = min_executions;
  // An execution that alone lasts a batch's target is its own batch: batch() need not probe
  // (8 more executions: 0.1 s a row for 14 ms convs, 2 s of the ResNet-50 suite). The fastest
  // of the --warmup executions, since a first one loads modules; 10% over the target, since its
  // host time holds the launch and the synchronization (a batch of 2 chosen after the warm-up
  // would discard the steady samples).
  if (batch_ == 0 && device_timed() && !single_execution_samples() && fastest_ms >= 1.1 * batch_target_ms_) {
    sampler_->fit_batch(batch_for(fastest_ms, kTargetBatchMs));
    batch_ = whole_rounds(1, sampler_->batch_multiple());
  }
  // --warmup-max-ms caps the search's wall time, not only the time inside its samples: a cold
  // sample's flush, a latency sample's idle gap and the host's synchronization all count. No
  // sample starts that the last one (or, first, the --warmup executions and the sample's
  // preparation) says would end past the cap, so even one slow execution does not overrun it.
  double next_sample_ms = min_executions > 0 ? timer.elapsed_ms() / static_cast<double>(min_executions) : 0.0;
  HostTimer search;
  auto sampler = started_clock_sampler(clock_source_);
  auto limits = measure_options_.steady;
  if (device_loaded) limits.min_load_ms = 0;
  SteadyStateDetector detector(limits);
  auto n = batch();
  next_sample_ms = next_sample_ms * static_cast<double>(n) + preparation_ms;
  std::vector<Sample> recent;
  const bool sustained = measure_options_.regime == Regime::sustained;
  // The cap grows once the driver says the clock is held down (SteadyStateLimits).
  while (!detector.finished() && search.elapsed_ms() + next_sample_ms <= detector.max_ms()) {
    // Held at the cap in short batches: from here on, batches of kTargetBatchMs (their gaps do not
    // move the clock), and the search starts again on them.
    if (detector.capped() && batch_target_ms_ < kTargetBatchMs && !batch_target_chosen_ &&
        !measure_options_.batch && !single_execution_samples()) {
      batch_target_ms_ = kTargetBatchMs;
      batch_ = 0;
      const auto longer = batch();
      next_sample_ms *= static_cast<double>(longer) / static_cast<double>(n);
      n = longer;
      recent.clear();
      detector = SteadyStateDetector(limits);
      search.restart();
      continue;
    }
    HostTimer one;
    const auto s = current().take(n);  // paced: the idle gap after it is inside `one`
    next_sample_ms = one.elapsed_ms();
    const double primary = std::isnan(s.kernel_ms) ? s.host_ms : s.kernel_ms;
    // Steadiness is judged on the timed figure; the --warmup-max-ms cap on elapsed time.
    WarmupSensors sensors;
    if (sampler) {
      // Drawing the limit counts as capped, and the average is awaited up to the limit, only when
      // sustained: a paced row's idle gaps keep the power average, which the driver caps, below
      // the limit its kernels draw.
      const auto r = sampler->latest();
      const bool at_limit = r.at_power_limit == 1.0 && sustained;
      sensors = {.sm_mhz = r.sm_mhz,
                 .power_w = r.power_w,
                 .power_limit_w = sustained ? r.power_limit_w : std::numeric_limits<double>::quiet_NaN(),
                 .capped = r.capped == 1.0 || at_limit};
    }
    detector.add(primary * static_cast<double>(n), sensors, s.host_ms * static_cast<double>(n));
    recent.push_back(s);
    warmup_executions_ += n;
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
  if (!recent.empty() && !measure_options_.batch && !single_execution_samples() && device_timed()) {
    std::vector<double> tail;
    for (auto it = recent.end() - std::min<std::ptrdiff_t>(5, static_cast<std::ptrdiff_t>(recent.size()));
         it != recent.end(); ++it)
      tail.push_back(it->kernel_ms);
    const auto warm_batch =
        whole_rounds(batch_for(median_of(tail), batch_target_ms_), sampler_->batch_multiple());
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
  if (!probe_timer_ || !device_timed()) return batch_ = whole_rounds(batch_, sampler_->batch_multiple());
  // A few gated executions: one event pair around a single ungated launch would hold the
  // launch latency and size the batch of a short kernel too small.
  constexpr std::int64_t kProbe = 8;
  auto& stream = instance_.stream();
  auto gate = stream.make_gate();
  probe_timer_->start();
  for (std::int64_t i = 0; i < kProbe; ++i) instance_.execute();
  probe_timer_->stop();
  if (gate) gate->release();
  stream.synchronize();
  const double single_ms = probe_timer_->elapsed_ms() / static_cast<double>(kProbe);
  sampler_->fit_batch(batch_for(single_ms, std::max(batch_target_ms_, kTargetBatchMs)));
  batch_ = whole_rounds(batch_for(single_ms, batch_target_ms_), sampler_->batch_multiple());
  return batch_;
}

double PlanSession::sample() {
  const auto n = batch();
  const auto s = current().take(n);
  return device_timed() ? s.kernel_ms : s.host_ms;
}

std::string PlanSession::pacing_text() const {
  if (!pacing_on_) return "off";
  return fmt::format("duty {:.0f}% (--regime paced)", measure_options_.pacing_duty * 100.0);
}

bool PlanSession::move_to_placement(std::uint64_t index) {
  if (!instance_.move_to(Placement{index, kPlacementSeed})) return false;
  sampler_->rebound();
  // Untimed: a new graph replay's first launch uploads it, and fresh pages take their first
  // touches (TLB, L2); the chunk's samples are of the placement, not of its first use.
  sampler_->take(batch());
  return true;
}

std::optional<TimingInfo::CacheFit> PlanSession::cache_fit() {
  // A device's cache from its stream; a host provider's is the CPU's LLC.
  std::int64_t cache = instance_.stream().last_level_cache_bytes();
  if (cache == 0 && instance_.provider().device() == DeviceKind::host)
    cache = static_cast<std::int64_t>(last_level_cache_bytes());
  if (cache <= 0) return std::nullopt;
  return TimingInfo::CacheFit{working_set_bytes(), cache, sampler_->rotation_copies(),
                              sampler_->kept_bytes()};
}

std::int64_t PlanSession::working_set_bytes() const {
  return saturating_add(graph_tensor_bytes(instance_.data().graph()).storage(),
                        static_cast<std::int64_t>(instance_.plan().workspace_bytes()));
}

std::int64_t PlanSession::host_sync_threads() {
  if (device_timed()) return 0;
  const int own = instance_.provider().host_threads();
  const auto threads = own > 0 ? std::min<std::int64_t>(own, measure_options_.host_sync_threads)
                               : measure_options_.host_sync_threads;
  return threads >= 2 ? threads : 0;
}

std::int64_t PlanSession::held_bytes() const {
  return saturating_mul(working_set_bytes(), sampler_->rotation_copies());
}

void PlanSession::measure_other_regime(Measurement& m) {
  const auto samples = measure_options_.other_regime_samples;
  const bool capped =
      m.timing.clocks && m.timing.clocks->capped_fraction && *m.timing.clocks->capped_fraction > 0;
  if (samples <= 0 || measure_options_.regime != Regime::sustained || !device_timed() || !capped) return;
  const auto n = batch();
  auto sampler = started_clock_sampler(clock_source_);
  // The first gap before the first sample: the device leaves the sustained state before it.
  paced_->idle_after(m.host.median * static_cast<double>(n));
  std::vector<double> figures;
  for (std::int64_t i = 0; i < samples; ++i) figures.push_back(paced_->take(n).kernel_ms);
  TimingInfo::OtherRegime other{std::string(regime_name(Regime::paced)), samples, median_of(figures), {}};
  if (sampler) {
    const auto clocks = summarize_clocks(sampler->stop(), measure_options_.clock_tolerance);
    if (clocks.sm_mhz) other.sm_mhz = clocks.sm_mhz->mean;
  }
  m.timing.other_regime = other;
}

void PlanSession::record_kernels(Measurement& m) {
  if (!measure_options_.kernel_activity || !device_timed()) return;
  // The kernels' durations in the cache state of the row's figure.
  instance_.set_rotating(sampler_->rotation_copies() > 1);
  dnnbench::record_kernels(instance_, batch(), m);
  instance_.set_rotating(false);
}

Measurement PlanSession::measure(StoppingRule& rule, bool keep_samples) {
  const auto n = batch();
  std::vector<double> host_samples, kernel_samples;
  auto sampler = started_clock_sampler(clock_source_);
  // A multi-threaded host row: the machine's fork-join time around its samples.
  const auto sync_threads = host_sync_threads();
  const bool probe_sync = sync_threads >= 2;
  const auto sync_before = probe_sync ? thread_sync_us(sync_threads) : std::optional<double>();
  // The core ruler's readings so far (a host row's): the measurement's are what it adds.
  const CoreRulerTally* ruler = sampler_->core_ruler();
  const std::size_t readings_before = ruler ? ruler->readings_us.size() : 0;
  const std::int64_t disturbed_before = ruler ? ruler->disturbed_windows : 0;
  HostTimer wall;
  const double idle_before = paced_->idle_total_ms();
  double timed_ms = 0;
  // The samples of each placement's chunk (primary figure); the first chunk is the plain one.
  std::vector<std::vector<double>> chunks(1);
  double chunk_elapsed_ms = 0;
  auto add = [&](const Sample& s) {
    host_samples.push_back(s.host_ms);
    if (device_timed()) kernel_samples.push_back(s.kernel_ms);
    // The rule judges the primary figure (kernel time where there is one); its caps count the
    // sample's whole elapsed time, batch included.
    const double primary = device_timed() ? s.kernel_ms : s.host_ms;
    rule.add(primary, s.host_ms * static_cast<double>(n));
    timed_ms += primary * static_cast<double>(n);
    chunks.back().push_back(primary);
    chunk_elapsed_ms += s.host_ms * static_cast<double>(n);
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
  // Each placement's chunk takes its share of the rule's minimums; after the last placement the
  // rule runs on to its end where it is. A rule already at a cap (a microsecond kernel's warm-up
  // samples can fill the 2000-sample cap by themselves) still gives every placement its share:
  // otherwise such a row is one placement, and a re-run that lands its buffers elsewhere differs
  // by more than its recorded spread.
  auto placements = std::max<std::int64_t>(1, measure_options_.placements);
  if (graph_tensor_bytes(instance_.data().graph()).storage() > kMaxPlacedBytes) placements = 1;
  const auto chunk_samples = (rule.min_samples() + placements - 1) / placements;
  const double chunk_ms = rule.min_elapsed_ms() / static_cast<double>(placements);
  auto chunk_done = [&] {
    const auto taken = static_cast<std::int64_t>(chunks.back().size());
    // A row at its time cap (a kernel of a second) keeps to it: one sample a placement then.
    if (rule.finished() && rule.stop_reason() == "time-cap") return taken >= 1;
    return taken >= std::max<std::int64_t>(1, chunk_samples) && chunk_elapsed_ms >= chunk_ms;
  };
  for (;;) {
    const bool more_placements = static_cast<std::int64_t>(chunks.size()) < placements;
    if (rule.finished() && (rule.exact_count() || (!more_placements && chunk_done()))) break;
    if (more_placements && chunk_done()) {
      if (move_to_placement(chunks.size())) {
        chunks.emplace_back();
        chunk_elapsed_ms = 0;
      } else {
        placements = static_cast<std::int64_t>(chunks.size());  // no memory for another: stay
        continue;
      }
    }
    add(current().take(n));
  }
  Measurement m;
  m.timing.wall_ms = wall.elapsed_ms();
  if (sync_before)
    if (const auto sync_after = thread_sync_us(sync_threads))
      m.timing.host_sync = TimingInfo::HostSync{sync_threads, *sync_before, *sync_after};
  if (ruler) m.timing.core_state = core_state_since(*ruler, readings_before, disturbed_before);
  if (sampler) {
    const auto taken = sampler->stop();
    readings.insert(readings.end(), taken.begin(), taken.end());
    m.timing.clocks = summarize_clocks(readings, measure_options_.clock_tolerance);
  }
  m.timing.regime = std::string(regime_name(measure_options_.regime));
  m.timing.pacing = pacing_text();
  m.timing.pacing_idle_ms = paced_->idle_total_ms() - idle_before;
  m.host = summarize(host_samples);
  m.has_kernel = device_timed();
  if (m.has_kernel) m.kernel = summarize(kernel_samples);
  if (placements > 1) {
    auto p = summarize_placements(chunks);
    // The figure is the median over placements, not over the pooled samples (where the last,
    // longest chunk would weigh most); but over one whole cycle of the power control, the pooled
    // median (each chunk holds only part of the cycle).
    if (p.chunks > 0 && !rule.spans_power_cycle()) {
      auto& primary = m.has_kernel ? m.kernel : m.host;
      primary.median = median_of(p.medians_ms);
      // The interval still holds the figure (a ratio of two rows must lie inside its interval).
      primary.median_ci_lo = std::min(primary.median_ci_lo, primary.median);
      primary.median_ci_hi = std::max(primary.median_ci_hi, primary.median);
    }
    m.timing.placements = std::move(p);
  }
  m.timing.method = sampler_->method(n);
  m.timing.batch = n;
  m.timing.meaning = measure_options_.latency ? "latency" : "throughput";
  m.timing.cache_mode = std::string(cache_mode_name(sampler_->cache_mode()));
  m.timing.cache_flush = sampler_->cache_flush();
  m.timing.cache_fit = cache_fit();
  m.timing.rule = rule.name();
  m.timing.converged = rule.converged();
  m.timing.stop_reason = rule.stop_reason();
  if (device_timed() && n > 1) m.timing.replay_fallback = sampler_->replay_fallback(n);
  if (device_timed() && n > 1 && !measure_options_.graph_replay)
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
