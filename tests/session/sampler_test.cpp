// Each sampler (session/sampler.hpp) and the placements of a measurement, on the reference
// provider (host) behind a stream that offers device-style timers, a gate, a capture and a cache
// flush, counting what each method used, so that every timing path runs without a GPU.
#include "session/sampler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "../support/graph_builder.hpp"
#include "measure/stopping_rule.hpp"
#include "providers/registry.hpp"
#include "session/plan_session.hpp"

namespace dnnbench {
namespace {

Graph relu_32x32_graph() {
  return testing::relu_square_graph(32);
}

struct Counts {
  int timer_starts = 0, gates = 0, captures = 0, replays = 0, flushes = 0;
};

// A host stream dressed as a device stream. `refuse_capture`: capture fails with a reason.
class FakeDeviceStream final : public Stream {
 public:
  FakeDeviceStream(std::unique_ptr<Stream> inner, Counts& counts, bool refuse_capture = false)
      : inner_(std::move(inner)), counts_(counts), refuse_capture_(refuse_capture) {}
  void synchronize() override { inner_->synchronize(); }
  // A 16 KiB "L2": the 32x32 fp32 relu graph's 8 KiB working set needs 5 sets to pass twice it.
  std::int64_t last_level_cache_bytes() override { return 16 * 1024; }
  std::unique_ptr<KernelTimer> make_kernel_timer() override { return std::make_unique<Timer>(counts_); }
  std::unique_ptr<StreamGate> make_gate() override {
    ++counts_.gates;
    return std::make_unique<Gate>();
  }
  std::unique_ptr<CacheFlusher> make_cache_flusher() override { return std::make_unique<Flusher>(counts_); }
  std::unique_ptr<BatchReplay> capture(const std::function<void()>& enqueue, std::int64_t executions,
                                       std::string& why_not) override {
    if (refuse_capture_) {
      why_not = "capture refused (test)";
      return nullptr;
    }
    ++counts_.captures;
    return std::make_unique<Replay>(enqueue, executions, counts_);
  }

 private:
  class Timer final : public KernelTimer {
   public:
    explicit Timer(Counts& c) : c_(c) {}
    void start() override {
      ++c_.timer_starts;
      begin_ = std::chrono::steady_clock::now();
    }
    void stop() override { end_ = std::chrono::steady_clock::now(); }
    double elapsed_ms() override { return std::chrono::duration<double, std::milli>(end_ - begin_).count(); }

   private:
    Counts& c_;
    std::chrono::steady_clock::time_point begin_, end_;
  };
  struct Gate final : StreamGate {
    void release() override {}
  };
  class Flusher final : public CacheFlusher {
   public:
    explicit Flusher(Counts& c) : c_(c) {}
    void flush() override { ++c_.flushes; }
    std::string description() const override { return "test flush"; }

   private:
    Counts& c_;
  };
  class Replay final : public BatchReplay {
   public:
    Replay(std::function<void()> enqueue, std::int64_t n, Counts& c)
        : enqueue_(std::move(enqueue)), n_(n), c_(c) {}
    void launch() override {
      ++c_.replays;
      for (std::int64_t i = 0; i < n_; ++i) enqueue_();
    }

