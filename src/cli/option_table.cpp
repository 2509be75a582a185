#include "cli/option_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>

#include "cli/commands.hpp"
#include "sys/ascii_case.hpp"

namespace dnnbench {
namespace {

using K = OptionKind;
using V = OptionValue;
using C = RunCommand;

std::int64_t as_int(const V& v) {
  return std::get<std::int64_t>(v);
}
double as_number(const V& v) {
  return std::get<double>(v);
}
const std::string& as_text(const V& v) {
  return std::get<std::string>(v);
}
const std::vector<std::string>& as_list(const V& v) {
  return std::get<std::vector<std::string>>(v);
}
bool as_flag(const V& v) {
  return std::get<bool>(v);
}

std::string shown(double value) {
  return fmt::format("{}", value);
}

// Help headings, in the order --help shows them.
const std::string kGraphs = "Graphs and engines";
const std::string kTiming = "Timing";
const std::string kChecking = "Checking";
const std::string kOracle = "Oracle";
const std::string kOutput = "Output";
const std::string kDistribution = "Distribution";
const std::string kLimits = "Limits";
const std::string kReliability = "Reliability";

std::vector<RunOptionSpec> make_table() {
  // Defaults shown in --help and the docs are read from the option structs themselves.
  const RunOptions d;
  const RunCommand dc;
  return {
      // Graphs and engines.
      {.flags = "-g,--graph",
       .key = "graphs",
       .group = kGraphs,
       .kind = K::path_list,
       .value_name = "INPUT",
       .help =
           "Graph files, folders, quoted globs ('graphs/**/*.json') or archives (.tar[.gz|.xz|.bz2], .tgz, "
           ".zip), import manifests, or sources converted on the fly (MIOpenDriver command files, benchdnn "
           "batch files, .onnx models; docs/import.md); repeat or comma-separate",
       .set = [](C& c, const V& v) { c.graphs = as_list(v); }},
      {.flags = "--dim",
       .key = "dims",
       .group = kGraphs,
       .kind = K::list,
       .value_name = "NAME=VALUE",
       .help = "Value of a symbolic ONNX dimension (repeat for each, e.g. --dim batch=8 --dim seq=128)",
       .set = [](C& c, const V& v) { c.dims = as_list(v); }},
      {.flags = "--provider",
       .key = "providers",
       .group = kGraphs,
       .kind = K::list,
       .value_name = "NAME",
       .help = "Providers to run",
       .default_text = "every provider built and usable here",
       .set = [](C& c, const V& v) { c.providers = as_list(v); }},
      {.flags = "--engine",
       .key = "engines",
       .group = kGraphs,
       .kind = K::list,
       .value_name = "ID",
       .help = "Engine ids or names to run, in this order; replaces a recipe's engine matrix",
       .default_text = "all, in the heuristic's order",
       .recipe_note = ", or `[[engines]]` tables (the engine matrix, below)",
       .set = [](C& c, const V& v) { c.engines = as_list(v); }},
      {.flags = "--skip-engine",
       .key = "skip_engines",
       .group = kGraphs,
       .kind = K::list,
       .value_name = "ID",
       .help = "Engine ids or names never to run",
       .set = [](C& c, const V& v) { c.skip_engines = as_list(v); }},
      {.flags = "--compile-ahead",
       .key = "compile_ahead",
       .group = kGraphs,
       .kind = K::integer,
       .value_name = "N",
       .help = "Child processes that compile runtime-compiled plans (cuDNN) into the compiled-plan cache "
               "ahead of their rows, and with --oracle its candidate plans, while the suite measures "
               "others; 0: each row compiles its own",
       .default_text = "a quarter of the cores, 1 to 4",
       .min = 0,
       .set = [](C& c, const V& v) { c.compile_ahead = static_cast<int>(as_int(v)); }},
      {.flags = "--max-engines",
       .key = "max_engines",
       .group = kGraphs,
       .kind = K::integer,
       .value_name = "N",
       .help = "Run only the first N engines of each provider (the heuristic's top N)",
       .default_text = "all",
       .min = 1,
       .set = [](C& c, const V& v) { c.options.max_engines = as_int(v); }},
      {.flags = "--op",
       .key = "ops",
       .group = kGraphs,
       .kind = K::list,
       .value_name = "TYPE",
       .help = "Keep only graphs with a node of this op type (node type, e.g. ConvolutionFwdAttributes, or "
               "family, e.g. conv_fwd, matmul)",
       .set = [](C& c, const V& v) { c.ops = as_list(v); }},
      {.flags = "--heur-mode",
       .key = "heur_mode",
       .group = kGraphs,
       .kind = K::choice,
       .help = "cuDNN heuristic mode that orders the engines and picks each one's plan",
       .default_text = "$DNNBENCH_CUDNN_HEUR_MODE, else a",
       .choices = {"a", "b", "fallback"},
       .set = [](C& c, const V& v) { c.options.provider_settings.cudnn_heur_mode = as_text(v); }},
      {.flags = "--dry-run",
       .key = "dry_run",
       .group = kGraphs,
       .kind = K::flag,
       .help = "Load, filter and list the graphs; run nothing",
       .set = [](C& c, const V& v) { c.dry_run = as_flag(v); }},

      // Timing.
      {.flags = "--warmup",
       .key = "warmup",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "N",
       .help = "Untimed executions before sampling",
       .default_text = std::to_string(d.warmup),
       .min = 0,
       .set = [](C& c, const V& v) { c.options.warmup = as_int(v); }},
      {.flags = "--warmup-max-ms",
       .key = "warmup_max_ms",
       .group = kTiming,
       .kind = K::number,
       .value_name = "MS",
       .help = "After --warmup, warm up until timings and clocks are steady, for at most this many "
               "milliseconds of wall time in every mode (0: no steady-state warm-up)",
       .default_text = shown(d.measure.steady.max_ms),
       .min = 0,
       .set = [](C& c, const V& v) { c.options.measure.steady.max_ms = as_number(v); }},
      {.flags = "--iters",
       .key = "iters",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "N",
       .help = "Exactly N timed samples",
       .default_text = "the adaptive rule (--target-ci and its bounds)",
       .min = 1,
       .set = [](C& c, const V& v) { c.options.iters = as_int(v); }},
      {.flags = "--repeat",
       .key = "repeat",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "N",
       .help = "Run the suite as N passes, each in a fresh child process, one after another (N times the "
               "time); each row reports its middle pass and records every pass's median, whose spread "
               "`compare` takes as the row's run-to-run noise (under MPI: N fresh plan instances per row)",
       .default_text = "1",
       .min = 1,
       .max = 100,
       .set = [](C& c, const V& v) { c.options.repeat = as_int(v); }},
      {.flags = "--target-ci",
       .key = "target_ci",
       .group = kTiming,
       .kind = K::number,
       .value_name = "X",
       .help = "Adaptive rule: stop when the median's 95% CI is within this fraction of it",
       .default_text = shown(d.adaptive.target_ci_rel),
       .min = 1e-6,
       .max = 1,
       .set = [](C& c, const V& v) { c.options.adaptive.target_ci_rel = as_number(v); }},
      {.flags = "--min-iters",
       .key = "min_iters",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "N",
       .help = "Adaptive rule: minimum samples",
       .default_text = std::to_string(d.adaptive.min_iters),
       .min = 1,
       .set = [](C& c, const V& v) { c.options.adaptive.min_iters = as_int(v); }},
      {.flags = "--max-iters",
       .key = "max_iters",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "N",
       .help = "Adaptive rule: maximum samples",
       .default_text = std::to_string(d.adaptive.max_iters),
       .min = 1,
       .set = [](C& c, const V& v) { c.options.adaptive.max_iters = as_int(v); }},
      {.flags = "--min-time-ms",
       .key = "min_time_ms",
       .group = kTiming,
       .kind = K::number,
       .value_name = "MS",
       .help = "Adaptive rule: minimum timed milliseconds",
       .default_text = shown(d.adaptive.min_time_ms),
       .min = 0,
       .set = [](C& c, const V& v) { c.options.adaptive.min_time_ms = as_number(v); }},
      {.flags = "--max-time-ms",
       .key = "max_time_ms",
       .group = kTiming,
       .kind = K::number,
       .value_name = "MS",
       .help = "Adaptive rule: maximum timed milliseconds",
       .default_text = shown(d.adaptive.max_time_ms),
       .min = 0,
       .min_exclusive = true,
       .set = [](C& c, const V& v) { c.options.adaptive.max_time_ms = as_number(v); }},
      {.flags = "--cache-mode",
       .key = "cache_mode",
       .group = kTiming,
       .kind = K::choice,
       .help =
           "auto: producer on GPU providers, hot on CPU providers; hot: caches keep what the last "
           "execution left; cold: flush the GPU L2 / CPU last-level cache "
           "before every timed execution, outside the timed region (no batching); rotating (GPU): "
           "back-to-back executions rotate through copies of the buffers that together exceed twice the "
           "L2, so each finds "
           "its data evicted as inside a network (CPU providers flush as cold); producer (GPU): rotating, "
           "but the inputs a producer layer has just written (a forward op's x, a backward op's dy, "
           "attention's q/k/v) stay in one set, still in L2 as far as they fit, as a layer inside a "
           "network finds them (CPU providers flush as cold)",
       .default_text = std::string(cache_mode_name(d.measure.cache_mode)),
       .choices = {"auto", "hot", "cold", "rotating", "producer"},
       .set =
           [](C& c, const V& v) {
             c.options.measure.cache_mode = cache_mode_from_name(as_text(v)).value_or(CacheMode::automatic);
           }},
      {.flags = "--latency",
       .key = "latency",
       .group = kTiming,
       .kind = K::flag,
       .help = "Time isolated executions after an idle gap (latency of one call) instead of steady-state "
               "throughput in a loop (no batching)",
       .set = [](C& c, const V& v) { c.options.measure.latency = as_flag(v); }},
      {.flags = "--latency-idle-ms",
       .key = "latency_idle_ms",
       .group = kTiming,
       .kind = K::number,
       .value_name = "MS",
       .help = "--latency: idle milliseconds before each execution",
       .default_text = shown(d.measure.latency_idle_ms),
       .min = 0,
       .set = [](C& c, const V& v) { c.options.measure.latency_idle_ms = as_number(v); }},
      {.flags = "--batch",
       .key = "batch",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "N",
       .help = "Executions per timed sample, forced (1: single-run timing)",
       .default_text = "automatic, ~10 ms batches on GPU providers",
       .min = 1,
       .set = [](C& c, const V& v) { c.options.measure.batch = as_int(v); }},
      {.flags = "--per-execution-events",
       .key = "per_execution_events",
       .group = kTiming,
       .kind = K::flag,
       .help = "GPU: time each execution of a batch with its own event pair (a sample is their median), to "
               "check batched timing against single-run timing at the same clocks",
       .set = [](C& c, const V& v) { c.options.measure.per_execution_events = as_flag(v); }},
      {.flags = "--no-graph-replay",
       .key = "no_graph_replay",
       .group = kTiming,
       .kind = K::flag,
       .help = "GPU: time throughput batches as back-to-back launches instead of one CUDA-graph replay per "
               "sample (replay keeps the host's launch cost out of a short kernel's time)",
       .set = [](C& c, const V& v) { c.options.measure.graph_replay = !as_flag(v); }},
      {.flags = "--no-kernel-activity",
       .key = "no_kernel_activity",
       .group = kTiming,
       .kind = K::flag,
       .help = "GPU: do not record the kernels a row ran (CUPTI; otherwise one extra sample after the "
               "measurement lists them with their durations)",
       .set = [](C& c, const V& v) { c.options.measure.kernel_activity = !as_flag(v); }},
      {.flags = "--no-row-groups",
       .key = "no_row_groups",
       .group = kTiming,
       .kind = K::flag,
       .help = "GPU: run each row whole, one after another, instead of a graph's rows in groups (by default "
               "every row's plan and check first, then their warm-ups and measurements back to back, so the "
               "device never idles between them)",
       .set = [](C& c, const V& v) { c.options.group_rows = !as_flag(v); }},
      {.flags = "--keep-warm",
       .key = "keep_warm",
       .group = kTiming,
       .kind = K::flag,
       .help =
           "GPU: after a row group with a row at the power cap, keep the device loaded with a heater while "
           "the host works until the next group measures, so its capped rows warm up from the cap, not "
           "from idle (rows near the cap then measure at it: docs/methodology.md)",
       .set = [](C& c, const V& v) { c.options.keep_warm = as_flag(v); }},
      {.flags = "--regime",
       .key = "regime",
       .group = kTiming,
       .kind = K::choice,
       .help = "Power regime of the figures: sustained (back to back until steady, as in a training or "
               "inference loop; on a power-capped GPU the figure at the cap, what a workload gets) or paced "
               "(an idle gap after each sample, 50% duty, so kernels run below the cap: the per-kernel best "
               "case)",
       .default_text = std::string(regime_name(d.measure.regime)),
       .choices = {"sustained", "paced"},
       .set = [](C& c, const V& v) { c.options.measure.regime = *regime_from_name(as_text(v)); }},
      {.flags = "--other-regime-samples",
       .key = "other_regime_samples",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "N",
       .help = "Sustained GPU rows the driver reports at the power cap also get the paced figure from N "
               "samples with idle gaps (timing.other_regime; 0: none)",
       .default_text = std::to_string(d.measure.other_regime_samples),
       .min = 0,
       .set = [](C& c, const V& v) { c.options.measure.other_regime_samples = as_int(v); }},
      {.flags = "--placements",
       .key = "placements",
       .group = kTiming,
       .kind = K::integer,
       .value_name = "K",
       .help = "Measure each row in at least K chunks, each on freshly placed buffers (new allocations at "
               "seeded offsets); the figure is the median of the chunks' medians and their spread "
               "(timing.placements) the run-to-run noise compare judges against (1: one placement)",
       .default_text = std::to_string(d.measure.placements),
       .min = 1,
       .max = 10,
       .set = [](C& c, const V& v) { c.options.measure.placements = as_int(v); }},
      {.flags = "--capped-min-ms",
       .key = "capped_min_ms",
       .group = kTiming,
       .kind = K::number,
       .value_name = "MS",
       .help = "A GPU row whose warm-up found the device at its power cap waits for the power to settle "
               "and measures this long, one cycle of the driver's power control; its figure is the median "
               "over that cycle (0: no cycle, the adaptive rule as below the cap)",
       .default_text = shown(d.measure.capped_min_ms),
       .min = 0,
       .set = [](C& c, const V& v) { c.options.measure.capped_min_ms = as_number(v); }},
      {.flags = "--uncapped-batch-ms",
       .key = "uncapped_batch_ms",
       .group = kTiming,
       .kind = K::number,
       .value_name = "MS",
       .help = "Sustained GPU rows time batches of about this many ms until the warm-up finds the device at "
               "its power cap, then 10 ms batches (10 or 0: 10 ms from the start, as before row groups)",
       .default_text = shown(d.measure.uncapped_batch_ms),
       .min = 0,
       .max = 10,
       .set = [](C& c, const V& v) { c.options.measure.uncapped_batch_ms = as_number(v); }},
      {.flags = "--clock-tolerance",
       .key = "clock_tolerance",
       .group = kTiming,
       .kind = K::number,
       .value_name = "X",
       .help = "Flag a row clock_unstable when the GPU's SM clock moved by more than this fraction while it "
               "was timed",
       .default_text = shown(d.measure.clock_tolerance),
       .min = 0,
       .max = 1,
       .set = [](C& c, const V& v) { c.options.measure.clock_tolerance = as_number(v); }},
      {.flags = "--calibration-file",
       .key = "calibration_file",
       .group = kTiming,
       .kind = K::path,
       .value_name = "FILE",
       .help = "Record the noise floor from this `dnnbench calibrate` file in the metadata",
       .default_text = "$XDG_CACHE_HOME/dnnbench/calibration.json when present",
       .set = [](C& c, const V& v) { c.options.calibration_file = as_text(v); }},

      // Checking.
      {.flags = "--seed",
       .key = "seed",
       .group = kChecking,
       .kind = K::seed,
       .value_name = "N",
       .help = "Seed of the input fills (0 to 2^64-1)",
       .default_text = std::to_string(d.seed),
       .set = [](C& c, const V& v) { c.options.seed = std::get<std::uint64_t>(v); }},
      {.flags = "--fill",
       .key = "fill",
       .group = kChecking,
       .kind = K::choice,
       .help = "Input values, drawn at the full precision of each type: normal (N(0,0.5^2): torch.randn's "
               "shape, as "
               "activations and weights are), uniform (U(-1,1)) or grid (multiples of 1/64, exact in every "
               "type: few bits switch, so a GPU runs cooler and faster than on real data); full = uniform",
       .default_text = std::string(fill_kind_name(d.fill)),
       .choices = {"normal", "uniform", "grid", "full"},
       .set = [](C& c, const V& v) { c.options.fill = *fill_kind_from_name(as_text(v)); }},
      {.flags = "--fp32-math",
       .key = "fp32_math",
       .group = kChecking,
       .kind = K::choice,
       .help =
           "fp32 graphs: strict (only engines with fp32 arithmetic run; sets NVIDIA_TF32_OVERRIDE=0 unless "
           "it is set, since cuDNN's fp32 matmul engine otherwise uses TF32 unannounced) or tf32 (engines "
           "that round fp32 inputs to TF32 run too, judged at the TF32 tolerance; PyTorch's allow_tf32)",
       .default_text = std::string(fp32_math_name(d.fp32_math)),
       .choices = {"strict", "tf32"},
       .set =
           [](C& c, const V& v) {
             c.options.fp32_math = as_text(v) == "tf32" ? Fp32Math::tf32 : Fp32Math::strict;
           }},
      {.flags = "--reduced-precision",
       .key = "reduced_precision",
       .group = kChecking,
       .kind = K::choice,
       .help = "Engines whose notes say they reduce (accumulate) in reduced precision (cuDNN's "
               "REDUCED_PRECISION_REDUCTION): allow (they run, labelled, judged on the normalized error a "
               "sum in the output's type can reach) or skip (listed as skipped)",
       .default_text = std::string(reduced_precision_name(d.reduced_precision)),
       .choices = {"allow", "skip"},
       .set =
           [](C& c, const V& v) {
             c.options.reduced_precision =
                 as_text(v) == "skip" ? ReducedPrecision::skip : ReducedPrecision::allow;
           }},
      {.flags = "--rtol",
       .key = "rtol",
       .group = kChecking,
       .kind = K::number,
       .value_name = "X",
       .help = "Relative tolerance for every output",
       .default_text = "per data type",
       .min = 0,
       .set = [](C& c, const V& v) { c.options.rtol = as_number(v); }},
      {.flags = "--atol",
       .key = "atol",
       .group = kChecking,
       .kind = K::number,
       .value_name = "X",
       .help = "Absolute tolerance for every output",
       .default_text = "per data type",
       .min = 0,
       .set = [](C& c, const V& v) { c.options.atol = as_number(v); }},
      {.flags = "--cpu-reference",
       .key = "cpu_reference",
       .group = kChecking,
       .kind = K::flag,
       .help = "Judge every row by the fp64 CPU reference (without it, cuDNN rows of graphs with a "
               "convolution or matmul are judged by the fp32 CUDA reference where it can run)",
       .set = [](C& c, const V& v) { c.options.gpu_reference = !as_flag(v); }},
      {.flags = "--dump-tensors",
       .key = "dump_tensors",
       .group = kChecking,
       .kind = K::path,
       .value_name = "DIR",
       .help = "Write inputs, reference and each row's outputs as .npy here",
       .set = [](C& c, const V& v) { c.options.dump_tensors_dir = as_text(v); }},

      // Oracle.
      {.flags = "--oracle",
       .key = "oracle",
       .group = kOracle,
       .kind = K::flag,
       .help = "Per row: sweep the engine's plans, re-time the winner against the heuristic plan paired",
       .set = [](C& c, const V& v) { c.options.oracle.enabled = as_flag(v); }},
      {.flags = "--oracle-aa",
       .key = "oracle_aa",
       .group = kOracle,
       .kind = K::flag,
       .help = "Oracle self-check: the heuristic plan against itself through the same path (noise floor); "
               "implies --oracle",
       .set = [](C& c, const V& v) { c.options.oracle.aa_self_check = as_flag(v); }},
      {.flags = "--oracle-regimes",
       .key = "oracle_regimes",
       .group = kOracle,
       .kind = K::choice,
       .help = "one: plans compared in --regime only; both: the sweep's leading plans are timed again in "
               "the other regime, which reports whether the winner changes with the regime",
       .default_text = d.oracle.both_regimes ? "both" : "one",
       .choices = {"one", "both"},
       .set = [](C& c, const V& v) { c.options.oracle.both_regimes = as_text(v) == "both"; }},
      {.flags = "--oracle-max-plans,--max-plans-per-engine",
       .key = "oracle_max_plans",
       .group = kOracle,
       .kind = K::integer,
       .value_name = "N",
       .help = "Plans swept per row (one engine of one graph) at most",
       .default_text = std::to_string(d.oracle.max_plans),
       .min = 1,
       .max = std::numeric_limits<int>::max(),
       .set = [](C& c, const V& v) { c.options.oracle.max_plans = static_cast<int>(as_int(v)); }},
      {.flags = "--oracle-max-seconds",
       .key = "oracle_max_seconds",
       .group = kOracle,
       .kind = K::number,
       .value_name = "S",
       .help = "Seconds of sweep per row at most",
       .default_text = shown(d.oracle.max_seconds),
       .min = 0,
       .min_exclusive = true,
       .set = [](C& c, const V& v) { c.options.oracle.max_seconds = as_number(v); }},
      {.flags = "--oracle-min-effect",
       .key = "oracle_min_effect",
       .group = kOracle,
       .kind = K::number,
       .value_name = "X",
       .help = "Smallest speedup (ratio - 1) called significant",
       .default_text = shown(d.oracle.min_effect),
       .min = 0,
       .max = 1,
       .set = [](C& c, const V& v) { c.options.oracle.min_effect = as_number(v); }},

      {.flags = "--export-plans",
       .key = "export_plans",
       .group = kOracle,
       .kind = K::path,
       .value_name = "FILE",
       .help = "Write what the oracle measured to this tuning file (JSON lines, one record per row; "
               "docs/tuning-db.md); `dnnbench plans merge` joins such files",
       .set = [](C& c, const V& v) { c.export_plans = as_text(v); }},
      {.flags = "--plans-from",
       .key = "plans_from",
       .group = kOracle,
       .kind = K::path,
       .value_name = "FILE",
       .help = "Re-time the plans a tuning file stored (its winner and heuristic pick) against today's "
               "heuristic plan, paired, instead of sweeping; without --engine, the engines it stores",
       .set = [](C& c, const V& v) { c.plans_from = as_text(v); }},

      // Distribution (docs/distributed.md).
      {.flags = "--shard",
       .key = "shard",
       .group = kDistribution,
       .kind = K::text,
       .value_name = "I/N",
       .help = "Run only part I of N of the suite (1 <= I <= N), split by estimated cost; for job arrays "
               "without MPI. `dnnbench merge` joins the parts",
       .set = [](C& c, const V& v) { c.shard = as_text(v); }},
      {.flags = "--allow-mixed-ranks",
       .key = "allow_mixed_ranks",
       .group = kDistribution,
       .kind = K::flag,
       .help = "MPI runs: let ranks with differing devices, drivers or library versions run together",
       .set = [](C& c, const V& v) { c.allow_mixed_ranks = as_flag(v); }},
      {.flags = "--allow-shared-device",
       .key = "allow_shared_device",
       .group = kDistribution,
       .kind = K::flag,
       .help = "MPI runs: let several ranks share one GPU (their timings disturb each other)",
       .set = [](C& c, const V& v) { c.allow_shared_device = as_flag(v); }},
      {.flags = "--rank-timeout-s",
       .key = "rank_timeout_s",
       .group = kDistribution,
       .kind = K::number,
       .value_name = "S",
       .help = "MPI runs: a rank silent this long is taken for dead; its graph goes to another rank",
       .default_text = "60",
       .min = 0,
       .min_exclusive = true,
       .set = [](C& c, const V& v) { c.rank_timeout_s = as_number(v); }},

      // Output.
      {.flags = "-o,--output",
       .key = "output",
       .group = kOutput,
       .kind = K::path,
       .value_name = "FILE",
       .help = "Write the results as JSON to this file",
       .set = [](C& c, const V& v) { c.output = as_text(v); }},
      {.flags = "--csv",
       .key = "csv",
       .group = kOutput,
       .kind = K::path,
       .value_name = "FILE",
       .help = "Also write the results as CSV, one line per row, to this file (docs/results.md)",
       .set = [](C& c, const V& v) { c.csv = as_text(v); }},
      {.flags = "--profile",
       .key = "profile",
       .group = kOutput,
       .kind = K::text,
       .value_name = "ncu[:SECTIONS]",
       .help = "Re-run each successful row's plan in a child process under Nsight Compute (ncu, from PATH), "
               "its timed executions only; SECTIONS: comma-separated ncu sections (default: ncu's basic "
               "set). nsys is refused (docs/profiling.md says why)",
       .set = [](C& c, const V& v) { c.profile = as_text(v); }},
      {.flags = "--profile-dir",
       .key = "profile_dir",
       .group = kOutput,
       .kind = K::path,
       .value_name = "DIR",
       .help = "Where --profile writes each row's .ncu-rep and its raw-page CSV",
       .default_text = "dnnbench-profile",
       .set = [](C& c, const V& v) { c.profile_dir = as_text(v); }},
      {.flags = "--save-samples",
       .key = "save_samples",
       .group = kOutput,
       .kind = K::flag,
       .help = "Keep every timing sample in the JSON",
       .set = [](C& c, const V& v) { c.options.save_samples = as_flag(v); }},
      {.flags = "-v,--verbose",
       .key = "verbose",
       .group = kOutput,
       .kind = K::flag,
       .help = "Print a detailed block per row",
       .set = [](C& c, const V& v) { c.verbose = as_flag(v); }},
      {.flags = "-q,--quiet",
       .key = "quiet",
       .group = kOutput,
       .kind = K::flag,
       .help = "Print nothing but errors and the summary",
       .set = [](C& c, const V& v) { c.quiet = as_flag(v); }},
      {.flags = "--progress",
       .key = "progress",
       .group = kOutput,
       .kind = K::choice,
       .help = "Progress on stderr: bar (one updating line), lines ([i/N] path), none; auto: bar on a "
               "terminal, else lines",
       .default_text = dc.progress,
       .choices = {"auto", "bar", "lines", "none"},
       .set = [](C& c, const V& v) { c.progress = as_text(v); }},

      // Limits.
      {.flags = "--max-graph-bytes",
       .key = "max_graph_bytes",
       .group = kLimits,
       .kind = K::bytes,
       .value_name = "BYTES",
       .help = "Refuse graphs whose tensors need more bytes than this",
       .default_text = format_byte_count(d.limits.max_graph_bytes),
       .min = 1,
       .set = [](C& c, const V& v) { c.options.limits.max_graph_bytes = as_int(v); }},
      {.flags = "--max-memory",
       .key = "max_memory",
       .group = kLimits,
       .kind = K::bytes,
       .value_name = "BYTES",
       .help = "Refuse graphs that need more host (or device) memory than this",
       .default_text = "80% of the free host memory, 90% of the free device memory",
       .min = 1,
       .set = [](C& c, const V& v) { c.options.max_memory = as_int(v); }},
      {.flags = "--max-archive-entry-bytes",
       .key = "max_archive_entry_bytes",
       .group = kLimits,
       .kind = K::bytes,
       .value_name = "BYTES",
       .help = "Refuse archive entries that extract to more bytes than this",
       .default_text = format_byte_count(static_cast<std::int64_t>(d.archive.max_entry_bytes)),
       .min = 1,
       .set = [](C& c,
                 const V& v) { c.options.archive.max_entry_bytes = static_cast<std::uint64_t>(as_int(v)); }},
      {.flags = "--max-archive-bytes",
       .key = "max_archive_bytes",
       .group = kLimits,
       .kind = K::bytes,
       .value_name = "BYTES",
       .help = "Stop extracting an archive past this many bytes",
       .default_text = format_byte_count(static_cast<std::int64_t>(d.archive.max_total_bytes)),
       .min = 1,
       .set = [](C& c,
                 const V& v) { c.options.archive.max_total_bytes = static_cast<std::uint64_t>(as_int(v)); }},

      // Reliability.
      {.flags = "--journal",
       .key = "journal",
       .group = kReliability,
       .kind = K::path,
       .value_name = "FILE",
       .help = "Append every finished row to this JSON-lines journal",
       .default_text = "OUTPUT.journal.jsonl with -o",
       .set = [](C& c, const V& v) { c.journal = as_text(v); }},
      {.flags = "--resume",
       .key = "resume",
       .group = kReliability,
       .kind = K::flag,
       .help = "Reuse the rows the journal holds (same options required) and run the rest",
       .set = [](C& c, const V& v) { c.resume = as_flag(v); }},
      {.flags = "--isolate",
       .key = "isolate",
       .group = kReliability,
       .kind = K::choice,
       .help = "Run each graph (or row) in a child process, so that a crash or hang costs one row",
       .default_text = "graph with a GPU provider, else none",
       .choices = {"none", "graph", "row"},
       .set = [](C& c, const V& v) { c.isolate = as_text(v); }},
      {.flags = "--timeout-s",
       .key = "timeout_s",
       .group = kReliability,
       .kind = K::number,
       .value_name = "S",
       .help = "Kill an isolated child running longer than this; its row becomes `timeout` (implies "
               "--isolate graph)",
       .default_text = "none",
       .min = 0,
       .min_exclusive = true,
       .set = [](C& c, const V& v) { c.timeout_s = as_number(v); }},
  };
}

std::string quoted_choices(const RunOptionSpec& spec) {
  std::string out;
  for (std::size_t i = 0; i < spec.choices.size(); ++i) {
    if (i > 0) out += i + 1 == spec.choices.size() ? " or " : ", ";
    out += fmt::format("\"{}\"", spec.choices[i]);
  }
  return out;
}

// A maximum worth naming: an integer option's int limit is only the type's.
bool names_max(const RunOptionSpec& spec) {
  const bool integral = spec.kind == K::integer || spec.kind == K::bytes;
  return std::isfinite(spec.max) && !(integral && spec.max >= std::numeric_limits<int>::max());
}

// "in [a, b]", "in (a, b]" (an exclusive minimum), "≥ a" or "> a" (`ge` spells ≥).
std::string interval_text(const RunOptionSpec& spec, std::string_view ge) {
  if (!std::isfinite(spec.min)) return "";
  if (names_max(spec)) return fmt::format("in {}{}, {}]", spec.min_exclusive ? "(" : "[", spec.min, spec.max);
  return fmt::format("{} {}", spec.min_exclusive ? std::string_view(">") : ge, spec.min);
}

std::string range_text(const RunOptionSpec& spec) {
  return interval_text(spec, "≥");
}

std::string recipe_type(const RunOptionSpec& spec) {
  const auto range = range_text(spec);
  const auto with_range = [&](const std::string& what) { return range.empty() ? what : what + " " + range; };
  switch (spec.kind) {
    case K::flag:
      return "boolean";
    case K::integer:
      return with_range("integer");
    case K::seed:
      return "integer ≥ 0";
    case K::number:
      return with_range("number");
    case K::bytes:
      return with_range("bytes") + ": an integer, or a string with a unit (`\"16GiB\"`, `\"512M\"`)";
    case K::text:
      return "string";
    case K::path:
      return "string (path)";
    case K::choice: {
      std::string out;
      for (std::size_t i = 0; i < spec.choices.size(); ++i) {
        if (i > 0) out += i + 1 == spec.choices.size() ? " or " : ", ";
        out += fmt::format("`\"{}\"`", spec.choices[i]);
      }
      return out;
    }
    case K::list:
      return "string or array of strings";
    case K::path_list:
      return "string or array of strings (paths, globs)";
  }
  return "";
}

}  // namespace

std::string RunOptionSpec::long_name() const {
  std::size_t start = 0;
  while (start < flags.size()) {
    const auto end = std::min(flags.find(',', start), flags.size());
    const auto name = flags.substr(start, end - start);
    if (name.rfind("--", 0) == 0) return name;
    start = end + 1;
  }
  return flags;
}

const std::vector<RunOptionSpec>& run_option_table() {
  static const std::vector<RunOptionSpec> table = make_table();
  return table;
}

const RunOptionSpec* find_run_option_by_key(std::string_view key) {
  for (const auto& spec : run_option_table())
    if (spec.key == key) return &spec;
  return nullptr;
}

void check_option_range(const RunOptionSpec& spec, double value, const std::string& shown_value) {
  if (value < spec.min || (spec.min_exclusive && value == spec.min) || value > spec.max)
    throw OptionValueError{fmt::format("must be {}, got {}", interval_text(spec, ">="), shown_value)};
}

std::string canonical_choice(const RunOptionSpec& spec, const std::string& text) {
  const auto wanted = ascii_lower(text);
  for (const auto& choice : spec.choices)
    if (choice == wanted) return choice;
  throw OptionValueError{fmt::format("expected {}, got \"{}\"", quoted_choices(spec), text)};
}

std::int64_t parse_byte_count(const std::string& text) {
  const auto fail = [&]() -> std::int64_t {
    throw OptionValueError{fmt::format(
        "expected a byte count such as 1000000, 512M or 16GiB (powers of 1024), got \"{}\"", text)};
  };
  double number = 0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  const auto [rest, ec] = std::from_chars(begin, end, number, std::chars_format::fixed);
  if (ec != std::errc() || rest == begin || !std::isfinite(number) || number < 0) return fail();
  static const std::map<std::string, double> units = {
      {"", 1.0},      {"b", 1.0},      {"k", 0x1p10}, {"kb", 0x1p10}, {"kib", 0x1p10}, {"m", 0x1p20},
      {"mb", 0x1p20}, {"mib", 0x1p20}, {"g", 0x1p30}, {"gb", 0x1p30}, {"gib", 0x1p30}, {"t", 0x1p40},
      {"tb", 0x1p40}, {"tib", 0x1p40}, {"p", 0x1p50}, {"pb", 0x1p50}, {"pib", 0x1p50},
  };
  std::string unit(rest, end);
  unit.erase(0, unit.find_first_not_of(' '));
  const auto found = units.find(ascii_lower(unit));
  if (found == units.end()) return fail();
  const double bytes = std::floor(number * found->second);
  // 2^63 bytes is past any machine; the check keeps the conversion defined.
  if (bytes >= 0x1p63) throw OptionValueError{fmt::format("\"{}\" is too large", text)};
  return static_cast<std::int64_t>(bytes);
}

std::string format_byte_count(std::int64_t bytes) {
  static const std::pair<const char*, int> units[] = {{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}};
  for (const auto& [unit, shift] : units) {
    const std::int64_t size = std::int64_t{1} << shift;
    if (bytes >= size && bytes % size == 0) return fmt::format("{}{}", bytes / size, unit);
  }
  return std::to_string(bytes);
}

OptionValue parse_option_text(const RunOptionSpec& spec, const std::string& text) {
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  switch (spec.kind) {
    case K::flag:
      return true;
    case K::integer: {
      std::int64_t value = 0;
      const auto [rest, ec] = std::from_chars(begin, end, value);
      if (ec == std::errc::result_out_of_range)
        throw OptionValueError{fmt::format("{} is out of range", text)};
      if (ec != std::errc() || rest != end || text.empty())
        throw OptionValueError{fmt::format("expected an integer, got \"{}\"", text)};
      check_option_range(spec, static_cast<double>(value), text);
      return value;
    }
    case K::seed: {
      if (!text.empty() && text.front() == '-')
        throw OptionValueError{fmt::format("must be >= 0, got {}", text)};
      std::uint64_t value = 0;
      const auto [rest, ec] = std::from_chars(begin, end, value);
      if (ec == std::errc::result_out_of_range)
        throw OptionValueError{fmt::format("must be below 2^64 (at most {}), got {}",
                                           std::numeric_limits<std::uint64_t>::max(), text)};
      if (ec != std::errc() || rest != end || text.empty())
        throw OptionValueError{fmt::format("expected an integer from 0 to 2^64-1, got \"{}\"", text)};
      return value;
    }
    case K::number: {
      double value = 0;
      const auto [rest, ec] = std::from_chars(begin, end, value);
      if (ec != std::errc() || rest != end || text.empty() || !std::isfinite(value))
        throw OptionValueError{fmt::format("expected a number, got \"{}\"", text)};
      check_option_range(spec, value, text);
      return value;
    }
    case K::bytes: {
      const auto value = parse_byte_count(text);
      check_option_range(spec, static_cast<double>(value), text);
      return value;
    }
    case K::text:
    case K::path:
      return text;
    case K::choice:
      return canonical_choice(spec, text);
    case K::list:
    case K::path_list:
      return std::vector<std::string>{text};
  }
  return text;
}

std::string option_help(const RunOptionSpec& spec) {
  return spec.default_text.empty() ? spec.help
                                   : fmt::format("{} (default: {})", spec.help, spec.default_text);
}

std::string recipe_key_table_markdown() {
  std::string out = "| key | type | command line | default |\n| --- | --- | --- | --- |\n";
  for (const auto& spec : run_option_table()) {
    std::string flags;
    std::size_t start = 0;
    while (start <= spec.flags.size()) {
      const auto end = std::min(spec.flags.find(',', start), spec.flags.size());
      if (!flags.empty()) flags += ", ";
      flags += fmt::format("`{}`", spec.flags.substr(start, end - start));
      start = end + 1;
    }
    out += fmt::format("| `{}` | {}{} | {} | {} |\n", spec.key, recipe_type(spec), spec.recipe_note, flags,
                       spec.default_text.empty() ? "" : spec.default_text);
  }
  return out;
}

}  // namespace dnnbench
