#pragma once
// The results model: what a run produced. Runners fill it; sinks (console, JSON) only read it.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "measure/clock_summary.hpp"
#include "measure/stats.hpp"

namespace dnnbench {

// timeout: an isolated child (--isolate, --timeout-s) ran past its deadline and was killed.
enum class RowStatus { success, error, skipped, timeout };
std::string_view row_status_name(RowStatus status);
// The status named `name` ("success", ...); nullopt for an unknown name.
std::optional<RowStatus> row_status_from_name(std::string_view name);

// How a row's samples were taken.
struct TimingInfo {
  // "host-per-execution": one execute + synchronize per sample, monotonic clock;
  // "device-events-batched(N per sample)": N back-to-back executions between two device events;
  // "cuda-graph-replay(N per sample)": N executions captured once in a CUDA graph, one replay
  // between two device events (the default for GPU throughput batches);
  // "device-events-single": one execution between two device events (cold, latency, --batch 1);
  // cold and latency modes append "+cold-flush" / "+idle-gap(X ms)".
  std::string method;
  std::int64_t batch = 1;  // executions per sample
  // "throughput": steady-state time per execution in a loop (default); "latency": one isolated
  // execution after idle (--latency).
  std::string meaning = "throughput";
  std::string cache_mode = "hot";
  std::string cache_flush;  // what the cold flush does; empty when hot
  std::string rule;         // stopping rule name
  bool converged = false;
  // Why sampling stopped: "ci", "count" (--iters), "time-cap", "iteration-cap".
  std::string stop_reason;
  // Why a GPU batch ran as back-to-back launches instead of a CUDA-graph replay (capture
  // failed or is off); empty when the graph replayed or the row is not batched on a device.
  std::string replay_fallback;
  std::int64_t warmup = 0;     // untimed executions before sampling (the minimum and the steady-state search)
  double warmup_ms = 0;        // time inside the warm-up's timed samples
  bool warmup_steady = false;  // the warm-up ended because timings (and clocks) were steady
  double elapsed_ms = 0;       // elapsed time of the whole samples, batches included (what the caps count)
  double timed_ms = 0;         // time inside timed regions (per-execution figure x executions)
  double wall_ms = 0;          // wall time of the sampling loop (flushes, idle gaps, overheads included)
  // The power regime of the figure (--regime): "sustained" (back to back, steady: the figure at
  // a GPU's power cap, what a loop gets) or "paced" (idle gaps: below the cap).
  std::string regime = "sustained";
  // The input data the figure was timed on (--fill): "normal", "uniform" or "grid".
  std::string fill = "normal";
  // Idle gaps between samples that keep the GPU under its power cap (--regime paced): "off" or
  // "duty N% (...)".
  std::string pacing = "off";
  double pacing_idle_ms = 0;  // the gaps' total (part of wall_ms, outside every timed region)
  // The same plan's figure in the other regime, taken briefly after the measurement where the
  // row's regime was sustained and the driver reported the power cap (--other-regime-samples).
  struct OtherRegime {
    std::string regime;  // "paced"
    std::int64_t samples = 0;
    double median_ms = 0;          // per execution, of the primary figure (kernel time where there is one)
    std::optional<double> sm_mhz;  // mean SM clock while it was taken
  };
  std::optional<OtherRegime> other_regime;
  // The heater (run/keep_warm.hpp) held the device under load for `ms` while the host worked
  // between the last group's capped rows and this row's group (the row that opens that group
  // carries it); the sensors' last reading as it stopped, which the row's warm-up started from:
  // `capped` when the driver said the power cap held the clock down. A gap of a few hundred ms
  // often ends before the driver's tick cuts the clock (the heater at ~630 W and ~1950 MHz on the
  // H100): then the row loads the device long enough for it to answer, as after idle.
  struct KeptWarm {
    double ms = 0;
    std::optional<double> power_w, sm_mhz;
    bool capped = false;
  };
  std::optional<KeptWarm> kept_warm;
  std::optional<ClockSummary> clocks;  // GPU clocks, temperature, power while sampling (NVML)
  std::vector<double> samples_ms;      // kept only with --save-samples
  // The measurement split over fresh buffer placements (--placements; docs/methodology.md,
  // "Placement"): one process is one sample of where its buffers lie, so the row samples several
  // and its figure (the primary median) is the median of the chunks' medians. `spread` (max / min
  // - 1 of the chunk medians) is the run-to-run noise `compare` judges a change against when the
  // rows have no --repeat (report/noise_model.hpp).
  // A row held at its power cap (stop_reason "cycle") takes its figure as the pooled median over
  // one whole cycle of the driver's power control instead: each chunk holds a third of the cycle,
  // so there the spread is as much where in the cycle each chunk fell as where its buffers lie.
  struct Placements {
    std::int64_t chunks = 0;
    std::vector<double> medians_ms;  // per chunk, of the primary figure, in the order taken
    double spread = 0;
  };
  std::optional<Placements> placements;
  // A multi-threaded CPU row's machine state (sys/thread_sync_probe.hpp): the fork-join time of
  // the run's threads just before and just after the row's samples. `compare` does not judge two
  // rows measured in different states (report/noise_model.hpp, host_sync_differs).
  struct HostSync {
    std::int64_t threads = 0;
    double before_us = 0, after_us = 0;
    double mean_us() const { return (before_us + after_us) / 2; }
  };
  std::optional<HostSync> host_sync;
  // A host row's cores while it measured (sys/core_ruler.hpp): `ruler_us` the median of the core
  // ruler's readings over its samples (one a kCoreRulerWindowMs window), `best_us` the best this
  // process read; `windows` readings, `disturbed_windows` of them over kCoreDisturbedAbove x best.
  // `compare` does not judge two rows whose readings differ by more than kCoreStateTolerance
  // (report/noise_model.hpp).
  struct CoreState {
    std::int64_t threads = 0;
    double ruler_us = 0, best_us = 0;
    std::int64_t windows = 0, disturbed_windows = 0;
  };
  std::optional<CoreState> core_state;
  // The bytes one execution touches (the plan's bound tensors and its workspace) against the
  // device's last-level cache (GPU L2, CPU LLC). A hot row whose working set is within a quarter
  // to twice the cache reads part of it from the cache where a layer inside a network, whose
  // neighbours evict it, reads memory: such rows are flagged (cache_sensitive) and say so.
  // With --cache-mode rotating, `rotation_copies` sets of the bound tensors take turns, so the
  // cache sees about that many times the working set (the workspace is shared; it is small).
  struct CacheFit {
    std::int64_t working_set_bytes = 0;
    std::int64_t cache_bytes = 0;
    std::int64_t rotation_copies = 1;
    std::int64_t kept_bytes = 0;  // of the working set, in one set of the rotation (--cache-mode producer)
  };
  std::optional<CacheFit> cache_fit;
};

// Whether a row timed with `cache_mode` ("hot", "cold", "rotating" or "producer") over `fit`
// depends on how much of its working set the cache keeps: hot, with a working set of a quarter to
// twice the cache; rotating and producer, where the copies together are (their number was capped)
// in that range.
bool cache_sensitive(const TimingInfo::CacheFit& fit, std::string_view cache_mode);

// One kernel of a row's execution, from CUPTI kernel activity.
struct KernelSummary {
  std::string name;
  std::array<int, 3> grid{}, block{};
  std::int64_t launches = 1;  // per execution, of this name and shape
  double median_ms = 0;       // its duration, median over the recorded executions
};

struct OutputCheck {
  std::string tensor;  // tensor name
  bool passed = true;
  double max_abs_diff = 0, max_rel_diff = 0, norm_rel_error = 0;
  std::int64_t mismatches = 0, nonfinite = 0;
  std::string first_mismatch;
  double rtol = 0, atol = 0;
  std::string tolerance_basis;
};

struct Correctness {
  bool passed = true;
  double max_abs_diff = 0, max_rel_diff = 0, norm_rel_error = 0;  // worst over outputs
  double rtol = 0, atol = 0;                                      // of the worst output
  std::string reference;                                          // which reference judged it
  // Where the outputs were compared: "host" (copied back, widened to fp64) or "device" (in place,
  // reference/device_compare.hpp: passing GPU rows; every failure is compared on the host).
  std::string compared_on = "host";
  std::vector<OutputCheck> outputs;
};

// A plan by engine and knob choices (results do not depend on the provider interface).
struct PlanRef {
  std::string engine_id;
  std::vector<std::pair<std::string, std::string>> knobs;
  double median_ms = 0;  // as measured in the sweep
};

// One plan of the oracle's sweep.
struct OracleCandidate {
  std::string plan_name;
  bool measured = false;
  // Its knob choices, in the plan's order (the name is not parsed back: engine ids hold `_`).
  std::vector<std::pair<std::string, std::string>> knobs;
  std::optional<double> median_ms;   // primary figure (kernel time where there is one)
  std::optional<std::string> error;  // why it failed to build or run
  // The sweep's rungs (docs/oracle.md): in a space larger than its finalists, the screening
  // median. median_ms is the last rung's: the screening's for a plan screened out, the brief
  // timing's for a finalist that was not a leader, the full measurement's for a leader.
  std::optional<double> screen_median_ms;
  bool screened_out = false;
  bool finalist = false;  // timed in the second rung, in the regime's own batches
  bool leader = false;    // measured to the sweep's precision; the winner is one of these
};

// A paired, interleaved comparison of a baseline plan with another plan.
struct PairedDelta {
  std::string basis;  // "gpu_kernel" or "host"
  double baseline_median_ms = 0, oracle_median_ms = 0;
  double speedup = 1;           // baseline / oracle: > 1 means the oracle's plan is faster
  double ci_lo = 1, ci_hi = 1;  // 95% CI of the speedup
  // The CI clears the noise band: 1.0 and the control arm's spread (noise_floor), see oracle.md.
  bool significant = false;
  // The control arm: a second instance of the baseline plan timed in the same rounds.
  double control_ratio = 1, control_ci_lo = 1, control_ci_hi = 1;
  double noise_floor = 0;  // the band an effect must clear: max(min effect, control's distance from 1)
  std::int64_t rounds = 0;
  bool converged = false;
  std::string method;
  // A significant gap timed again between fresh instances of both plans (their own buffers and
  // captures): `significant` above holds only when this one is significant the same way too.
  struct Replication {
    double speedup = 1, ci_lo = 1, ci_hi = 1;
    bool significant = false;  // the same direction as the first, clear of its own band
  };
  std::optional<Replication> replication;  // none when the first comparison was not significant
};

struct OracleResult {
  // "searched": the sweep had candidates to choose from; "no-search": one candidate, nothing to
  // compare; "aa-self-check": the heuristic plan against itself (--oracle-aa).
  std::string search;
  // "faster-plan": a plan other than the heuristic's won the sweep (the delta says by how much,
  // and whether that is significant); "heuristic-best": the heuristic plan won or tied within noise.
  std::string verdict;
  std::string plan_name;  // the winner
  std::vector<std::pair<std::string, std::string>> knobs;
  std::optional<std::int64_t> rank_of_heuristic_plan;  // 1 = fastest in the sweep
  std::int64_t candidates_total = 0, candidates_benchmarked = 0, candidates_failed = 0;
  bool budget_exhausted = false;  // --oracle-max-plans / --oracle-max-seconds stopped the sweep
  double sweep_time_ms = 0;
  std::int64_t screened_out = 0;  // candidates the sweep's first rung left out of its second
  std::int64_t narrowed_out = 0;  // finalists the second rung left out of the full measurement
  // Where the oracle's time went, in wall milliseconds: building the candidates' plans, screening
  // them (the first rung, or the whole sweep in one rung), the finalists' full measurement, the
  // paired re-timing with the winner's validation, its replication, --oracle-regimes both.
  struct TimeSplit {
    double build_ms = 0, screen_ms = 0, final_ms = 0, paired_ms = 0, replication_ms = 0, other_regime_ms = 0;
  } time_split;
  std::optional<double> cpu_build_time_ms;            // of the winner
  std::optional<Stats> host_stats, gpu_kernel_stats;  // of the winner, from the paired re-timing
  std::optional<Stats> warm_baseline_stats;           // of the heuristic plan, from the paired re-timing
  std::optional<Correctness> correctness;             // of the winner
  std::optional<std::string> delta_withheld;          // why there is no delta
  std::vector<OracleCandidate> candidates;
  std::string regime;  // the power regime every comparison above was made in (--regime)
  // --oracle-regimes both: the sweep's leading plans (its top 3, the heuristic plan and the
  // winner) timed again in the other regime; a plan that wins cool can lose at the power cap.
  struct RegimeCheck {
    std::string regime;                                   // the other regime
    std::string plan_name;                                // the winner there (the tie rule as in the sweep)
    std::vector<std::pair<std::string, double>> medians;  // plan -> median ms there, fastest first
    // The other regime's winner is another plan and beats this regime's winner there, paired,
    // significant and replicated.
    bool winner_changed = false;
    std::optional<PairedDelta> delta;  // baseline: this regime's winner; in the other regime
    std::optional<std::string> note;   // why there is no verdict
  };
  std::optional<RegimeCheck> other_regime;
};

// One stored plan re-timed by --plans-from (tune/plans_from.hpp): against today's heuristic plan,
// paired and interleaved like the oracle's final comparison.
struct RetimedPlan {
  std::string role;  // "stored-winner" or "stored-heuristic"
  std::string plan_name;
  std::vector<std::pair<std::string, std::string>> knobs;
  // "measured"; "skipped": today's library cannot build it (skip_reason is the library's reason);
  // "same-plan": it is today's heuristic plan (nothing to pair); "error": it failed to run.
  std::string status;
  std::optional<std::string> skip_reason, error_message;
  std::optional<PairedDelta> delta;        // baseline: today's heuristic plan; > 1: the stored plan is faster
  std::optional<double> stored_median_ms;  // as the tuning file recorded it
  std::optional<double> stored_ci_hi_ms;   // the upper end of its median's CI, when recorded
  std::optional<double> today_median_ms;   // from the paired re-timing (or the OOTB pass for same-plan)
  std::optional<bool> slower;              // today's time is above the stored one beyond the noise
};

// --plans-from: what became of a row's stored tuning record on today's library.
struct PlansFromResult {
  std::string source;  // the tuning file
  // The record re-timed: where and with what it was made.
  std::string stored_library_version, stored_device;
  std::string stored_winner, stored_heuristic, today_heuristic;
  // Other winners the file holds for this key (conflicting records kept by `plans merge`).
  std::vector<std::string> other_stored_winners;
  bool heuristic_changed = false;  // today's heuristic picks another plan than the stored heuristic
  // The stored winner is significantly faster than today's heuristic plan; null when there is no
  // answer (the winner is today's heuristic plan, or it could not be built or timed).
  std::optional<bool> tuned_still_wins;
  // "tuned-still-wins", "no-longer-wins" (within noise or slower), "heuristic-picks-tuned",
  // "stored-plan-skipped", "stored-plan-error".
  std::string verdict;
  std::vector<RetimedPlan> plans;
};

// One kernel of a row's plan as Nsight Compute measured it (--profile ncu).
struct ProfiledKernel {
  std::string name;
  std::int64_t launches = 1;  // per execution
  double duration_ms = 0;     // median over the profiled executions (gpu__time_duration.sum)
  std::optional<double> sm_throughput_pct, dram_throughput_pct, achieved_occupancy_pct;
  std::optional<std::int64_t> registers_per_thread, shared_memory_bytes;
  std::array<int, 3> grid{}, block{};
  // The SM clock during the kernel, as ncu measured it (gpc__cycles_elapsed.avg.per_second,
  // SpeedOfLight's "SM Frequency"), median over the profiled launches; null when the sections
  // collected do not hold it.
  std::optional<double> sm_frequency_mhz;
};

struct ProfileResult {
  std::string tool;  // "ncu"
  std::vector<std::string> sections;
  std::int64_t executions = 0;  // timed executions captured
  std::optional<std::string> report_path, csv_path;
  std::vector<ProfiledKernel> kernels;
  std::optional<double> kernel_sum_ms;  // per execution: sum of duration x launches
  // Against the row's own CUPTI record (isolate/profiler.hpp compare_profile_with_row): kernel_sum_ms
  // over the median of kernel_sum_stats, and whether ncu saw the kernels the row ran (by name,
  // grid and block). A profile of other kernels times another plan, whatever its ratio says.
  std::optional<double> ratio_to_cupti;
  // The clocks behind that ratio: ncu's SM clock during the profiled kernels (their
  // duration-weighted mean) and the SM clock NVML read during the row's own samples (mean). ncu
  // times an isolated kernel after the host has idled the GPU; a kernel bound by the SM clock
  // takes longer at a lower one, and this says whether that is why the durations differ.
  std::optional<double> sm_frequency_mhz, row_sm_mhz;
  std::optional<bool> same_kernels_as_row;
  std::vector<std::string> kernels_not_in_row;  // names ncu saw that the row's kernels[] lacks
  std::optional<std::string> error;  // why there is no profile (the child's failure, ncu's message)
};

// Peak figures of a row's device for its graph's data type (report/peaks.hpp), so readers see
// how far from the hardware's limit a row is.
struct PeakFigures {
  std::optional<double> matrix_flops;  // FLOP/s of the matrix units (tensor cores, AMX); none: no such unit
  std::optional<double> vector_flops;  // FLOP/s of the vector units (CUDA cores, SIMD FMA)
  std::optional<double> dram_bytes_per_s;  // memory bandwidth; none where it is unknown
  std::string device;                      // "NVIDIA H200", "Intel Xeon ... (avx2 x 2 cores)"
  std::string source;                      // where the figures come from, e.g. "table: ... at 1755 MHz"
};

struct MeasuredBy {
  std::optional<int> rank;  // the MPI rank; unset for a --shard process
  std::string host;
};

// --repeat N: the row measured N times. `run` runs the suite as N passes, each in a fresh child
// process, one after another (method kRepeatMethodPasses, isolate/repeat_passes.hpp): the row's
// figures are those of the pass whose median is the median of the passes' medians. Under MPI the
// row's plan is measured in N fresh plan instances of one process instead ("fresh-plan-instance",
// run/repeat.hpp). `compare` takes the spread as the row's run-to-run noise.
inline constexpr const char* kRepeatMethodPasses = "passes in fresh processes";
struct RepeatResult {
  std::vector<double> medians_ms;  // per pass or instance, primary figure (kernel time where there is one)
  double spread = 0;               // max / min - 1 of the medians
  std::string method = "fresh-plan-instance";
  // Passes only, aligned with medians_ms: the pass number (1..N) and the pid of the child process
  // that measured it (-1: unknown, e.g. a pass recovered from its journal); chosen_pass: the pass
  // whose figures the row reports.
  std::vector<int> passes;
  std::vector<std::int64_t> pids;
  std::optional<int> chosen_pass;
};

struct RowResult {
  std::string provider;
  std::optional<std::string> engine_id, engine_name;
  std::vector<std::string> engine_notes;
  std::optional<std::string> engine_label;  // from a recipe's [[engines]] matrix
  RowStatus status = RowStatus::success;
  std::optional<std::string> skip_reason, error_message;
  std::optional<std::string> plan_name;
  // The heuristic plan's knob choices, in its order (the tuning database rebuilds plans from them).
  std::vector<std::pair<std::string, std::string>> plan_knobs;
  std::vector<std::string> plan_notes;
  // The math the row ran fp32 data with: "strict" (fp32 arithmetic) or "tf32" (the engine
  // rounds fp32 inputs to TF32, --fp32-math tf32); null when the graph has no fp32 tensor.
  std::optional<std::string> fp32_math;
  // The engine accumulates in a reduced precision (its note says so): it ran under
  // --reduced-precision allow and was judged with the reduced-precision tolerance.
  bool reduced_precision = false;
  // Whole wall time spent on the row: heuristic, build, bind, checks, warm-up, measurement, and
  // the oracle when it ran (ms).
  std::optional<double> row_time_ms;
  // Where row_time_ms went, by stage ("plan" = heuristic + build + bind, "check" = checked run
  // with the reference when this row computed it, "warm-up", "measure", "kernel activity",
  // "re-check", "release" = freeing the plan and buffers, "oracle"), in ms: what
  // bench/overhead.sh sums.
  std::map<std::string, double> stage_ms;
  std::optional<double> cpu_build_time_ms, bind_time_ms;
  // A plan kept between runs (cuDNN's runtime-compiled engines; docs/methodology.md, "The
  // compiled-plan cache"): "stored" (this row compiled it and kept it), "loaded" (kept by an
  // earlier build: cpu_build_time_ms is the load), "not stored" (compiled; the cache could not
  // keep it); null when the plan is not one the provider keeps. compile_time_ms: what compiling
  // it cost, measured when it was compiled (by this row unless "loaded").
  std::optional<std::string> plan_cache;
  std::optional<double> compile_time_ms;
  std::optional<std::int64_t> workspace_bytes;
  std::optional<Stats> host_stats, gpu_kernel_stats;
  // CUPTI (GPU rows): the kernels one execution ran, and the per-execution sum of their
  // durations over up to 100 extra back-to-back executions after the measurement (no launch
  // gaps: the kernels' own time); null / empty without CUPTI or with --no-kernel-activity.
  std::vector<KernelSummary> kernels;
  std::optional<Stats> kernel_sum_stats;
  std::optional<TimingInfo> timing;
  double analytical_flops = 0, analytical_io_bytes = 0;
  std::optional<Correctness> correctness;
  // --oracle: null when not run.
  std::optional<OracleResult> oracle;
  std::optional<PairedDelta> oracle_delta;
  std::optional<std::string> oracle_error;  // "Type: message"
  // --plans-from: null when not run (no stored record for the row, or the option is off).
  std::optional<PlansFromResult> plans_from;
  // --profile: the row's plan re-run under a profiler in a child process; null when not asked.
  std::optional<ProfileResult> profile;
  std::optional<PeakFigures> peak;  // null: no figures known for the device
  // The best plan the oracle found (the row's heuristic plan when none was faster), for the
  // graph regret; not written to the results.
  std::optional<PlanRef> best_plan;
  // Which process measured the row: the MPI rank (docs/distributed.md) and host; unset in a
  // single-process run.
  std::optional<MeasuredBy> measured_by;
  // --repeat: null when not asked (or the row did not pass its first measurement).
  std::optional<RepeatResult> repeat;