   private:
    std::function<void()> enqueue_;
    std::int64_t n_;
    Counts& c_;
  };
  std::unique_ptr<Stream> inner_;
  Counts& counts_;
  bool refuse_capture_;
};

struct Fixture {
  explicit Fixture(bool device, bool refuse_capture = false)
      : provider(make_provider("reference")),
        host_stream(provider->make_stream()),
        graph(relu_32x32_graph()),
        data(graph, 1) {
    if (device) fake = std::make_unique<FakeDeviceStream>(provider->make_stream(), counts, refuse_capture);
    stream = device ? static_cast<Stream*>(fake.get()) : host_stream.get();
    instance = std::make_unique<PlanInstance>(
        data, *provider, *stream, provider->heuristic_plan(graph, provider->engines(graph).at(0)));
  }
  std::unique_ptr<Provider> provider;
  std::unique_ptr<Stream> host_stream;
  Counts counts;
  std::unique_ptr<FakeDeviceStream> fake;
  Stream* stream = nullptr;
  Graph graph;
  GraphData data;
  std::unique_ptr<PlanInstance> instance;
};

// One set of buffers: the replay and event tests count the captures of one placed set.
MeasureOptions hot_options() {
  MeasureOptions o;
  o.cache_mode = CacheMode::hot;
  return o;
}

TEST(Sampler, HostStreamGetsTheHostClock) {
  Fixture f(false);
  const auto s = make_sampler(*f.instance, hot_options());
  EXPECT_FALSE(s->device_timed());
  EXPECT_EQ(s->method(8), "host-per-execution");
  const auto sample = s->take(4);
  EXPECT_GT(sample.host_ms, 0);
  EXPECT_TRUE(std::isnan(sample.kernel_ms));
}

TEST(Sampler, DeviceBatchesReplayOneCaptureUntilRebound) {
  Fixture f(true);
  const auto s = make_sampler(*f.instance, hot_options());
  EXPECT_TRUE(s->device_timed());
  s->take(6);
  s->take(6);
  EXPECT_EQ(f.counts.captures, 1);
  EXPECT_EQ(f.counts.replays, 2);
  EXPECT_EQ(s->method(6), "cuda-graph-replay(6 per sample)");
  EXPECT_EQ(s->replay_fallback(6), "");
  // New buffers: the capture holds the old addresses and is made again.
  s->rebound();
  s->take(6);
  EXPECT_EQ(f.counts.captures, 2);
  // A single execution is not replayed: one gated event pair.
  const int gates = f.counts.gates;
  s->take(1);
  EXPECT_EQ(f.counts.replays, 3);
  EXPECT_EQ(f.counts.gates, gates + 1);
}

TEST(Sampler, RefusedCaptureFallsBackToEventsAndSaysWhy) {
  Fixture f(true, true);
  const auto s = make_sampler(*f.instance, hot_options());
  const int starts = f.counts.timer_starts;
  s->take(4);
  EXPECT_EQ(f.counts.timer_starts, starts + 1);
  EXPECT_EQ(s->method(4), "device-events-batched(4 per sample)");
  EXPECT_EQ(s->replay_fallback(4), "capture refused (test)");
}

TEST(Sampler, NoGraphReplayTimesBackToBackLaunches) {
  Fixture f(true);
  auto o = hot_options();
  o.graph_replay = false;
  const auto s = make_sampler(*f.instance, o);
  s->take(40);  // above kMaxGatedExecutions: not gated
  EXPECT_EQ(f.counts.captures, 0);
  EXPECT_EQ(f.counts.gates, 0);
  EXPECT_EQ(s->method(40), "device-events-batched(40 per sample)");
}

TEST(Sampler, PerExecutionEventsStartOneTimerPerExecution) {
  Fixture f(true);
  MeasureOptions o;
  o.per_execution_events = true;
  const auto s = make_sampler(*f.instance, o);
  s->take(5);
  EXPECT_EQ(f.counts.timer_starts, 5);
  EXPECT_NE(s->method(5).find("device-events-per-execution"), std::string::npos);
}

TEST(Sampler, ColdFlushesBeforeEverySampleOfOneExecution) {
  Fixture f(true);
  MeasureOptions o;
  o.cache_mode = CacheMode::cold;
  const auto s = make_sampler(*f.instance, o);
  EXPECT_TRUE(s->single_execution());
  s->take(1);
  s->take(1);
  EXPECT_EQ(f.counts.flushes, 2);
  EXPECT_EQ(f.counts.captures, 0);
  EXPECT_EQ(s->method(1), "device-events-single+cold-flush");
  EXPECT_EQ(s->cache_flush(), "test flush");
}

TEST(Sampler, RotationPlanTakesEnoughCopiesToPassTwiceTheCache) {
  EXPECT_EQ(plan_rotation(8 << 10, 16 << 10, std::nullopt).copies, 5);
  EXPECT_EQ(plan_rotation(30 << 20, 60 << 20, std::nullopt).copies, 5);  // a 30 MB GEMM, H200 L2
  const auto big = plan_rotation(200 << 20, 60 << 20, std::nullopt);     // streams through anyway
  EXPECT_EQ(big.copies, 1);
  EXPECT_NE(big.description.find("twice the cache"), std::string::npos) << big.description;
  // A tiny working set is capped, and says the cache still holds part of the rotation.
  const auto tiny = plan_rotation(1 << 10, 60 << 20, std::nullopt);
  EXPECT_EQ(tiny.copies, kMaxRotationCopies);
  EXPECT_NE(tiny.description.find("capped"), std::string::npos) << tiny.description;
  // At most half of the free device memory: 10 MB free holds 5 MB of copies, 2 of 2 MB, plus the placed set.
  EXPECT_EQ(plan_rotation(2 << 20, 60 << 20, std::int64_t{10} << 20).copies, 3);
  EXPECT_EQ(plan_rotation(8 << 10, 0, std::nullopt).copies, 1);  // cache size unknown
}

TEST(Sampler, RotatingReplaysAWholeRoundOfCopiesAndLeavesThePlacedSetBound) {
  Fixture f(true);
  PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
  MeasureOptions o;
  o.cache_mode = CacheMode::rotating;
  o.placements = 1;
  session.set_measure_options(o);
  FixedCountRule rule(3);
  const auto m = session.measure(rule, false);
  // Batches are whole rounds of the 5 sets, replayed from one capture.
  EXPECT_EQ(m.timing.batch % 5, 0) << m.timing.batch;
  EXPECT_EQ(f.counts.captures, 1);
  EXPECT_NE(m.timing.method.find("cuda-graph-replay"), std::string::npos) << m.timing.method;
  EXPECT_NE(m.timing.method.find("+rotating(5 copies)"), std::string::npos) << m.timing.method;
  EXPECT_EQ(m.timing.cache_mode, "rotating");
  EXPECT_NE(m.timing.cache_flush.find("rotating over 5 sets"), std::string::npos) << m.timing.cache_flush;
  ASSERT_TRUE(m.timing.cache_fit);
  EXPECT_EQ(m.timing.cache_fit->rotation_copies, 5);
  // 5 x 8 KiB rotated against a 16 KiB cache: past twice the cache, not sensitive.
  EXPECT_FALSE(cache_sensitive(*m.timing.cache_fit, m.timing.cache_mode));
  // The check after the measurement reads the placed set, which the plan is bound to again.
  session.judge_outputs(OutputRules{});
  EXPECT_TRUE(session.checked_run().passed);
}

TEST(Sampler, RotatingExecutionsWriteEveryCopy) {
  Fixture f(true);
  f.instance->add_rotation_copies(3);
  EXPECT_EQ(f.instance->rotation_copies(), 3);
  const auto y = f.graph.output_uids().at(0);
  // Poisoned placed outputs stay poisoned while the executions go to the copies only...
  f.instance->set_rotating(true);
  f.instance->execute();  // the placed set
  f.instance->buffers().poison_outputs(f.instance->provider(), f.instance->stream());
  f.instance->execute();  // copy 1
  f.instance->execute();  // copy 2
  f.instance->set_rotating(false);
  f.instance->stream().synchronize();
  const auto* out = reinterpret_cast<const float*>(f.instance->buffers().host(y).data());
  EXPECT_TRUE(std::isnan(out[0]));
  // ...and the next execution after rotating is off writes them again.
  f.instance->execute();
  f.instance->stream().synchronize();
  EXPECT_FALSE(std::isnan(out[0]));
}

// A rotation whose round would outlast a 10 ms batch is cut to the batch's executions before the
// copies are made (at the first sample); after that it stays.
TEST(Sampler, RotationIsCutToTheExecutionsOfOneBatchBeforeItsCopiesAreMade) {
  Fixture f(true);
  MeasureOptions o;
  o.cache_mode = CacheMode::rotating;
  const auto s = make_sampler(*f.instance, o);
  EXPECT_EQ(s->rotation_copies(), 5);
  EXPECT_EQ(f.instance->rotation_copies(), 1);  // nothing copied before the first sample
  s->fit_batch(8);                              // a round of 5 fits: unchanged
  EXPECT_EQ(s->rotation_copies(), 5);
  s->fit_batch(3);
  EXPECT_EQ(s->rotation_copies(), 3);
  EXPECT_EQ(s->batch_multiple(), 3);
  EXPECT_NE(s->cache_flush().find("cut from 5 to the 3"), std::string::npos) << s->cache_flush();
  s->take(3);
  EXPECT_EQ(f.instance->rotation_copies(), 3);
  s->fit_batch(1);  // the copies exist: no change
  EXPECT_EQ(s->rotation_copies(), 3);
}

// auto, the default: a stream with a device timer rotates keeping a producer's fresh output
// (producer); a host provider stays hot (no flush).
TEST(Sampler, AutoTimesDeviceRowsAsProducerAndKeepsHostRowsHot) {
  Fixture device(true);
  MeasureOptions o;
  EXPECT_EQ(o.cache_mode, CacheMode::automatic);
  const auto producer = make_sampler(*device.instance, o);
  EXPECT_EQ(producer->cache_mode(), CacheMode::producer);
  EXPECT_EQ(producer->rotation_copies(), 9);  // as --cache-mode producer below: the relu's input kept
  EXPECT_EQ(producer->kept_bytes(), 32 * 32 * 4);
  // The rotation without the kept inputs stays one flag away.
  Fixture rotated(true);
  o.cache_mode = CacheMode::rotating;
  const auto rotating = make_sampler(*rotated.instance, o);
  EXPECT_EQ(rotating->cache_mode(), CacheMode::rotating);
  EXPECT_EQ(rotating->rotation_copies(), 5);
  EXPECT_EQ(rotating->kept_bytes(), 0);
  o.cache_mode = CacheMode::automatic;
  Fixture host(false);
  const auto hot = make_sampler(*host.instance, o);
  EXPECT_EQ(hot->cache_mode(), CacheMode::hot);
  EXPECT_FALSE(hot->single_execution());
  EXPECT_EQ(hot->method(1), "host-per-execution");
  EXPECT_TRUE(hot->cache_flush().empty());
}

TEST(Sampler, RotatingOnAHostProviderFlushesTheLlcInstead) {
  Fixture f(false);
  MeasureOptions o;
  o.cache_mode = CacheMode::rotating;
  const auto s = make_sampler(*f.instance, o);
  EXPECT_TRUE(s->single_execution());
  EXPECT_EQ(s->rotation_copies(), 1);
  EXPECT_EQ(s->method(1), "host-per-execution+cold-flush");
  EXPECT_NE(s->cache_flush().find("rotating is for device providers"), std::string::npos) << s->cache_flush();
}

// --cache-mode producer: the relu's input (what a producer has just written) stays in the placed
// set, bound by every copy, and the copies are counted from the rest: 4 KiB of output against the
// 16 KiB cache takes 9 sets where rotating everything took 5.
TEST(Sampler, ProducerKeepsTheFreshInputInThePlacedSetAndRotatesTheRest) {
  Fixture f(true);
  MeasureOptions o;
  o.cache_mode = CacheMode::producer;
  const auto s = make_sampler(*f.instance, o);
  EXPECT_EQ(s->cache_mode(), CacheMode::producer);
  EXPECT_EQ(s->rotation_copies(), 9);
  EXPECT_EQ(s->kept_bytes(), 32 * 32 * 4);
  EXPECT_NE(s->method(9).find("+producer(9 copies)"), std::string::npos) << s->method(9);
  EXPECT_NE(s->cache_flush().find("kept in one set"), std::string::npos) << s->cache_flush();
  s->take(9);
  const auto x = f.graph.input_uids().at(0), y = f.graph.output_uids().at(0);
  ASSERT_EQ(f.instance->rotation_copies(), 9);
  for (std::size_t k = 1; k < 9; ++k) {
    EXPECT_EQ(f.instance->set_bindings(k).at(x), f.instance->set_bindings(0).at(x)) << k;
    EXPECT_NE(f.instance->set_bindings(k).at(y), f.instance->set_bindings(0).at(y)) << k;
  }
  // A new placement of the placed set takes the kept input with it.
  ASSERT_TRUE(f.instance->move_to(Placement{1, 7}));
  for (std::size_t k = 1; k < 9; ++k)
    EXPECT_EQ(f.instance->set_bindings(k).at(x), f.instance->set_bindings(0).at(x));
  // Rotating keeps nothing.
  Fixture g(true);
  o.cache_mode = CacheMode::rotating;
  EXPECT_EQ(make_sampler(*g.instance, o)->kept_bytes(), 0);
}

// A whole measurement in producer mode records the kept bytes beside the rotation, and its check
// reads the placed set.
TEST(Sampler, ProducerRowsRecordTheKeptBytesAndPass) {
  Fixture f(true);
  PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
  MeasureOptions o;
  o.cache_mode = CacheMode::producer;
  o.placements = 1;
  session.set_measure_options(o);
  FixedCountRule rule(3);
  const auto m = session.measure(rule, false);
  EXPECT_EQ(m.timing.cache_mode, "producer");
  ASSERT_TRUE(m.timing.cache_fit);
  // 9 sets, or fewer where a 10 ms batch holds fewer executions (a loaded machine's).
  EXPECT_GE(m.timing.cache_fit->rotation_copies, 1);
  EXPECT_LE(m.timing.cache_fit->rotation_copies, 9);
  EXPECT_EQ(m.timing.cache_fit->kept_bytes, 32 * 32 * 4);
  EXPECT_NE(m.timing.cache_flush.find("kept in one set"), std::string::npos) << m.timing.cache_flush;
  session.judge_outputs(OutputRules{});
  EXPECT_TRUE(session.checked_run().passed);
}

TEST(Sampler, ProducerOnAHostProviderFlushesTheLlcInstead) {
  Fixture f(false);
  MeasureOptions o;
  o.cache_mode = CacheMode::producer;
  const auto s = make_sampler(*f.instance, o);
  EXPECT_TRUE(s->single_execution());
  EXPECT_NE(s->cache_flush().find("producer is for device providers"), std::string::npos) << s->cache_flush();
}

TEST(Sampler, LatencyIdlesBeforeEachSampleAndColdFlushesBeforeTheGap) {
  Fixture f(false);
  MeasureOptions o;
  o.latency = true;
  o.latency_idle_ms = 5;
  o.cache_mode = CacheMode::cold;
  const auto s = make_sampler(*f.instance, o);
  EXPECT_TRUE(s->single_execution());
  const auto t0 = std::chrono::steady_clock::now();
  s->take(1);
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(elapsed_ms, 5.0);
  EXPECT_EQ(s->method(1), "host-per-execution+idle-gap(5 ms)+cold-flush");
  EXPECT_NE(s->cache_flush().find("LLC"), std::string::npos) << s->cache_flush();
}

TEST(Sampler, PacedIdlesToHoldTheDuty) {
  Fixture f(false);
  const auto inner = make_sampler(*f.instance, MeasureOptions{});
  PacedSampler paced(*inner, *f.stream, 0.5);
  EXPECT_DOUBLE_EQ(paced.idle_after(4.0), 4.0);  // 50% duty: as long idle as busy
  EXPECT_DOUBLE_EQ(paced.idle_after(0.0), 0.0);
  PacedSampler quarter(*inner, *f.stream, 0.25);
  EXPECT_DOUBLE_EQ(quarter.idle_after(2.0), 6.0);
  paced.take(3);
  EXPECT_GT(paced.idle_total_ms(), 4.0);
}

TEST(Placements, FreshBuffersLandElsewhereWithTheSameData) {
  Fixture f(false);
  PlanBuffers plain(f.data, *f.provider, *f.stream);
  PlanBuffers moved(f.data, *f.provider, *f.stream, Placement{1, 7});
  const auto x = f.graph.input_uids().at(0);
  EXPECT_NE(plain.bindings().at(x), moved.bindings().at(x));
  EXPECT_EQ(plain.host(x).size_bytes(), moved.host(x).size_bytes());
  EXPECT_EQ(0, std::memcmp(plain.host(x).data(), moved.host(x).data(), plain.host(x).size_bytes()));
}

// Sets `session` to measure over three placements in batches of 4.
void three_placements(PlanSession& session) {
  MeasureOptions o;
  o.placements = 3;
  o.batch = 4;
  session.set_measure_options(o);
}

TEST(Placements, MeasurementSpreadsOverChunksAndRebindsEachTime) {
  Fixture f(true);
  PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
  three_placements(session);
  FixedCountRule rule(9);
  const auto m = session.measure(rule, false);
  ASSERT_TRUE(m.timing.placements);
  EXPECT_EQ(m.timing.placements->chunks, 3);
  EXPECT_EQ(m.timing.placements->medians_ms.size(), 3u);
  EXPECT_GE(m.timing.placements->spread, 0);
  EXPECT_EQ(m.kernel.n, 9);  // the exact count, split 3 + 3 + 3
  // Each placement captured its own replay (the old one held freed addresses).
  EXPECT_EQ(f.counts.captures, 3);
  // The figure is the median of the chunks' medians.
  auto medians = m.timing.placements->medians_ms;
  std::sort(medians.begin(), medians.end());
  EXPECT_DOUBLE_EQ(m.kernel.median, medians[1]);
  EXPECT_LE(m.kernel.median_ci_lo, m.kernel.median);
  EXPECT_GE(m.kernel.median_ci_hi, m.kernel.median);
  // The outputs on the last placement are still right.
  session.judge_outputs(OutputRules{});
  EXPECT_TRUE(session.checked_run().passed);
}

// A row held at its power cap measures one cycle of the power control over its placements: the
// figure is the pooled median over the cycle (each chunk holds only a part of it), and the chunks
// are still recorded.
TEST(Placements, OverOnePowerCycleTheFigureIsThePooledMedian) {
  Fixture f(true);
  PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
  three_placements(session);
  AdaptiveLimits caps;
  caps.min_iters = 9;
  PowerCycleRule rule(0, caps);  // a cycle of 0 ms: stops at the 9 samples
  const auto m = session.measure(rule, true);
  ASSERT_TRUE(m.timing.placements);
  EXPECT_EQ(m.timing.placements->chunks, 3);
  EXPECT_EQ(m.timing.stop_reason, "cycle");
  EXPECT_TRUE(m.timing.converged);
  EXPECT_EQ(m.kernel.n, 9);
  EXPECT_DOUBLE_EQ(m.kernel.median, summarize(m.timing.samples_ms).median);
}

// A host row probes the fork-join of as many threads as its provider runs: the reference on one
// thread (DNNBENCH_REFERENCE_THREADS=1) records no probe, on two a two-thread one; a device row none.
TEST(Sampler, HostSyncProbeFollowsTheProvidersOwnThreads) {
  auto probe_threads = [](const char* threads, bool device) {
    setenv("DNNBENCH_REFERENCE_THREADS", threads, 1);
    Fixture f(device);
    PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
    MeasureOptions o;
    o.placements = 1;
    o.host_sync_threads = 4;  // the OpenMP runtime's count
    session.set_measure_options(o);
    const auto n = session.host_sync_threads();
    FixedCountRule rule(2);
    const auto m = session.measure(rule, false);
    // No probe: none recorded. (A probe whose rounds time out on a loaded machine records nothing
    // either, so only its absence is certain.)
    if (n == 0) {
      EXPECT_FALSE(m.timing.host_sync);
    }
    if (m.timing.host_sync) {
      EXPECT_EQ(m.timing.host_sync->threads, n);
    }
    unsetenv("DNNBENCH_REFERENCE_THREADS");
    return n;
  };
  EXPECT_EQ(probe_threads("1", false), 0);
  EXPECT_EQ(probe_threads("2", false), 2);
  EXPECT_EQ(probe_threads("8", false), 4);
  EXPECT_EQ(probe_threads("2", true), 0);
}

// A host row's samples carry the state of its cores: one core-ruler reading a window, before the
// next sample, the disturbed ones counted against the best; the samples themselves pass unchanged.
TEST(Sampler, CoreRulerReadsOncePerWindowAndCountsTheDisturbedOnes) {
  Fixture f(false);
  int calls = 0;
  double us = 1.0;
  auto sampler = make_core_ruler_sampler(
      make_host_sampler(*f.instance),
      [&]() -> std::optional<CoreReading> {
        ++calls;
        return CoreReading{us, 1.0};
      },
      2);
  ASSERT_TRUE(sampler->core_ruler());
  EXPECT_GT(sampler->take(1).host_ms, 0);
  sampler->take(1);
  EXPECT_EQ(calls, 1);  // both samples inside the first window
  us = 1.5;             // a shared core: over kCoreDisturbedAbove x the best
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(kCoreRulerWindowMs + 1));
  sampler->take(1);
  EXPECT_EQ(calls, 2);
  const auto& tally = *sampler->core_ruler();
  EXPECT_EQ(tally.threads, 2);
  EXPECT_EQ(tally.windows(), 2);
  EXPECT_EQ(tally.disturbed_windows, 1);
  EXPECT_EQ(tally.readings_us, (std::vector<double>{1.0, 1.5}));
  EXPECT_DOUBLE_EQ(tally.best_us, 1.0);
}

// A reading that takes long (a team waiting for a thread with no free core) stretches the next
// window, so that reading keeps to kCoreRulerMaxShare of the row's time.
TEST(Sampler, ASlowCoreReadingLengthensTheWindow) {
  Fixture f(false);
  int calls = 0;
  auto sampler = make_core_ruler_sampler(
      make_host_sampler(*f.instance),
      [&]() -> std::optional<CoreReading> {
        ++calls;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));  // a window of 100 ms next
        return CoreReading{1.0, 1.0};
      },
      2);
  sampler->take(1);
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(kCoreRulerWindowMs + 1));
  sampler->take(1);
  EXPECT_EQ(calls, 1);
}

