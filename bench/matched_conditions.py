#!/usr/bin/env python3
"""dnnbench's top pick beside PyTorch's own call of the same problem, in matched conditions.

For a small perf set -- every GEMM of graphs/perf/gemm plus the 8192x8192x8192 bf16 GEMM
(bench/graphs/), the ResNet-50 fp16 forward convolutions of graphs/perf/resnet50 and the
attention forward graphs of graphs/perf/attention -- and for each power regime (sustained, then
paced), in one run:

 1. dnnbench runs the set: GEMMs on cuBLASLt (PyTorch's matmul calls cuBLAS, the same library),
    convolutions and attention on cuDNN, `--max-engines 1 --regime R --fill normal`; its top
    pick's GPU kernel median (events), its batch and its kernels (CUPTI) are read back.
 2. PyTorch runs the same problem (same shapes, dtypes, strides, padding, masks): torch.matmul,
    F.conv2d on channels_last tensors where the graph is NHWC (cudnn.benchmark off: cuDNN's
    heuristic pick, as dnnbench's top pick), F.scaled_dot_product_attention under
    sdpa_kernel(CUDNN_ATTENTION); on normal data rounded to the dtype, N(0, 0.5^2) as dnnbench's
    --fill normal draws (--sigma; runs before 2026-12-03 drew torch.randn's N(0, 1)); timed by CUDA-graph
    replay of as many calls as dnnbench's row put in one sample (so both tools' samples last the
    same, ~10 ms), in the same regime:
      sustained  back to back, no gaps (the queue is kept ahead of the GPU while samples are
                 read), after a warm-up until the medians of three successive windows agree
                 within 1% (and the SM clock within 2%), at least --warm-min-s, at most
                 --warm-max-s; the regime opens with --global-warm-s of the largest GEMM;
                 then --measure-s (1 s) of samples, a whole cycle of the power control
                 at the cap, as dnnbench's --capped-min-ms;
      paced      after each sample the host sleeps as long as the sample took (50% duty), as
                 dnnbench's paced regime does; warm-up paced too; --paced-measure-s
                 (0.3 s) of samples.
 3. In a separate process (CUPTI, once attached, changes later launches: bench/RESULTS.md,
    "Split-K decode GEMMs"), torch.profiler records the kernels of each PyTorch call.

It prints, per regime, a table (dnnbench median, PyTorch median, ratio dnnbench / PyTorch, same
kernel yes / main / no, clocks and power on both sides) and the distribution of the ratio over
the same-kernel rows (min, p5, median, p95, max, geomean, share within +-3%; convolutions under
5 us left out), and the 8192^3 bf16 GEMM's TFLOP/s from both tools; and writes
matched-conditions.json and matched-conditions.md into --out, with the dnnbench results, logs
and PyTorch measurements beside them.

    bench/matched_conditions.py --dnnbench build/gpu919/dnnbench --out out/matched
    bench/matched_conditions.py --self-test [--results CPU_RESULTS.json]   (no torch, no GPU)
    bench/matched_conditions.py --report-only out/matched                  (re-make the report)
"""
import argparse
import glob
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import deque

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(HERE, "lib"))  # torch_problems
from torch_problems import (build_call, compare_kernels, demangle, distribution,  # noqa: E402
                            normalise_kernel_name, problem_spec, profile_kernels)

REGIMES = ("sustained", "paced")
LIBRARY = {"gemm": "cublaslt", "conv": "cudnn", "attention": "cudnn"}
BIG_GEMM = "matmul_m8192_k8192_n8192_bf16"
BIG_GEMM_PATH = os.path.join("bench", "graphs", BIG_GEMM + ".json")
# The set: convolutions whose kernel runs under 5 us are dominated by fixed costs that
# neither tool controls; they are timed and shown but left out of the distribution.
MIN_CONV_MS = 0.005
BAND = 0.03  # "within +-3%"
# dnnbench sizes a sample to ~10 ms (src/session/plan_session.cpp, kTargetBatchMs); a graph without a
# dnnbench row gets a PyTorch sample of the same length.
TARGET_SAMPLE_MS = 10.0
MAX_CALLS = 1000  # calls captured in one CUDA graph: a 1 us kernel still fills a ~1 ms sample
QUEUE_AHEAD_MS = 30.0  # sustained: GPU work kept queued while the host reads a sample
MAX_QUEUE = 64
WINDOW_SAMPLES = 5  # steady state as dnnbench's detector: windows of 5 samples (src/measure/steady_state.hpp)
STEADY_WINDOWS = 3  # three windows agreeing rule out a slow monotone drift
STEADY_TOLERANCE = 0.01  # their medians within 1%
CLOCK_TOLERANCE = 0.02  # their mean SM clocks within 2% (NVML steps ~15 MHz)
CLOCK_PERIOD_S = 0.05
DUTY = 0.5  # paced: dnnbench's pacing_duty
# PyTorch's share of a regime's time, per graph; dnnbench gets the rest. PyTorch shortens its
# warm-ups and samples (down to 30%, SCALED) when it runs late.
TORCH_S_PER_GRAPH = 1.0
# Sustained more: its rows at the cap wait for their power (~1.4 s) and measure >= 1 s
# (dnnbench's --capped-min-ms), where a paced row takes ~0.5 s (on the H200, 140 s of dnnbench
# sustained against 78 s paced on the whole set).
REGIME_WEIGHT = {"sustained": 0.62, "paced": 0.38}
# What a --torch-fresh graph's new process costs beyond its timing: Python, torch and CUDA start
# (3.2-5.5 s a graph on the H200 machine).
FRESH_PROCESS_S = 3.5
SCALED = ("warm_min_s", "warm_max_s", "paced_warm_min_s", "paced_warm_max_s", "measure_s", "paced_measure_s")
QUICK = ("bert_large_ffn_up_m4096_k1024_n4096_fp16", "llama2_7b_qkv_m2048_k4096_n12288_bf16",
         "decode_m16_k4096_n4096_fp16", BIG_GEMM, "rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16",
         "rn50_res4_1x1_256_1024_fwd_n32_nhwc_fp16", "rn50_res5_3x3_512_512_fwd_n32_nhwc_fp16",
         "sdpa_bert_large_fwd_b8_h16_s512_d64_fp16",
         "sdpa_llama3_8b_gqa_prefill_fwd_b1_h32_kv8_s4096_d128_causal_bf16")


# ---------------------------------------------------------------------------------------------
# The set

def default_graphs(conv_directions="fwd"):
    def rel(pattern):
        return sorted(os.path.relpath(p, ROOT) for p in glob.glob(os.path.join(ROOT, pattern)))
    gemm = rel("graphs/perf/gemm/*.json") + [BIG_GEMM_PATH]
    conv = rel("graphs/perf/resnet50/*_fwd_*_fp16.json") if conv_directions == "fwd" \
        else rel("graphs/perf/resnet50/*_fp16.json")
    attention = [p for p in rel("graphs/perf/attention/*.json") if "_fwd_" in os.path.basename(p)]
    return gemm + conv + attention


def select(args):
    paths = args.graphs or default_graphs(args.conv_directions)
    specs, skipped = [], []
    families = set(args.subset.split(",")) if args.subset else {"gemm", "conv", "attention"}
    for p in paths:
        # A path as given (from the working directory), else from the repository root; kept
        # relative to the root, where dnnbench runs.
        full = os.path.abspath(p) if os.path.exists(p) else os.path.join(ROOT, p)
        try:
            spec = problem_spec(full)
        except (ValueError, KeyError, OSError) as e:
            skipped.append((p, str(e)))
            continue
        rel = os.path.relpath(full, ROOT)
        spec["path"] = full if rel.startswith("..") else rel
        if spec["family"] not in families:
            continue
        if args.quick and spec["name"] not in QUICK:
            continue
        if args.only and not re.search(args.only, spec["name"]):
            continue
        specs.append(spec)
    return specs, skipped


# ---------------------------------------------------------------------------------------------
# dnnbench

