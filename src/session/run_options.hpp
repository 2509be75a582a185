#pragma once
// Options of a run, resolved from the command line (cli/). run/ reads only this struct.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/validate.hpp"
#include "input/archive.hpp"
#include "measure/steady_state.hpp"
#include "measure/stopping_rule.hpp"
#include "providers/registry.hpp"
#include "report/tuning_db.hpp"
#include "tensor/fill.hpp"

namespace dnnbench {

struct OracleOptions {
  bool enabled = false;
  bool aa_self_check = false;  // --oracle-aa: the heuristic plan against itself, for the noise floor
  int max_plans = 32;          // per row
  double max_seconds = 30;     // per row's sweep
  double min_effect = 0.01;    // smallest speedup - 1 called significant (--oracle-min-effect)
  // --oracle-regimes both: the sweep's leading candidates timed again in the other regime
  // (OracleResult::other_regime): a plan that wins cool can lose at the power cap.
  bool both_regimes = false;
  // Sweep measurements are short: they only rank candidates; the winner is re-timed paired.
  AdaptiveLimits sweep{0.02, 5, 10, 200, 250};
};

enum class Fp32Math { strict, tf32 };
std::string_view fp32_math_name(Fp32Math math);

// --reduced-precision: engines whose notes say they accumulate in a reduced precision (a sum of
// fp16 products in fp16) give legitimately larger errors; allow runs them at a tolerance that
// says so, skip lists them as skipped.
enum class ReducedPrecision { allow, skip };
std::string_view reduced_precision_name(ReducedPrecision policy);

// automatic (`auto`, the default): producer where the stream has a device timer, hot elsewhere.
enum class CacheMode { hot, cold, rotating, producer, automatic };
std::string_view cache_mode_name(CacheMode mode);
std::optional<CacheMode> cache_mode_from_name(std::string_view name);
// The power regime a number is measured in (--regime; docs/methodology.md, "Power regimes").
// sustained: samples back to back once the device is steady, as in a training or inference loop;
// on a power-capped GPU this is the figure at the cap. paced: an idle gap after every sample, so
// the device runs below its cap: the per-kernel best case, which no loop sees.
enum class Regime { sustained, paced };
std::string_view regime_name(Regime regime);
std::optional<Regime> regime_from_name(std::string_view name);
Regime other_regime(Regime regime);

// How each sample is taken (docs/methodology.md says what the resulting time means).
struct MeasureOptions {
  // cold: the provider's caches (GPU L2, CPU LLC) are flushed before every timed execution,
  // outside the timed region; each sample is then one execution (no batching). rotating (device
  // providers): back-to-back executions rotate through copies of the plan's buffers that together
  // exceed twice the cache, so each finds its data evicted as inside a network; host providers,
  // whose binding reorders, flush their last-level cache as cold does instead. auto (the default)
  // rotates device rows and keeps host rows hot: on the H100 the decode GEMMs whose 32 MB weight
  // fits in L2 read up to 1.9x faster hot than rotating, and hot they differed by up to 4.9%
  // between processes against 1.05% rotating (bench/results/cache-modes.json).
  CacheMode cache_mode = CacheMode::automatic;
  // --latency: isolated latency after idle: the device idles `latency_idle_ms` before each single
  // execution (no batching), instead of the default steady-state throughput in a loop. 2 ms is
  // the idle gap of the H200 measurement in shared/reference/ANCHORS.md: long enough for the
  // launch queue to drain and the clocks to react.
  bool latency = false;
  double latency_idle_ms = 2;
  std::optional<std::int64_t> batch;  // --batch N: executions per sample, forced (1 = single-run)
  // --per-execution-events: every execution of a batch between its own event pair, the batch
  // still back to back; a sample is the median of its executions. Single-run times taken in the
  // same thermal state as the batch (a --batch 1 loop idles between samples and clocks up), to
  // check that batching does not bias the per-execution figure.
  bool per_execution_events = false;
  // GPU throughput batches are captured once in a CUDA graph and replayed (one launch per
  // sample), so the host's per-execution launch cost never shows in a short kernel's time;
  // --no-graph-replay (or a capture the library refuses) times back-to-back launches instead.
  bool graph_replay = true;
  // GPU: after the measurement, one more sample with CUPTI kernel activity on, for the row's
  // kernels[] and kernel_sum_stats (--no-kernel-activity: none; also none where CUPTI is absent).
  bool kernel_activity = true;
  // Under sustained load the H200 sits at its power cap and its SM clock falls 13-27% below boost,
  // so a long kernel's time depends on the regime (shared/reference/ANCHORS.md). sustained (the
  // default): what a user's loop gets, the figure to quote; the GPU was measured 15% slower on a
  // bf16 8192^3 GEMM back to back than paced, and PyTorch's training loop sees the former.
  // paced: each sample is followed by an idle gap that keeps the device's duty cycle at
  // `pacing_duty`. The 50% duty: a 4096x4096x11008 fp16 GEMM (0.5 ms) ran at 1440 MHz and 598 us
  // back to back, at 1965 MHz and 511 us with 50% duty, 1980 MHz and 509 us with 25%
  // (bench/results/power-regimes.json).
  Regime regime = Regime::sustained;
  double pacing_duty = 0.5;
  // Sustained rows the driver reports at the power cap also get a short paced figure
  // (TimingInfo::other_regime): this many samples with idle gaps after the measurement (0: none).
  // Seven samples of ~10 ms with their gaps cost ~0.15 s a capped row.
  std::int64_t other_regime_samples = 7;
  SteadyStateLimits steady;  // warm-up until steady; max_ms is --warmup-max-ms
  // A row whose warm-up found the device at its power cap measures this long, one cycle of the
  // driver's power control, and its figure is the pooled median over it (PowerCycleRule): the
  // driver cycles the clock about once a second there, and a 150 ms row read anywhere from 3%
  // fast to 9% slow against the cycle's median, a 1 s row within 2% (bench/results/power-settle.json),
  // a window of exactly the cycle within 0.2-0.7% (sd) wherever it started (bench/results/power-cycle.json).
  // --capped-min-ms; 0: no cycle (the adaptive rule, as below the cap).
  double capped_min_ms = 1000;
  // Sustained GPU rows sample in batches of about this many ms until the warm-up finds the device
  // held at its power cap, then in 10 ms batches (session/plan_session.cpp, kTargetBatchMs); 10 or 0:
  // 10 ms from the start. With row groups, 2 ms took the H100's GEMM suite from 39 to 67-70 rows a
  // minute, and two such runs compared 117 SAME, 0 FASTER/SLOWER (bench/results/row-groups.json).
  double uncapped_batch_ms = 2;
  // --placements K: the measurement in at least K chunks, each on freshly placed buffers (new
  // allocations after a seeded spacer, at seeded offsets; session/plan_buffers.hpp), the figure
  // the median of the chunks' medians and their spread recorded (TimingInfo::placements). One
  // process is one sample of where its buffers lie: on the H200 one kernel read 1.30x apart in
  // two processes, by where its buffers landed. Each chunk takes a K-th of the stopping rule's
  // minimum samples and time, so a row costs about what one placement did; 1: one placement.
  std::int64_t placements = 3;
  // Threads a host row's library runs (env/host_load.hpp, cpu_threads_used): with 2 or more, a
  // host row records the machine's fork-join time before and after its samples
  // (TimingInfo::host_sync); 0: not recorded.
  std::int64_t host_sync_threads = 0;
  // The SM clock's relative movement during sampling above which a row is flagged clock_unstable.
  double clock_tolerance = 0.02;
};

// One line of a recipe's [[engines]] matrix.
struct EngineChoice {
  std::string provider, id;
  std::optional<std::string> label;  // shown with the row (engine_label)
};

struct RunOptions {
  std::vector<std::string> providers;  // empty: every provider built
  std::vector<std::string> engines;    // ids or names; empty: all, in the library's order
  std::int64_t warmup = 3;             // untimed executions before sampling, at least
  MeasureOptions measure;
  std::optional<std::int64_t> iters;  // fixed sample count; unset: adaptive rule
  AdaptiveLimits adaptive;
  std::uint64_t seed = 42;
  FillKind fill = FillKind::normal;  // --fill (tensor/fill.hpp says what each kind is for)
  // --fp32-math: which engines may run fp32 graphs. strict (default): only engines that compute
  // in fp32; an engine that rounds fp32 inputs to TF32 is listed as skipped. tf32: those run too,
  // judged at the TF32 tolerance. docs/methodology.md says why strict is the default.
  Fp32Math fp32_math = Fp32Math::strict;
  ReducedPrecision reduced_precision = ReducedPrecision::allow;
  std::optional<double> rtol, atol;  // override the per-dtype defaults
  std::optional<std::string> dump_tensors_dir;
  bool save_samples = false;
  // --repeat N: the suite as N passes in fresh processes (isolate/repeat_passes.hpp; a pass itself
  // runs with 1), under MPI each row's plan in N fresh plan instances (row.repeat); 1: once.
  std::int64_t repeat = 1;
  ValidationLimits limits;
  // Host and device bytes a graph may need (env/memory_budget.hpp); unset: a safe fraction of
  // what is free.
  std::optional<std::int64_t> max_memory;
  OracleOptions oracle;
  // --plans-from FILE: the tuning file whose stored plans each row re-times (tune/plans_from.hpp);
  // with no --engine, a graph's rows are the engines the file stores for it.
  std::shared_ptr<const TuningDb> plans_from;
  // Set in a profiled child (--profile, isolate/profiler.hpp): the plan the row must run; its timed
  // executions are bracketed for the profiler (Stream::profiler_start/stop).
  std::optional<std::string> profile_child_plan;
  // Device providers run a graph's rows in groups, host work first and the measurements back to
  // back (run/row_runner.hpp, run_row_group); --no-row-groups: each row whole, one after another.
  bool group_rows = true;
  // --keep-warm: in the sustained regime, after a group with a row at the power cap, the device's
  // heater keeps it loaded until the next group measures (run/keep_warm.hpp). Off by default: on
  // the H100 it cut a capped row's warm-up from 1.30 to 0.82 s, but rows that ended below the cap
  // after idle were held at it after heat and measured a whole power cycle, so a ResNet-50 fp16
  // suite took 66-70 s against 64 s (bench/results/keep-warm.json).
  bool keep_warm = false;
  std::vector<std::string> skip_engines;  // ids or names never run
  // --max-engines: run only the first N selected engines of each provider (the heuristic's
  // top N when --engine is not given); 0: all.
  std::int64_t max_engines = 0;
  std::vector<EngineChoice> engine_matrix;  // a provider listed here runs only these ids, in order
  std::vector<std::string> ops;             // keep only graphs with a node of one of these op types
  bool dry_run = false;                     // load, filter and list the graphs; run no row
  ArchiveLimits archive;
  ProviderSettings provider_settings;  // --heur-mode
  // Rows of device providers on graphs with a convolution or matmul are judged by the CUDA
  // reference where it can run (fp32 accumulation); --cpu-reference: always the fp64 CPU one.
  bool gpu_reference = true;
  // Recorded in the metadata only.
  std::vector<std::string> graph_arguments;
  std::optional<std::string> recipe_path, output_path;
  // `dnnbench calibrate`'s file whose noise floor goes into the metadata (unset: the default path).
  std::optional<std::string> calibration_file;
};

}  // namespace dnnbench