// A host row records its cores' state over the measurement (the median reading of its windows)
// for the team its provider runs; a device-timed row has none.
TEST(Sampler, HostRowsRecordTheirCoresStateAndDeviceRowsNone) {
  auto core_state = [](bool device) {
    setenv("DNNBENCH_REFERENCE_THREADS", "2", 1);
    Fixture f(device);
    PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
    session.set_measure_options(hot_options());
    FixedCountRule rule(20);
    auto m = session.measure(rule, false);
    unsetenv("DNNBENCH_REFERENCE_THREADS");
    return m.timing.core_state;
  };
  const auto host = core_state(false);
  ASSERT_TRUE(host);
  EXPECT_EQ(host->threads, 2);
  EXPECT_GE(host->windows, 1);
  EXPECT_GT(host->ruler_us, 0);
  EXPECT_LE(host->best_us, host->ruler_us);
  EXPECT_LE(host->disturbed_windows, host->windows);
  EXPECT_FALSE(core_state(true));
}

TEST(Placements, OnePlacementRecordsNone) {
  Fixture f(false);
  PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
  FixedCountRule rule(4);
  EXPECT_FALSE(session.measure(rule, false).timing.placements);
}

// Sets `session` to measure over `placements` placements.
void place_over(PlanSession& session, std::int64_t placements) {
  MeasureOptions o;
  o.placements = placements;
  session.set_measure_options(o);
}