def dnnbench_flags(binary):
    """(has --regime, has --fill normal, has --cache-mode auto) from `BINARY run --help`."""
    try:
        text = subprocess.run([binary, "run", "--help"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return False, False, False
    fill = re.search(r"--fill\b(.*?)(?:\n\s*-{1,2}[a-z]|\Z)", text, re.S)
    return "--regime" in text, bool(fill and "normal" in fill.group(1)), "--cache-mode auto" in text


def dnnbench_command(binary, paths, lib, regime, out_json, flags, extra):
    has_regime, has_normal, has_auto_cache = flags
    cmd = [binary, "run"]
    for p in paths:
        cmd += ["-g", p]
    cmd += ["--provider", lib, "--max-engines", "1"]
    # An older binary: the same conditions under the old names (and grid data for fp16/bf16).
    cmd += ["--regime", regime] if has_regime else ["--pacing", "off" if regime == "sustained" else "always"]
    cmd += ["--fill", "normal" if has_normal else "full"]
    # PyTorch's loop replays one set of buffers: hot, which a binary with `auto` (rotating on the
    # GPU) must be asked for.
    if has_auto_cache:
        cmd += ["--cache-mode", "hot"]
    return cmd + ["-q", "-o", out_json] + extra


def run_until(cmd, log, seconds):
    """Run `cmd` for at most `seconds`; past them SIGTERM (dnnbench then writes the rows it has,
    marked incomplete), then SIGKILL. The exit code (143 / -9 after a stop)."""
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
    try:
        return proc.wait(timeout=max(1.0, seconds))
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            return proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()


def run_dnnbench(args, specs, regime, flags, until):
    """dnnbench over the set in one regime: cuBLASLt for the GEMMs, cuDNN for the rest, each
    process given its share (by graph count) of the time left before `until`."""
    runs = []
    work = [(lib, [s["path"] for s in specs if LIBRARY[s["family"]] == lib]) for lib in ("cublaslt", "cudnn")]
    left_graphs = sum(len(p) for _, p in work)
    for lib, paths in work:
        if not paths:
            continue
        out_json = os.path.join(args.out, f"dnnbench-{regime}-{lib}.json")
        cmd = dnnbench_command(args.dnnbench, paths, lib, regime, out_json, flags, args.dnnbench_arg)
        seconds = (until - time.time()) * len(paths) / left_graphs
        left_graphs -= len(paths)
        start = time.time()
        with open(os.path.join(args.out, f"dnnbench-{regime}-{lib}.log"), "w") as log:
            rc = run_until(cmd, log, seconds)
        took = time.time() - start
        print(f"  dnnbench {regime} {lib}: {len(paths)} graphs, rc {rc}, {took:.1f} s"
              + (f" (stopped at its {seconds:.0f} s share)" if took > seconds else ""), flush=True)
        runs.append({"library": lib, "command": cmd, "rc": rc, "seconds": round(took, 1),
                     "results": os.path.basename(out_json)})
    return runs


def _stat(stats, key):
    return (stats or {}).get(key)


def _mean(clocks, key):
    return ((clocks or {}).get(key) or {}).get("mean")


def read_dnnbench(path):
    """{graph name: top pick} from a dnnbench results JSON, and its metadata. The top pick is the
    graph's first row (the run had --max-engines 1: the library's heuristic pick)."""
    with open(path) as f:
        doc = json.load(f)
    meta = doc.get("metadata") or {}
    options = meta.get("options") or {}
    picks = {}
    for g in doc.get("graphs", []):
        rows = g.get("results") or []
        if not rows:
            picks[g["graph_name"]] = {"status": g.get("status"), "error": g.get("error_message")}
            continue
        r = rows[0]
        timing = r.get("timing") or {}
        stats = r.get("gpu_kernel_stats")
        basis = "gpu_kernel"
        if stats is None:  # a host provider (the CPU self-test): its host time
            stats, basis = r.get("host_stats"), "host"
        kernels = [{"name": k.get("name"), "normalised": normalise_kernel_name(k.get("name") or "?"),
                    "launches": k.get("launches"), "median_ms": k.get("median_ms")}
                   for k in r.get("kernels") or []]
        picks[g["graph_name"]] = {
            "status": r.get("status"), "passed": r.get("passed"),
            "error": r.get("error_message") or r.get("skip_reason"),
            "provider": r.get("provider"), "engine_id": r.get("engine_id"), "plan_name": r.get("plan_name"),
            "basis": basis, "median_ms": _stat(stats, "median_ms"), "p5_ms": _stat(stats, "p5_ms"),
            "p95_ms": _stat(stats, "p95_ms"), "n": _stat(stats, "n"), "ci95_ms": _stat(stats, "median_ci95_ms"),
            "kernel_sum_ms": _stat(r.get("kernel_sum_stats"), "median_ms"),
            "batch": timing.get("batch"), "method": timing.get("method"),
            "regime": timing.get("regime"), "pacing": timing.get("pacing"),
            "fill": timing.get("fill") or r.get("fill") or options.get("fill"),
            "other_regime": timing.get("other_regime"), "warmup_ms": timing.get("warmup_ms"),
            "warmup_steady": timing.get("warmup_steady"),
            "converged": timing.get("converged"), "clock_unstable": timing.get("clock_unstable"),
            "sm_mhz": _mean(timing.get("clocks"), "sm_mhz"), "power_w": _mean(timing.get("clocks"), "power_w"),
            "temperature_c": _mean(timing.get("clocks"), "temperature_c"),
            "kernels": kernels, "analytical_flops": g.get("analytical_flops") or r.get("analytical_flops"),
        }
    summary = {"providers": meta.get("providers"), "gpu": meta.get("gpu"), "tool": meta.get("tool"),
               "fill": options.get("fill"), "regime": options.get("regime"), "pacing": options.get("pacing"),
               "complete": doc.get("complete"), "exit_code": doc.get("exit_code")}
    return picks, summary


# ---------------------------------------------------------------------------------------------
# PyTorch timing (GPU machine only)

class Clocks:
    """SM clock (MHz), board power (W) and GPU temperature (C) from NVML, when pynvml is there.
    The temperature, since at the power cap a hotter chip leaks more and runs a lower clock for the
    same watts: rows at the cap read 1-4% higher clocks on dnnbench's side at equal power, and
    dnnbench's rows start after idle gaps where PyTorch's run back to back."""

    def __init__(self):
        self.nv = None
        try:
            import pynvml
            pynvml.nvmlInit()
            self.pynvml, self.nv = pynvml, pynvml.nvmlDeviceGetHandleByIndex(0)
        except Exception:  # no NVML: no clocks in the PyTorch columns
            self.nv = None

    def read(self):
        if self.nv is None:
            return None
        try:
            return (float(self.pynvml.nvmlDeviceGetClockInfo(self.nv, self.pynvml.NVML_CLOCK_SM)),
                    self.pynvml.nvmlDeviceGetPowerUsage(self.nv) / 1000.0,
                    float(self.pynvml.nvmlDeviceGetTemperature(self.nv, self.pynvml.NVML_TEMPERATURE_GPU)))
        except Exception:
            return None


class SteadyWindows:
    """dnnbench's steady-state rule on PyTorch samples: windows of WINDOW_SAMPLES samples; steady
    when the last STEADY_WINDOWS medians agree within STEADY_TOLERANCE and their mean SM clocks
    within CLOCK_TOLERANCE (when read)."""

    def __init__(self):
        self.window, self.window_clock, self.medians, self.clocks = [], [], [], []

    def add(self, ms, mhz):
        self.window.append(ms)
        if mhz:
            self.window_clock.append(mhz)
        if len(self.window) < WINDOW_SAMPLES:
            return
        self.medians.append(statistics.median(self.window))
        self.clocks.append(statistics.mean(self.window_clock) if self.window_clock else None)
        self.window, self.window_clock = [], []

    def steady(self):
        if len(self.medians) < STEADY_WINDOWS:
            return False
        m = self.medians[-STEADY_WINDOWS:]
        if max(m) / min(m) - 1 > STEADY_TOLERANCE:
            return False
        c = [x for x in self.clocks[-STEADY_WINDOWS:] if x]
        return len(c) < STEADY_WINDOWS or max(c) / min(c) - 1 <= CLOCK_TOLERANCE


def summarize(samples):
    v = sorted(samples)
    return {"n": len(v), "median_ms": statistics.median(v), "p5_ms": v[int(0.05 * (len(v) - 1))],
            "p95_ms": v[int(round(0.95 * (len(v) - 1)))], "min_ms": v[0], "max_ms": v[-1]}


def clock_summary(readings):
    readings = [r for r in readings if r]
    if not readings:
        return {"sm_mhz": None, "power_w": None, "temperature_c": None, "clock_readings": 0}
    return {"sm_mhz": statistics.mean(r[0] for r in readings), "power_w": statistics.mean(r[1] for r in readings),
            "temperature_c": statistics.mean(r[2] for r in readings), "clock_readings": len(readings)}


def enough(samples, measured_ms, cfg):
    """The timed samples' stopping rule: cfg.measure_s of GPU time and cfg.min_samples, or cfg.max_samples."""
    n = len(samples)
    return (measured_ms >= cfg.measure_s * 1000 and n >= cfg.min_samples) or n >= cfg.max_samples


def measure_sustained(torch, run, calls, cfg, clocks):
    """Back-to-back samples: `run` (one replay of `calls` calls) between an event pair, the queue
    kept QUEUE_AHEAD_MS ahead of the GPU, so reading a sample never leaves it idle. Warm-up until
    steady (at least cfg.warm_min_s, at most cfg.warm_max_s), then cfg.measure_s of GPU time."""
    Event = torch.cuda.Event
    pending = deque()
    depth, warming, steady = 2, True, False
    detector = SteadyWindows()
    samples, readings, warm_samples = [], [], 0
    measured_ms, last_read, warm_s = 0.0, -1.0, None
    t0 = time.perf_counter()
    while True:
        while len(pending) < depth:
            s, e = Event(enable_timing=True), Event(enable_timing=True)
            s.record()
            run()
            e.record()
            pending.append((s, e))
        s, e = pending.popleft()
        e.synchronize()
        ms = s.elapsed_time(e)
        depth = max(2, min(MAX_QUEUE, math.ceil(QUEUE_AHEAD_MS / max(ms, 1e-3)) + 1))
        now = time.perf_counter() - t0
        reading = None
        if now - last_read >= CLOCK_PERIOD_S:
            reading, last_read = clocks.read(), now
        if warming:
            warm_samples += 1
            detector.add(ms, reading[0] if reading else None)
            steady = now >= cfg.warm_min_s and detector.steady()
            if steady or now >= cfg.warm_max_s:
                warming, warm_s = False, now
            continue
        samples.append(ms / calls)
        measured_ms += ms
        if reading:
            readings.append(reading)
        if enough(samples, measured_ms, cfg):
            break
    torch.cuda.synchronize()  # the replays still queued ran back to back too
    out = summarize(samples)
    out.update(clock_summary(readings), warm_s=round(warm_s, 3), warm_samples=warm_samples, steady=steady)
    return out


def measure_paced(torch, run, calls, cfg, clocks):
    """One sample at a time; after each, the host sleeps as long as the sample took (host wall
    time, as dnnbench's pace()): 50% duty. Warm-up paced, until steady or cfg.paced_warm_max_s."""
    Event = torch.cuda.Event
    s, e = Event(enable_timing=True), Event(enable_timing=True)
    detector = SteadyWindows()
    samples, readings, warm_samples = [], [], 0
    measured_ms, warming, steady, warm_s = 0.0, True, False, None
    t0 = time.perf_counter()
    while True:
        h = time.perf_counter()
        s.record()
        run()
        e.record()
        e.synchronize()
        wall = time.perf_counter() - h
        ms = s.elapsed_time(e)
        reading = clocks.read()  # at the sample's end, before the idle gap
        time.sleep(wall * (1 / DUTY - 1))
        now = time.perf_counter() - t0
        if warming:
            warm_samples += 1
            detector.add(ms, reading[0] if reading else None)
            steady = now >= cfg.paced_warm_min_s and detector.steady()
            if steady or now >= cfg.paced_warm_max_s:
                warming, warm_s = False, now
            continue
        samples.append(ms / calls)
        measured_ms += ms
        if reading:
            readings.append(reading)
        if enough(samples, measured_ms, cfg):
            break
    out = summarize(samples)
    out.update(clock_summary(readings), warm_s=round(warm_s, 3), warm_samples=warm_samples, steady=steady)
    return out


def calls_for(torch, fn, batch):
    """Calls per sample: dnnbench's batch for the row, else enough for a ~TARGET_SAMPLE_MS sample."""
    if batch:
        return max(1, min(MAX_CALLS, int(batch))), "dnnbench's batch"
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(5):
        fn()
    e.record()
    e.synchronize()
    per_call = s.elapsed_time(e) / 5
    return max(1, min(MAX_CALLS, math.ceil(TARGET_SAMPLE_MS / max(per_call, 1e-4)))), "~10 ms sample"


def capture(torch, fn, calls):
    """(run, method): one CUDA-graph replay of `calls` calls, or `calls` back-to-back calls when
    capture fails. Warm-up calls on a side stream first (cuDNN and cuBLAS choose and build their
    plans before capture)."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())  # the inputs' fills first
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    try:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
        return graph.replay, f"cuda-graph({calls} calls)", graph
    except Exception as e:  # capture refused: back-to-back launches (the row says so)
        torch.cuda.synchronize()

        def run():
            for _ in range(calls):
                fn()
        return run, f"back-to-back({calls} calls; capture failed: {type(e).__name__})", None


def time_torch(torch, specs, regime, picks, cfg, clocks, deadline):
    """PyTorch's figure for every spec in one regime: {graph name: result}."""
    results = {}
    torch.backends.cudnn.benchmark = False  # cuDNN's heuristic pick, as dnnbench's top pick
    if regime == "sustained" and cfg.global_warm_s > 0 and specs:
        # Bring the GPU to its power and thermal steady state with the heaviest GEMM of the set.
        heavy = max((s for s in specs if s["family"] == "gemm"), key=lambda s: s["flops"], default=specs[0])
        fn = build_call(torch, heavy, fill="normal", seed=cfg.seed, sigma=cfg.sigma)
        run, _, _ = capture(torch, fn, calls_for(torch, fn, None)[0])
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < cfg.global_warm_s:
            for _ in range(4):
                run()
            torch.cuda.synchronize()
        del fn, run
        print(f"  torch {regime}: global warm-up {cfg.global_warm_s:.1f} s on {heavy['name']}", flush=True)
    # What one graph costs at the full settings (warm-up, samples, paced idle, build and capture).
    nominal = (cfg.warm_max_s + cfg.warm_min_s) / 2 + cfg.measure_s + 0.3 if regime == "sustained" \
        else (cfg.paced_warm_max_s + cfg.paced_warm_min_s) / 2 + cfg.paced_measure_s / DUTY + 0.3
    fresh = [bool(cfg.torch_fresh and re.search(cfg.torch_fresh, s["name"])) for s in specs]
    for i, spec in enumerate(specs):
        name = spec["name"]
        left = deadline - time.time()
        if left <= 0:
            results[name] = {"error": "not timed: the run's deadline (--deadline-s) was reached"}
            continue
        # Running late: shorter warm-ups and samples (down to 30%) rather than graphs left out.
        # A fresh process's start (FRESH_PROCESS_S) does not shrink with them.
        left -= FRESH_PROCESS_S * sum(fresh[i:])
        scale = max(0.3, min(1.0, left / (len(specs) - i) / nominal))
        g_cfg = argparse.Namespace(**{k: (v * scale if k in SCALED else v) for k, v in vars(cfg).items()})
        if regime == "paced":
            g_cfg.measure_s = g_cfg.paced_measure_s
        pick = picks.get(name) or {}
        start = time.time()
        if fresh[i]:
            # The child got the scaled settings: the scale is this process's.
            results[name] = dict(time_in_fresh_process(spec, regime, pick, g_cfg, deadline), settings_scale=round(scale, 2))
            continue
        try:
            fn = build_call(torch, spec, fill="normal", seed=cfg.seed, sigma=cfg.sigma)
            calls, calls_basis = calls_for(torch, fn, pick.get("batch"))
            run, method, graph = capture(torch, fn, calls)
            measure = measure_sustained if regime == "sustained" else measure_paced
            r = measure(torch, run, calls, g_cfg, clocks)
            r.update(calls=calls, calls_basis=calls_basis, method=method, seconds=round(time.time() - start, 2),
                     settings_scale=round(scale, 2))
            results[name] = r
            del fn, run, graph
        except Exception as e:  # one graph's failure must not stop the run
            results[name] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"}
            try:
                torch.cuda.synchronize()
            except Exception:  # a broken context: the next graphs say so in their own errors
                pass
        torch.cuda.empty_cache()
    return results


def time_in_fresh_process(spec, regime, pick, cfg, deadline):
    """One graph's PyTorch figure from a new process (--torch-fresh): what a program that calls
    only this sees. A long process's history can slow a call: after torch.profiler (CUPTI) had run,
    split-K GEMMs' replays idled 0.4-2.7 us a call between their two kernels (bench/RESULTS.md,
    "Split-K decode GEMMs"); a fresh process per graph rules out any such carried-over state."""
    fd, out = tempfile.mkstemp(suffix=".json", prefix="torch-one-")
    os.close(fd)
    cmd = [sys.executable, os.path.abspath(__file__), "--time-one", "--time-out", out, "--regimes", regime,
           "--graphs", spec["path"], "--seed", str(cfg.seed), "--sigma", str(cfg.sigma), "--global-warm-s", "0"]
    cmd += [f"--{k.replace('_', '-')}={getattr(cfg, k)}" for k in SCALED if k != "measure_s" or regime == "sustained"]
    if pick.get("batch"):
        cmd += ["--time-batch", str(pick["batch"])]
    start = time.time()
    try:
        subprocess.run(cmd, cwd=ROOT, timeout=max(10, deadline - time.time() + 30), check=False)
        with open(out) as f:
            r = json.load(f)[spec["name"]]
    except (subprocess.TimeoutExpired, OSError, ValueError, KeyError) as e:
        r = {"error": f"fresh process: {type(e).__name__}: {str(e)[:160]}"}
    finally:
        os.unlink(out)
    r["fresh_process"] = True
    r["process_seconds"] = round(time.time() - start, 2)
    return r


def time_one(args, specs):
    """Child process (--torch-fresh): time_torch on one graph, written to --time-out."""
    import torch
    regime = args.regimes.split(",")[0]
    picks = {specs[0]["name"]: {"batch": args.time_batch}} if args.time_batch else {}
    args.torch_fresh = None
    res = time_torch(torch, specs, regime, picks, args, Clocks(), time.time() + 120)
    with open(args.time_out, "w") as f:
        json.dump(res, f)
    return 0


def profile_all(args, specs):
    """Child process: the kernels of every spec's PyTorch call by torch.profiler, to JSON."""
    import torch
    torch.backends.cudnn.benchmark = False
    out = {}
    for spec in specs:
        try:
            fn = build_call(torch, spec, fill="normal", seed=args.seed, sigma=args.sigma)
            run, method, graph = capture(torch, fn, 5)
            per = 5
            kernels = profile_kernels(torch, run, executions_per_run=per, runs=2)
            if not [k for k in kernels if not k["name"].lower().startswith(("memset", "memcpy"))]:
                # The profiler saw no kernel inside the replays: eager calls instead.
                kernels, method = profile_kernels(torch, fn, executions_per_run=1, runs=5), "eager"
            # A kernel launched once a replay, not once a call (the replay's own prologue, e.g.
            # PyTorch's RNG-offset fill: pytorch/pytorch#143572), is not part of the problem.
            per_replay = [k for k in kernels if k["launches"] < 0.5]
            kernels = [k for k in kernels if k["launches"] >= 0.5]
            out[spec["name"]] = {"method": method, "kernels": kernels, "per_replay": per_replay}
            del fn, run, graph
        except Exception as e:  # a graph the profiler cannot take is a note
            out[spec["name"]] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"}
        torch.cuda.empty_cache()
        # Written after every graph: a process stopped at the deadline leaves what it had.
        with open(args.profile_out + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
        os.replace(args.profile_out + ".tmp", args.profile_out)
    return 0


def torch_versions(torch):
    v = {"torch": torch.__version__, "cuda": torch.version.cuda,
         "cudnn": torch.backends.cudnn.version(), "device": torch.cuda.get_device_name()}
    try:
        from importlib import metadata
        for pkg in ("nvidia-cublas", "nvidia-cublas-cu13", "nvidia-cublas-cu12", "nvidia-cudnn-cu13", "nvidia-cudnn-cu12"):
            try:
                v[pkg] = metadata.version(pkg)
            except metadata.PackageNotFoundError:
                pass
    except ImportError:
        pass
    return v


# ---------------------------------------------------------------------------------------------
# Report (no torch: it reads the files a run wrote)

def us(ms):
    return f"{ms * 1000:.1f}" if ms else "-"


def torch_pass_file(regime, k):
    """PyTorch's figures of one regime: pass 1 in torch-REGIME.json (the ratio's basis, as before
    --torch-passes), later passes in torch-REGIME-passK.json."""
    return f"torch-{regime}.json" if k == 1 else f"torch-{regime}-pass{k}.json"


def torch_passes(out_dir, regime):
    """[{graph: result}] of every PyTorch pass of a regime found in out_dir, pass 1 first."""
    passes, k = [], 1
    while os.path.exists(os.path.join(out_dir, torch_pass_file(regime, k))):
        passes.append(load_json(os.path.join(out_dir, torch_pass_file(regime, k)), {}))
        k += 1
    return passes


def shortened(result):
    """The settings scale a PyTorch result was timed at when the deadline cut it (< 0.95), else None."""
    scale = (result or {}).get("settings_scale") or 1
    return scale if scale < 0.95 else None


def load_json(path, default=None):
    if not os.path.exists(path):
        return default
    with open(path) as f:
        return json.load(f)


DNNBENCH_KEYS = ("status", "passed", "engine_id", "plan_name", "basis", "median_ms", "p5_ms", "p95_ms", "n",
                 "ci95_ms", "kernel_sum_ms", "batch", "method", "regime", "pacing", "fill", "other_regime",
                 "warmup_ms", "warmup_steady", "converged", "clock_unstable", "sm_mhz", "power_w",
                 "temperature_c")


def build_report(out_dir, specs, state):
    """The comparison of every spec in every regime from out_dir's files."""
    profiles = load_json(os.path.join(out_dir, "torch-kernels.json"), {})
    report = {"meta": state.get("meta", {}), "regimes": {}}
    for regime in state.get("regimes", []):
        picks, dnn_meta = {}, []
        for lib in ("cublaslt", "cudnn"):
            path = os.path.join(out_dir, f"dnnbench-{regime}-{lib}.json")
            if os.path.exists(path):
                p, m = read_dnnbench(path)
                picks.update(p)
                dnn_meta.append(dict(m, library=lib))
        passes = torch_passes(out_dir, regime)
        torch_res = passes[0] if passes else {}
        rows = []
        for spec in specs:
            name = spec["name"]
            d = picks.get(name) or {"status": "not run"}
            t = torch_res.get(name) or {}
            prof = profiles.get(name) or {}
            dk = [(k["normalised"], (k.get("median_ms") or 0) * (k.get("launches") or 1)) for k in d.get("kernels") or []]
            tk = [(normalise_kernel_name(k["name"]), k["total_us"] / 1000) for k in prof.get("kernels") or []]
            same = compare_kernels(dk, tk)
            dm, tm = d.get("median_ms"), t.get("median_ms")
            ratio = dm / tm if dm and tm else None
            short = spec["family"] == "conv" and min(x for x in (dm, tm, 1.0) if x) < MIN_CONV_MS
            flops = d.get("analytical_flops") or spec["flops"]
            notes = []
            if d.get("status") not in ("success", None):
                notes.append(f"dnnbench {d.get('status')}: {(d.get('error') or '')[:80]}")
            elif d.get("passed") is False:
                notes.append("dnnbench row not passed")
            if d.get("fill") and d["fill"] != "normal":
                notes.append(f"dnnbench fill {d['fill']}")
            if d.get("regime") and d["regime"] != regime:
                notes.append(f"dnnbench row says regime {d['regime']}")
            if t.get("error"):
                notes.append(f"torch: {t['error'][:100]}")
            if prof.get("error"):
                notes.append(f"profiler: {prof['error'][:80]}")
            if short:
                notes.append("conv under 5 us: not in the distribution")
            if t.get("method", "").startswith("back-to-back"):
                notes.append(t["method"])
            if t.get("fresh_process"):
                notes.append("torch: fresh process")
            if shortened(t):
                notes.append(f"torch settings x{shortened(t):.2f} (running late)")
            later = [(p.get(name) or {}).get("median_ms") for p in passes[1:]]
            torch_aa = [x / tm if x and tm else None for x in later]
            for k, (x, aa) in enumerate(zip(later, torch_aa), start=2):
                if x:
                    scale = shortened(passes[k - 1].get(name))
                    notes.append(f"torch pass {k}: {us(x)} us" + (f" (x{aa:.3f})" if aa else "")
                                 + (f", settings x{scale:.2f} (running late)" if scale else ""))
            rows.append({
                "graph": name, "family": spec["family"], "library": LIBRARY[spec["family"]], "dtype": spec["dtype"],
                "desc": spec["desc"], "flops": flops,
                "dnnbench": {k: d.get(k) for k in DNNBENCH_KEYS},
                "dnnbench_kernels": [{"name": k["name"], "launches": k.get("launches"), "median_ms": k.get("median_ms")}
                                     for k in d.get("kernels") or []],
                "torch": t, "torch_kernels": prof.get("kernels") or [],
                "torch_kernel_sum_ms": sum(k["total_us"] for k in prof.get("kernels") or []) / 1000 or None,
                "ratio": ratio, "same_kernel": same,
                "torch_later_passes_ms": later, "torch_aa": torch_aa,
                "ratio_later_passes": [dm / x if dm and x else None for x in later],
                "in_distribution": bool(ratio and same == "yes" and not short),
                "dnnbench_tflops": flops / dm / 1e9 if dm and flops else None,
                "torch_tflops": flops / tm / 1e9 if tm and flops else None,
                "notes": notes})
        dist = {"same_kernel": distribution([r["ratio"] for r in rows if r["in_distribution"]], BAND),
                "all_rows": distribution([r["ratio"] for r in rows if r["ratio"]], BAND)}
        for fam in ("gemm", "conv", "attention"):
            dist["same_kernel_" + fam] = distribution(
                [r["ratio"] for r in rows if r["in_distribution"] and r["family"] == fam], BAND)
        for k in range(2, len(passes) + 1):
            # The same rows against PyTorch's pass k, and PyTorch's pass k against its pass 1: how
            # many rows a repeat of the reference alone puts outside the band.
            dist[f"same_kernel_pass{k}"] = distribution(
                [r["ratio_later_passes"][k - 2] for r in rows if r["in_distribution"] and r["ratio_later_passes"][k - 2]], BAND)
            dist[f"torch_aa_pass{k}"] = distribution(
                [r["torch_aa"][k - 2] for r in rows if r["in_distribution"] and r["torch_aa"][k - 2]], BAND)
        big = next((r for r in rows if r["graph"] == BIG_GEMM), None)
        report["regimes"][regime] = {
            "dnnbench_runs": state.get("dnnbench_runs", {}).get(regime, []), "dnnbench_metadata": dnn_meta,
            "rows": rows, "distribution": dist, "torch_passes_later": len(passes) - 1 if passes else 0,
            "torch_rows_shortened": sum(1 for p in passes for t in p.values() if shortened(t)),
            "big_gemm": None if big is None else {"graph": BIG_GEMM, "dnnbench_tflops": big["dnnbench_tflops"],
                                                  "torch_tflops": big["torch_tflops"], "ratio": big["ratio"],
                                                  "same_kernel": big["same_kernel"]}}
    return report


def pair(a, b, sep):
    return sep.join(f"{x:.0f}" if x else "-" for x in (a, b)) if a or b else "-"


def tflops(x):
    return f"{x:.0f}" if x else "-"


def short_name(name, width=44):
    return name if len(name) <= width else name[:width - 1] + "…"


def fmt_dist(d):
    if not d:
        return "no rows"
    return (f"n {d['n']}: min {d['min']:.3f} p5 {d['p5']:.3f} median {d['median']:.3f} p95 {d['p95']:.3f} "
            f"max {d['max']:.3f} geomean {d['geomean']:.3f}, within ±{d['band'] * 100:.0f}%: "
            f"{d['within'] * 100:.0f}% ({round(d['within'] * d['n'])} of {d['n']})")


def main_kernel(kernels, key_name, key_time, width=60):
    """The normalised name of the longest kernel of a list (memsets and copies aside)."""
    ks = [k for k in kernels if not normalise_kernel_name(k[key_name]).startswith("[")]
    if not ks:
        return "-"
    k = max(ks, key=lambda k: (k.get(key_time) or 0) * (k.get("launches") or 1))
    name = normalise_kernel_name(k[key_name])
    return name if len(name) <= width else name[:width - 1] + "…"


def versions_line(report):
    """The libraries on both sides, so a kernel difference can be read against a version one."""
    dnn = {}
    for rr in report["regimes"].values():
        for m in rr.get("dnnbench_metadata") or []:
            for name, info in (m.get("providers") or {}).items():
                if name in ("cudnn", "cublaslt") and isinstance(info, dict):
                    dnn[name] = info.get("version")
    tv = report.get("meta", {}).get("torch_versions") or {}
    return ("versions: dnnbench " + (", ".join(f"{k} {v}" for k, v in sorted(dnn.items())) or "-")
            + "; PyTorch " + (", ".join(f"{k} {v}" for k, v in tv.items()) or "-"))


def print_report(report, out=sys.stdout):
    def p(line=""):
        print(line, file=out)
    p(versions_line(report))
    for regime, rr in report["regimes"].items():
        p(f"== regime {regime}: dnnbench top pick vs PyTorch's call (GPU time per call, µs; ratio = dnnbench / PyTorch)")
        head = (f"{'graph':<44} {'lib':<8} {'dnnbench':>9} {'PyTorch':>9} {'ratio':>6} {'same':>4} "
                f"{'MHz d/t':>9} {'W d/t':>9} {'°C d/t':>7}  notes")
        p(head)
        p("-" * len(head))
        for r in rr["rows"]:
            d, t = r["dnnbench"], r["torch"]
            mhz, w = pair(d.get("sm_mhz"), t.get("sm_mhz"), "/"), pair(d.get("power_w"), t.get("power_w"), "/")
            deg = pair(d.get("temperature_c"), t.get("temperature_c"), "/")
            ratio = f"{r['ratio']:.3f}" if r["ratio"] else "-"
            p(f"{short_name(r['graph']):<44} {r['library']:<8} {us(d['median_ms']):>9} {us(t.get('median_ms')):>9} "
              f"{ratio:>6} {r['same_kernel'] or '-':>4} {mhz:>9} {w:>9} {deg:>7}  {'; '.join(r['notes'])}")
        for run_ in rr.get("dnnbench_runs") or []:
            if run_["rc"] not in (0, 3):  # 3: a row failed validation, its time still stands
                p(f"  dnnbench {run_['library']} exit {run_['rc']} after {run_['seconds']} s "
                  f"(143 / -15: stopped at its time share; see dnnbench-{regime}-{run_['library']}.log)")
        dist = rr["distribution"]
        p(f"ratio, same-kernel rows ({regime}): {fmt_dist(dist['same_kernel'])}")
        for fam in ("gemm", "conv", "attention"):
            if dist.get("same_kernel_" + fam):
                p(f"  {fam}: {fmt_dist(dist['same_kernel_' + fam])}")
        p(f"ratio, every row with both figures ({regime}): {fmt_dist(dist['all_rows'])}")
        if rr.get("torch_rows_shortened"):
            p(f"  PyTorch timed {rr['torch_rows_shortened']} rows (all passes) with shortened warm-ups and samples (the deadline "
              f"was near: --deadline-s too short for the set): their figures are less steady")
        for k in range(2, 2 + (rr.get("torch_passes_later") or 0)):
            p(f"ratio against PyTorch's pass {k} (same-kernel rows): {fmt_dist(dist.get(f'same_kernel_pass{k}'))}")
            p(f"PyTorch A/A, pass {k} / pass 1 (same rows): {fmt_dist(dist.get(f'torch_aa_pass{k}'))}")
        differ = [r for r in rr["rows"] if r["same_kernel"] in ("no", "main")]
        for r in differ:
            p(f"  kernels differ ({r['same_kernel']}) {r['graph']}: dnnbench "
              f"{main_kernel(r['dnnbench_kernels'], 'name', 'median_ms', 90)} | PyTorch "
              f"{main_kernel(r['torch_kernels'], 'name', 'mean_us', 90)}")
        b = rr.get("big_gemm")
        if b:
            p(f"8192x8192x8192 bf16 GEMM, {regime}: dnnbench {tflops(b['dnnbench_tflops'])} TFLOP/s, "
              f"PyTorch {tflops(b['torch_tflops'])} TFLOP/s (same kernel: {b['same_kernel'] or '-'})")
        p()
    p("(same: yes = the same compute kernels on both sides, memsets and copies aside; main = the same longest "
      "kernel, other kernels differ; no = another kernel. MHz/W/°C: mean SM clock, board power and GPU "
      "temperature while timed, dnnbench/PyTorch)")


def write_markdown(report, path):
    lines = ["# dnnbench vs PyTorch in matched conditions", "", versions_line(report), ""]
    meta = report.get("meta", {})
    if meta:
        lines.append("Run: " + ", ".join(f"{k} `{v}`" for k, v in meta.items() if not isinstance(v, (dict, list))))
        if meta.get("torch_versions"):
            lines.append("PyTorch: " + ", ".join(f"{k} {v}" for k, v in meta["torch_versions"].items()))
        lines.append("")
    for regime, rr in report["regimes"].items():
        lines += [f"## Regime `{regime}`", "",
                  "GPU time per call in µs (dnnbench: the top pick's event median; PyTorch: CUDA-graph replay, "
                  "events); ratio = dnnbench / PyTorch.", "",
                  "| graph | library | dnnbench | PyTorch | ratio | same kernel | SM MHz d / t | W d / t | °C d / t | "
                  "dnnbench kernel | PyTorch kernel | notes |",
                  "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for r in rr["rows"]:
            d, t = r["dnnbench"], r["torch"]
            mhz, w = pair(d.get("sm_mhz"), t.get("sm_mhz"), " / "), pair(d.get("power_w"), t.get("power_w"), " / ")
            deg = pair(d.get("temperature_c"), t.get("temperature_c"), " / ")
            ratio = f"{r['ratio']:.3f}" if r["ratio"] else "-"
            cells = [r["graph"], r["library"], us(d["median_ms"]), us(t.get("median_ms")), ratio,
                     r["same_kernel"] or "-", mhz, w, deg,
                     f"`{main_kernel(r['dnnbench_kernels'], 'name', 'median_ms', 140)}`",
                     f"`{main_kernel(r['torch_kernels'], 'name', 'mean_us', 140)}`",
                     "; ".join(r["notes"]).replace("|", "/")]
            lines.append("| " + " | ".join(cells) + " |")
        dist = rr["distribution"]
        lines += ["", f"- Same-kernel rows: {fmt_dist(dist['same_kernel'])}"]
        for fam in ("gemm", "conv", "attention"):
            if dist.get("same_kernel_" + fam):
                lines.append(f"  - {fam}: {fmt_dist(dist['same_kernel_' + fam])}")
        lines.append(f"- Every row with both figures: {fmt_dist(dist['all_rows'])}")
        if rr.get("torch_rows_shortened"):
            lines.append(f"- PyTorch timed {rr['torch_rows_shortened']} rows with shortened warm-ups and samples "
                         "(running late): their figures are less steady")
        for k in range(2, 2 + (rr.get("torch_passes_later") or 0)):
            lines.append(f"- Against PyTorch's pass {k} (same-kernel rows): {fmt_dist(dist.get(f'same_kernel_pass{k}'))}")
            lines.append(f"- PyTorch A/A, pass {k} / pass 1 (same rows): {fmt_dist(dist.get(f'torch_aa_pass{k}'))}")
        b = rr.get("big_gemm")
        if b:
            lines.append(f"- 8192×8192×8192 bf16 GEMM: dnnbench {tflops(b['dnnbench_tflops'])} TFLOP/s, "
                         f"PyTorch {tflops(b['torch_tflops'])} TFLOP/s (same kernel: {b['same_kernel'] or '-'})")
        lines.append("")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def finish(args, specs, state, run_dir=None):
    """The report from run_dir's files (default --out), written to --out."""
    report = build_report(run_dir or args.out, specs, state)
    with open(os.path.join(args.out, "matched-conditions.json"), "w") as f:
        json.dump(report, f, indent=1)
    write_markdown(report, os.path.join(args.out, "matched-conditions.md"))
    print_report(report)
    print(f"wrote {os.path.join(args.out, 'matched-conditions.json')} and matched-conditions.md")
    return report


# ---------------------------------------------------------------------------------------------
# The run

def run(args):
    specs, skipped = select(args)
    for p, why in skipped:
        print(f"left out {p}: {why}")
    if not specs:
        print("no graphs selected")
        return 1
    os.makedirs(args.out, exist_ok=True)
    flags = dnnbench_flags(args.dnnbench)
    t_start = time.time()
    import torch
    clocks = Clocks()
    versions = torch_versions(torch)
    state = {"meta": {"dnnbench": args.dnnbench, "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                      "graphs": len(specs), "dnnbench_has_regime": flags[0], "dnnbench_has_fill_normal": flags[1],
                      "nvml_clocks": clocks.nv is not None, "command_line": " ".join(sys.argv),
                      "settings": {k: getattr(args, k) for k in ("warm_min_s", "warm_max_s", "paced_warm_min_s",
                                                                    "paced_warm_max_s", "measure_s", "paced_measure_s", "min_samples",
                                                                    "max_samples", "global_warm_s", "seed",
                                                                    "sigma")},
                      "torch_versions": versions},
             "regimes": [], "dnnbench_runs": {}}
    counts = ", ".join("%s %d" % (f, sum(1 for s in specs if s["family"] == f)) for f in ("gemm", "conv", "attention"))
    print(f"matched conditions: {len(specs)} graphs ({counts}), "
          f"regimes {args.regimes}; PyTorch {versions['torch']} cuDNN {versions['cudnn']} on {versions['device']}; "
          f"NVML clocks {'on' if clocks.nv is not None else 'off (no pynvml)'}", flush=True)
    if not flags[0] or not flags[1]:
        print(f"WARNING: {args.dnnbench} lacks " + " and ".join(
            x for x, has in (("--regime (using --pacing off|always)", flags[0]),
                             ("--fill normal (using --fill full: fp16/bf16 on the 1/64 grid, NOT matched data)", flags[1]))
            if not has), flush=True)
    regimes = args.regimes.split(",")
    # Each regime gets a share of the deadline (paced more: its idle gaps double its wall time);
    # the profiler child and the report the last 30 s.
    budget = args.deadline_s - 30
    weights = [REGIME_WEIGHT[r] for r in regimes]
    for i, regime in enumerate(regimes):
        state["regimes"].append(regime)
        torch.cuda.empty_cache()  # dnnbench sizes its buffers from the free memory
        print(f"== {regime}: dnnbench (at {time.time() - t_start:.0f} s)", flush=True)
        deadline = t_start + budget * sum(weights[:i + 1]) / sum(weights)
        # PyTorch's share (TORCH_S_PER_GRAPH a graph) kept back; dnnbench has the rest.
        state["dnnbench_runs"][regime] = run_dnnbench(args, specs, regime, flags,
                                                      deadline - TORCH_S_PER_GRAPH * len(specs) * args.torch_passes)
        picks = {}
        for lib in ("cublaslt", "cudnn"):
            path = os.path.join(args.out, f"dnnbench-{regime}-{lib}.json")
            if os.path.exists(path):
                picks.update(read_dnnbench(path)[0])
        torch_start = time.time()
        for k in range(1, args.torch_passes + 1):
            # Later passes run the graphs in reverse order: a row's neighbours and its time into
            # the run differ, so the passes' spread is the reference's own repeatability.
            order = specs if k % 2 else specs[::-1]
            print(f"== {regime}: PyTorch{f' pass {k}' if args.torch_passes > 1 else ''} "
                  f"(at {time.time() - t_start:.0f} s)", flush=True)
            res = time_torch(torch, order, regime, picks, args, clocks,
                             torch_start + (deadline - torch_start) * k / args.torch_passes)
            with open(os.path.join(args.out, torch_pass_file(regime, k)), "w") as f:
                json.dump(res, f, indent=1)
            with open(os.path.join(args.out, "state.json"), "w") as f:
                json.dump({"state": state, "graphs": [s["path"] for s in specs]}, f, indent=1)
            print(f"  torch {regime}: {sum(1 for r in res.values() if 'median_ms' in r)} of {len(res)} timed "
                  f"(at {time.time() - t_start:.0f} s)", flush=True)
    if not args.no_profile:
        print(f"== kernels of PyTorch's calls (torch.profiler, separate process; at {time.time() - t_start:.0f} s)", flush=True)
        cmd = [sys.executable, os.path.abspath(__file__), "--profile-kernels", "--profile-out",
               os.path.join(args.out, "torch-kernels.json"), "--seed", str(args.seed), "--sigma", str(args.sigma), "--graphs"] + [s["path"] for s in specs]
        left = max(20, t_start + args.deadline_s - time.time())
        try:
            subprocess.run(cmd, cwd=ROOT, timeout=left)
        except subprocess.TimeoutExpired:
            print("  profiler process ran past the deadline: kernel columns partial or empty")
    state["meta"]["elapsed_s"] = round(time.time() - t_start, 1)
    with open(os.path.join(args.out, "state.json"), "w") as f:
        json.dump({"state": state, "graphs": [s["path"] for s in specs]}, f, indent=1)
    finish(args, specs, state)
    print(f"matched conditions: {time.time() - t_start:.0f} s")
    return 0


def report_only(args):
    saved = load_json(os.path.join(args.report_only, "state.json"))
    if saved is None:
        print(f"no state.json in {args.report_only}")
        return 1
    # --out: the report elsewhere (the run's folder stays as it came back, e.g. a test's fixture).
    args.out = args.out or args.report_only
    os.makedirs(args.out, exist_ok=True)
    args.graphs = saved["graphs"]
    args.subset = args.only = None
    args.quick = False
    specs, _ = select(args)
    finish(args, specs, saved["state"], run_dir=args.report_only)
    return 0


# ---------------------------------------------------------------------------------------------
# Self-test (no torch, no GPU)

def set_checks(check, specs, fams):
    """The default set is what the issue names."""
    check(any(s["name"] == BIG_GEMM for s in specs), "the 8192^3 bf16 GEMM is in the set")
    big = next(s for s in specs if s["name"] == BIG_GEMM)
    check(big["flops"] == 2 * 8192 ** 3 and big["dtype"] == "bfloat16", "8192^3: 2*8192^3 flops, bfloat16")
    check(len(fams["gemm"]) == len(glob.glob(os.path.join(ROOT, "graphs/perf/gemm/*.json"))) + 1,
          f"every GEMM of graphs/perf/gemm plus the 8192^3 ({len(fams['gemm'])})")
    check(all(s["channels_last"] and s["direction"] == "fwd" and s["dtype"] == "half" for s in fams["conv"])
          and len(fams["conv"]) == 23, f"23 fp16 forward NHWC convolutions ({len(fams['conv'])})")
    check(all(s["kind"] == "sdpa_fwd" for s in fams["attention"]) and len(fams["attention"]) == 8,
          f"8 attention forward graphs ({len(fams['attention'])})")
    s2 = next(s for s in fams["conv"] if s["name"] == "rn50_res3_3x3_128_128_s2_fwd_n32_nhwc_fp16")
    check(s2["stride"] == [2, 2] and s2["padding"] == [1, 1] and s2["groups"] == 1, "conv settings: " + s2["desc"])
    gqa = next(s for s in fams["attention"] if "gqa" in s["name"])
    check(gqa["gqa"] and gqa["causal"] and abs(gqa["scale"] - 128 ** -0.5) < 1e-12, "attention settings: " + gqa["desc"])


def self_test(args):
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    specs, skipped = select(args)
    fams = {f: [s for s in specs if s["family"] == f] for f in ("gemm", "conv", "attention")}
    check(not skipped, f"every graph of the set parses into a problem ({len(specs)}; left out: {skipped})")
    if not (args.graphs or args.subset or args.quick or args.only or args.conv_directions != "fwd"):
        set_checks(check, specs, fams)
    # Kernel names: the profiler's demangled form and a mangled CUPTI name compare equal.
    mangled = "_ZN7cutlass6KernelIiEEvT_"  # void cutlass::Kernel<int>(int)
    check(normalise_kernel_name(mangled) == normalise_kernel_name("void cutlass::Kernel<int>(int)") == "cutlass::Kernel<int>",
          f"mangled and demangled names normalise alike ({normalise_kernel_name(mangled)!r})")
    check(normalise_kernel_name("nvjet_sm90_tst_320x128_64x3_2x1_v_bz_coopA_NNT") == "nvjet_sm90_tst_320x128_64x3_2x1_v_bz_coopA_NNT",
          "a C kernel name stays as it is")
    check(normalise_kernel_name("[memset 4 bytes]") == normalise_kernel_name("Memset (Device)") == "[memset]",
          "memsets of both tools normalise alike")
    check(compare_kernels([("k", 1.0), ("[memset]", 0.001)], [("k", 1.0)]) == "yes", "a memset aside, same kernels: yes")
    check(compare_kernels([("k", 1.0), ("r", 0.1)], [("k", 1.0)]) == "main", "same longest kernel, another helper: main")
    check(compare_kernels([("k", 1.0)], [("j", 1.0)]) == "no", "another kernel: no")
    c = clock_summary([(1500.0, 690.0, 60.0), None, (1510.0, 692.0, 62.0)])
    check(c["clock_readings"] == 2 and c["sm_mhz"] == 1505 and c["temperature_c"] == 61,
          "clock summary: mean clock, power and temperature of the readings taken")
    d = distribution([0.98, 1.0, 1.02, 1.05, 0.9])
    check(d["n"] == 5 and abs(d["median"] - 1.0) < 1e-12 and abs(d["within"] - 0.6) < 1e-12 and d["min"] == 0.9,
          "distribution: median, share within ±3%")
    if args.dnnbench:
        flags = dnnbench_flags(args.dnnbench)
        print(f"     {args.dnnbench}: --regime {'yes' if flags[0] else 'NO'}, --fill normal {'yes' if flags[1] else 'NO'}")
        for regime in REGIMES:
            print("     would run: " + " ".join(dnnbench_command(args.dnnbench, ["G..."], "cublaslt", regime,
                                                                     f"OUT/dnnbench-{regime}-cublaslt.json", flags, [])))
    # The report from dnnbench results made on this machine, with synthetic PyTorch figures
    # (dnnbench's median / 1.01, its kernels under the profiler's demangled names), to exercise the code.
    if args.results:
        out = args.out or tempfile.mkdtemp(prefix="matched-conditions-self-test-")
        os.makedirs(out, exist_ok=True)
        picks = {}
        for path in args.results:
            picks.update(read_dnnbench(path)[0])
        check(bool(picks), f"read {len(picks)} graphs from {', '.join(args.results)}")
        specs_in = [s for s in specs if s["name"] in picks] or specs
        state = {"meta": {"self_test": True}, "regimes": list(REGIMES), "dnnbench_runs": {}}
        synthetic_kernels = {}
        for regime in REGIMES:
            torch_res = {}
            for s in specs_in:
                pk = picks.get(s["name"]) or {}
                if pk.get("median_ms"):
                    torch_res[s["name"]] = {"median_ms": pk["median_ms"] / 1.01, "n": 10, "calls": pk.get("batch") or 1,
                                            "method": "synthetic", **clock_summary([(1500.0, 690.0, 60.0),
                                                                                    (1510.0, 692.0, 62.0)])}
                synthetic_kernels[s["name"]] = {"method": "synthetic", "kernels": [
                    {"name": demangle(k["name"]), "launches": 1, "mean_us": (k.get("median_ms") or 0) * 1000,
                     "total_us": (k.get("median_ms") or 0) * 1000} for k in pk.get("kernels") or []]}
            with open(os.path.join(out, torch_pass_file(regime, 1)), "w") as f:
                json.dump(torch_res, f)
            # A second PyTorch pass, 2% slower on every other row: the A/A lines count them.
            second = {n: dict(r, median_ms=r["median_ms"] * (1.02 if i % 2 else 1.0), settings_scale=0.5 if i == 0 else 1.0)
                      for i, (n, r) in enumerate(sorted(torch_res.items()))}
            with open(os.path.join(out, torch_pass_file(regime, 2)), "w") as f:
                json.dump(second, f)
            for path in args.results:  # the same results stand for both regimes
                lib = "cublaslt" if "cublaslt" in os.path.basename(path) else "cudnn"
                with open(path) as src, open(os.path.join(out, f"dnnbench-{regime}-{lib}.json"), "w") as dst:
                    dst.write(src.read())
        with open(os.path.join(out, "torch-kernels.json"), "w") as f:
            json.dump(synthetic_kernels, f)
        args.out = out
        report = finish(args, specs_in, state)
        rows = report["regimes"]["sustained"]["rows"]
        timed = [r for r in rows if r["ratio"]]
        check(bool(timed) and all(abs(r["ratio"] - 1.01) < 1e-9 for r in timed),
              f"report: {len(timed)} rows with ratio 1.01 (synthetic)")
        check(os.path.exists(os.path.join(out, "matched-conditions.md")), f"report written to {out}")
        aa = report["regimes"]["sustained"]["distribution"].get("torch_aa_pass2")
        in_dist = [r for r in rows if r["in_distribution"]]
        slower = sum(1 for r in in_dist if r["torch_aa"][0] and r["torch_aa"][0] > 1.01)
        check(bool(aa) and aa["n"] == len(in_dist) and abs(aa["max"] - (1.02 if slower else 1.0)) < 1e-9
              and all(abs(r["ratio_later_passes"][0] * r["torch_aa"][0] - r["ratio"]) < 1e-9 for r in in_dist),
              f"report: PyTorch's pass 2 against pass 1 over {len(in_dist)} rows ({slower} 2% slower)")
        check(report["regimes"]["sustained"]["torch_rows_shortened"] == 1
              and any(n.endswith("settings x0.50 (running late)") for r in rows for n in r["notes"]),
              "report: a PyTorch row timed with shortened settings is counted and noted")
        with_temps = [r for r in timed if r["dnnbench"].get("temperature_c") is not None]
        with open(os.path.join(out, "matched-conditions.md")) as f:
            md = f.read()
        check(all(f"{r['dnnbench']['temperature_c']:.0f} / 61" in md for r in with_temps),
              f"report: temperatures on both sides ({len(with_temps)} dnnbench rows with NVML readings)")
    print(f"self-test: {len(failures)} failure(s)")
    return 1 if failures else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dnnbench", help="the dnnbench binary (GPU build; the cuDNN 9.19 build matches PyTorch's cuDNN)")
    ap.add_argument("--out", help="output folder (run: required)")
    ap.add_argument("--regimes", default="sustained,paced", help="comma-separated, in this order")
    ap.add_argument("--graphs", nargs="+", help="graph files instead of the default set")
    ap.add_argument("--subset", help="families to run: gemm,conv,attention")
    ap.add_argument("--only", help="regular expression on graph names")
    ap.add_argument("--quick", action="store_true", help=f"only {len(QUICK)} graphs: " + ", ".join(QUICK))
    ap.add_argument("--conv-directions", choices=["fwd", "all"], default="fwd",
                    help="ResNet-50 fp16 convolutions: forward only (default) or backward data and weights too")
    ap.add_argument("--dnnbench-arg", action="append", default=[],
                    help="one more argument for every dnnbench run (repeat; e.g. --dnnbench-arg=--max-time-ms=500)")
    ap.add_argument("--warm-min-s", type=float, default=0.4, help="sustained: per-graph warm-up at least (s)")
    ap.add_argument("--warm-max-s", type=float, default=1.5, help="sustained: per-graph warm-up at most (s)")
    ap.add_argument("--paced-warm-min-s", type=float, default=0.1, help="paced: warm-up at least (s of wall time)")
    ap.add_argument("--paced-warm-max-s", type=float, default=0.6, help="paced: warm-up at most (s of wall time)")
    ap.add_argument("--global-warm-s", type=float, default=2.0,
                    help="sustained: continuous replay of the largest GEMM before the first graph (s)")
    # bench/probes/power_settle_probe.py: at the power cap the H200's clock cycles about once
    # a second, and a 0.3 s median read up to 7% off the cycle's; 1 s stays within 2%, as
    # dnnbench's --capped-min-ms.
    ap.add_argument("--measure-s", type=float, default=1.0,
                    help="sustained: GPU time of the timed samples per graph (s)")
    ap.add_argument("--paced-measure-s", type=float, default=0.3,
                    help="paced: GPU time of the timed samples per graph (s)")
    ap.add_argument("--min-samples", type=int, default=10)
    ap.add_argument("--max-samples", type=int, default=400)
    ap.add_argument("--seed", type=int, default=42)
    # dnnbench's default --fill normal draws N(0, 0.5^2) (src/tensor/fill.cpp): the same data here.
    ap.add_argument("--sigma", type=float, default=0.5)
    ap.add_argument("--deadline-s", type=float, default=360,
                    help="wall-time budget: graphs not reached by then are reported as not timed")
    ap.add_argument("--no-profile", action="store_true", help="skip torch.profiler (no kernel names for PyTorch)")
    ap.add_argument("--self-test", action="store_true", help="no torch: parse the set, check the helpers, and with "
                    "--results make a report from dnnbench results of this machine")
    ap.add_argument("--results", nargs="+", help="--self-test: dnnbench results JSON files (name them *cublaslt*.json "
                    "or *cudnn*.json)")
    ap.add_argument("--report-only", metavar="DIR", help="re-make the report from the files of an earlier run "
                    "(into DIR, or --out)")
    ap.add_argument("--torch-fresh", metavar="REGEX",
                    help="time the PyTorch calls of graphs whose names match in a new process each (a long "
                    "process's history can slow split-K calls; ~5 s a graph more), e.g. '^decode_'")
    ap.add_argument("--torch-passes", type=int, default=1, metavar="N",
                    help="time PyTorch N times per regime (later passes in reverse order); the report adds "
                    "each row against every pass and PyTorch's own A/A: how many rows the reference alone "
                    "puts outside the band (~2 min a pass sustained)")
    ap.add_argument("--time-one", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--time-out", help=argparse.SUPPRESS)
    ap.add_argument("--time-batch", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--profile-kernels", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--profile-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.self_test:
        return self_test(args)
    if args.report_only:
        return report_only(args)
    if args.profile_kernels:
        specs, _ = select(args)
        return profile_all(args, specs)
    if args.time_one:
        specs, _ = select(args)
        return time_one(args, specs)
    if not args.dnnbench or not args.out:
        ap.error("--dnnbench and --out are required (or --self-test / --report-only)")
    if args.torch_fresh:
        try:
            re.compile(args.torch_fresh)
        except re.error as e:
            ap.error(f"--torch-fresh {args.torch_fresh!r}: not a regular expression: {e}")
    if args.torch_passes < 1:
        ap.error(f"--torch-passes {args.torch_passes}: at least 1")
    for r in args.regimes.split(","):
        if r not in REGIMES:
            ap.error(f"regime {r}: sustained or paced")
    args.dnnbench = os.path.abspath(args.dnnbench)
    args.out = os.path.abspath(args.out)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
