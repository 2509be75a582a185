#pragma once
// How one sample of a plan's time is taken. One small class per timing method, chosen once from
// the measure options (make_sampler); the warm-up and measurement loop (session/plan_session.cpp)
// only asks for samples. Cold flushes, idle gaps and the paced regime wrap another sampler.
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "measure/cache_flusher.hpp"
#include "session/plan_instance.hpp"
#include "session/run_options.hpp"
#include "sys/core_ruler.hpp"

namespace dnnbench {

// One sample's time per execution; kernel_ms is NaN where there is no device timer.
struct Sample {
  double host_ms = 0, kernel_ms = 0;
};

// What the core ruler (make_core_ruler_sampler) read so far: one reading a window, how many of
// them were over kCoreDisturbedAbove times the best, and the best.
struct CoreRulerTally {
  std::int64_t threads = 0;
  std::int64_t disturbed_windows = 0;
  double best_us = 0;
  std::vector<double> readings_us;  // one a window, in the order read
  std::int64_t windows() const { return static_cast<std::int64_t>(readings_us.size()); }
};

class Sampler {
 public:
  virtual ~Sampler() = default;
  // Runs `executions` executions and returns their time per execution.
  virtual Sample take(std::int64_t executions) = 0;
  // The method, for TimingInfo::method, with `batch` executions a sample.
  virtual std::string method(std::int64_t batch) const = 0;
  // Whether the primary figure is device time (a kernel timer) rather than host time.
  virtual bool device_timed() const = 0;
  // Whether each sample must be one execution (a flush or an idle gap before each).
  virtual bool single_execution() const { return false; }
  // The plan was bound to new buffers: drop anything that holds the old addresses.
  virtual void rebound() {}
  // Why a batch of `batch` did not replay as a captured graph; empty when it did, or when the
  // method never replays.
  virtual std::string replay_fallback(std::int64_t /*batch*/) const { return ""; }
  // What the cold flush (or the rotation) does; empty when hot.
  virtual std::string cache_flush() const { return ""; }
  // The cache state the samples are taken in (a host provider's rotating request is timed cold).
  virtual CacheMode cache_mode() const { return CacheMode::hot; }
  // Batches are a whole number of this many executions (a rotation's round).
  virtual std::int64_t batch_multiple() const { return 1; }
  // The sets of buffers the executions rotate through (--cache-mode rotating); 1: one set.
  virtual std::int64_t rotation_copies() const { return 1; }
  // Bytes of the inputs every set binds from the placed one (--cache-mode producer); 0: none.
  virtual std::int64_t kept_bytes() const { return 0; }
  // The executions a 10 ms batch holds (the batch probe's estimate), before the first sample: a
  // rotation whose round would take longer is cut to that many sets, so that a long kernel with
  // a small working set keeps ~10 ms samples (its time is then its arithmetic's, which the cache
  // barely moves) instead of batches of a whole 256-set round.
  virtual void fit_batch(std::int64_t /*executions*/) {}
  // The core ruler's readings where samples pass one (host rows), else nullptr.
  virtual const CoreRulerTally* core_ruler() const { return nullptr; }
  // Wall time a sample spends before its executions (a cold flush, an idle gap): as the last
  // sample took it, else one flush timed now. The warm-up counts it against --warmup-max-ms
  // before it starts a sample: a 600 MiB flush of a 300 MiB LLC took 280 ms under ASan.
  virtual double preparation_ms() { return 0; }
};

// At most this many executions are queued behind a stream gate (a cuDNN execution is a few
// launches; the CUDA launch queue holds about a thousand).
inline constexpr std::int64_t kMaxGatedExecutions = 32;

// Host clock around `executions` executions and a synchronization (host providers).
std::unique_ptr<Sampler> make_host_sampler(PlanInstance& instance);
// One device event pair around `executions` back-to-back launches; short batches gated.
std::unique_ptr<Sampler> make_event_sampler(PlanInstance& instance, std::unique_ptr<KernelTimer> timer);
// Every execution of a batch between its own event pair, the batch still back to back; a sample
// is the median of its executions (--per-execution-events).
std::unique_ptr<Sampler> make_split_event_sampler(PlanInstance& instance);
// The batch captured once as a graph and replayed between one event pair; `fallback` takes the
// samples a capture cannot (one execution, or a capture the library refused).
std::unique_ptr<Sampler> make_replay_sampler(PlanInstance& instance, std::unique_ptr<KernelTimer> timer,
                                             std::unique_ptr<Sampler> fallback);
// A cache flush before every sample, outside the timed region (--cache-mode cold).
std::unique_ptr<Sampler> make_cold_sampler(std::unique_ptr<Sampler> inner,
                                           std::unique_ptr<CacheFlusher> flusher, Stream& stream);
// An idle gap before every sample (--latency).
std::unique_ptr<Sampler> make_idle_gap_sampler(std::unique_ptr<Sampler> inner, Stream& stream,
                                               double idle_ms);

// --cache-mode rotating: how many sets of a plan's buffers its executions rotate through, enough
// that a set is used again only after twice the cache of other data (at most kMaxRotationCopies,
// and at most half of the free device memory), and what that does, for the row.
inline constexpr std::int64_t kMaxRotationCopies = 256;
struct RotationPlan {
  std::int64_t copies = 1;
  std::int64_t working_set_bytes = 0, cache_bytes = 0;
  std::int64_t kept_bytes = 0;  // of working_set_bytes, in one set (--cache-mode producer)
  std::string description;
};
// `kept_bytes` of the working set stay in one set (--cache-mode producer): the copies are counted
// to pass twice the cache with the rest; each copy still holds the whole set (memory).
RotationPlan plan_rotation(std::int64_t working_set_bytes, std::int64_t cache_bytes,
                           std::optional<std::int64_t> device_free_bytes, std::int64_t kept_bytes = 0);
// Each execution of `inner`'s samples on the next set of the plan's buffers (the instance's
// rotation copies, made here). `keep_fresh_inputs` (--cache-mode producer): the inputs a producer
// has just written (graph/fresh_inputs.hpp) stay in the placed set.
std::unique_ptr<Sampler> make_rotating_sampler(std::unique_ptr<Sampler> inner, PlanInstance& instance,
                                               bool keep_fresh_inputs = false);

// A host row's samples with the state of its cores beside them: every kCoreRulerWindowMs (or
// longer, see kCoreRulerMaxShare), before the next sample, `ruler` reads the cores of the row's `threads`
// (read_core_ruler; tests script it). 5 ms: a reading costs ~8 us on two threads (a parallel region of a
// large team tens), and the states it sees last 0.2 s and more.
inline constexpr double kCoreRulerWindowMs = 5;
// The share of a row's time the readings may take: a reading that took longer (a team waiting a
// time slice for a thread with no free core) lengthens the next window to keep to it.
inline constexpr double kCoreRulerMaxShare = 0.02;
using CoreRuler = std::function<std::optional<CoreReading>()>;
std::unique_ptr<Sampler> make_core_ruler_sampler(std::unique_ptr<Sampler> inner, CoreRuler ruler,
                                                 std::int64_t threads);

// The sampler the measure options ask for. Throws when cold mode has no flush for this stream
// or per-execution events no device timer.
std::unique_ptr<Sampler> make_sampler(PlanInstance& instance, const MeasureOptions& options);

// The paced regime around another sampler: after every sample the device idles so that its duty
// cycle stays at `duty` (--regime paced). Not owning: the loop switches between the sampler and
// this wrapper of it (the other regime's figure).
// A sampler around another that takes its samples and says what it says (method, cache, rotation,
// the core ruler's tally): a wrapper overrides take() and what it changes. Owning (the wrapper
// chain make_sampler builds) or not (the paced regime, switched on and off around the sampler).
class SamplerWrapper : public Sampler {
 public:
  std::string method(std::int64_t batch) const override { return inner_.method(batch); }
  bool device_timed() const override { return inner_.device_timed(); }
  bool single_execution() const override { return inner_.single_execution(); }
  void rebound() override { inner_.rebound(); }
  std::string replay_fallback(std::int64_t batch) const override { return inner_.replay_fallback(batch); }
  std::string cache_flush() const override { return inner_.cache_flush(); }
  CacheMode cache_mode() const override { return inner_.cache_mode(); }
  std::int64_t batch_multiple() const override { return inner_.batch_multiple(); }
  std::int64_t rotation_copies() const override { return inner_.rotation_copies(); }
  std::int64_t kept_bytes() const override { return inner_.kept_bytes(); }
  void fit_batch(std::int64_t executions) override { inner_.fit_batch(executions); }
  const CoreRulerTally* core_ruler() const override { return inner_.core_ruler(); }
  double preparation_ms() override { return inner_.preparation_ms(); }

 protected:
  explicit SamplerWrapper(Sampler& inner) : inner_(inner) {}
  explicit SamplerWrapper(std::unique_ptr<Sampler> inner) : owned_(std::move(inner)), inner_(*owned_) {}
  Sampler& inner() { return inner_; }

 private:
  std::unique_ptr<Sampler> owned_;  // declared before inner_, which may refer to it
  Sampler& inner_;
};

class PacedSampler final : public SamplerWrapper {
 public:
  PacedSampler(Sampler& inner, Stream& stream, double duty)
      : SamplerWrapper(inner), stream_(stream), duty_(duty) {}
  Sample take(std::int64_t executions) override;
  // Idles after `sample_ms` of work; returns the idle time.
  double idle_after(double sample_ms);
  double idle_total_ms() const { return idle_total_ms_; }
  double duty() const { return duty_; }

 private:
  Stream& stream_;
  double duty_;
  double idle_total_ms_ = 0;
};

}  // namespace dnnbench