// Limits of 8 samples and no minimum time: 2 samples a placement of 4.
AdaptiveLimits eight_samples() {
  AdaptiveLimits limits;
  limits.min_iters = 8;
  limits.min_time_ms = 0;
  return limits;
}

TEST(Placements, AdaptiveRuleGivesEachChunkItsShareOfTheMinimums) {
  Fixture f(false);
  PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
  place_over(session, 4);
  auto limits = eight_samples();
  limits.target_ci_rel = 1e9;  // converges at the minimums
  AdaptiveMedianRule rule(limits);
  const auto m = session.measure(rule, false);
  ASSERT_TRUE(m.timing.placements);
  EXPECT_EQ(m.timing.placements->chunks, 4);
  EXPECT_EQ(m.host.n, 8);  // 2 samples a placement: no more than one placement would take
}

// A microsecond kernel's warm-up samples can fill the iteration cap before the first move: every
// placement still gets its share, or the row is one placement and its spread says nothing.
TEST(Placements, ARuleAtItsCapStillGivesEveryPlacementItsShare) {
  Fixture f(false);
  PlanSession session(f.data, *f.provider, *f.stream, f.instance->spec());
  place_over(session, 4);
  auto limits = eight_samples();
  limits.max_iters = 3;      // capped inside the second placement
  limits.target_ci_rel = 0;  // never converges
  AdaptiveMedianRule rule(limits);
  const auto m = session.measure(rule, false);
  ASSERT_TRUE(m.timing.placements);
  EXPECT_EQ(m.timing.placements->chunks, 4);
  EXPECT_EQ(m.host.n, 8);
  EXPECT_EQ(rule.stop_reason(), "iteration-cap");

  // At the time cap, a sample a placement: a second-long kernel does not take K times its cap.
  AdaptiveLimits timed = limits;
  timed.max_iters = 1000;
  timed.max_time_ms = 0;  // capped at the first sample
  AdaptiveMedianRule time_capped(timed);
  const auto t = session.measure(time_capped, false);
  ASSERT_TRUE(t.timing.placements);
  EXPECT_EQ(t.timing.placements->chunks, 4);
  EXPECT_EQ(t.host.n, 4);
  EXPECT_EQ(time_capped.stop_reason(), "time-cap");
}

}  // namespace
}  // namespace dnnbench