  bool passed() const { return status == RowStatus::success && correctness && correctness->passed; }
  bool validation_failed() const {
    return status == RowStatus::success && correctness && !correctness->passed;
  }
};

// The library's own overall pick (its first engine's heuristic plan) against the fastest plan
// measured on any engine of that provider, compared with the same paired method.
struct GraphRegret {
  std::string provider;
  std::string pick_engine, pick_plan, best_engine, best_plan;
  std::optional<PairedDelta> delta;
  std::optional<std::string> note;  // e.g. "the pick is the fastest plan measured", or an error
};

struct GraphResult {
  std::string graph_name, graph_path;
  bool ok = true;  // false: the graph failed to load or validate
  std::optional<std::string> error_message;
  double analytical_flops = 0, analytical_io_bytes = 0;
  std::vector<RowResult> results;
  std::vector<GraphRegret> regret;  // --oracle only
  // Set: not run, because the same content (every key but `name`) ran as this graph_path.
  std::optional<std::string> duplicate_of;
  bool filtered = false;     // left out by --op: not run
  bool interrupted = false;  // cut short by a stop (SIGINT/SIGTERM): holds the rows that finished
  // Hash of the graph's canonical content (graph/content_hash.hpp): a resumed run reuses rows only
  // of the same content, and `compare` joins runs by it.
  std::optional<std::string> content_hash;
  // --dump-tensors: the graph's folder there, unique in the suite (run_suite). Not written.
  std::optional<std::string> dump_folder;
  // The data type peaks are looked up for: the inputs' type of the first convolution or matmul,
  // else of the first node ("fp16"); empty when unknown (older results).
  std::string data_type;
  std::vector<std::string> ops;  // op families of the nodes, in order of first appearance
  // Where the graph's time outside its rows went, ms: `inputs` (seeded fills), `engines` (every
  // provider's engine enumeration), `providers` (starting the libraries, in the process's first
  // graph). The reference is a row stage (the row that first needs it). Empty for graphs that ran
  // no row here (reused, filtered, loaded from older results).
  std::map<std::string, double> stage_ms;
  // The graph's wall time in the run, ms: loading it, its rows and stages, and under isolation the
  // round trip to the child. What its rows' row_time_ms and stage_ms leave of it is overhead
  // (process traffic, results). Absent for graphs that ran nothing; a graph reused by --resume
  // keeps its first run's.
  std::optional<double> wall_ms;
};

// What identifies a row within its graph across runs and passes: provider, engine id and engine
// label, newline-separated.
std::string row_key(const RowResult& row);

// "ok", "error", "interrupted", "duplicate" or "filtered".
std::string_view graph_status_name(const GraphResult& graph);

// How a report names a graph in one line: its path, led by its name where the path does not already
// say it (an imported log's graph: "cudnn_graph_52  resnet50.log.xz:1057703 (process 615, ...)").
std::string graph_label(const std::string& name, const std::string& path);

// Row counts of one provider.
struct ProviderSummary {
  std::int64_t rows = 0, passed = 0, failed = 0, skipped = 0, errors = 0;
};

struct Summary {
  std::int64_t graphs = 0, graph_errors = 0, rows = 0, passed = 0, failed = 0, skipped = 0, errors = 0;
  std::int64_t duplicates = 0, filtered = 0;                       // graphs not run
  std::vector<std::pair<std::string, ProviderSummary>> providers;  // in order of first row
};

// Where imported layers come from (input/import_inputs.hpp): graph_path -> model -> how many times
// the layer occurs in that model. Empty when no input was an import source or manifest.
using LayerModels = std::map<std::string, std::map<std::string, std::int64_t>>;

struct SuiteResult {
  bool complete = false;  // every graph ran to its end and no stop was asked for
  int stop_signal = 0;    // the signal that stopped the run (SIGINT, SIGTERM); 0: none
  nlohmann::json metadata = nlohmann::json::object();
  std::vector<GraphResult> graphs;
  // The models the graphs' layers come from (`layer_models` in the results), for the workload
  // report (report/workload_report.hpp); set by the command after the run.
  LayerModels layer_models;
  Summary summary() const;
};

// Exit code of a run: 128 + the signal when one stopped it (130 SIGINT, 143 SIGTERM, as a shell
// reports a process the signal ended); else 3 any validation failure; else 1 any error row or
// graph; else 0.
int exit_code_for(const SuiteResult& suite);

}  // namespace dnnbench
