#!/usr/bin/env python3
"""dnnbench's cuDNN rows next to PyTorch's own timing of the same problems.

For every graph (hipDNN JSON with one convolution or matmul node) it builds the same problem in
PyTorch -- shapes, dtypes, strides (so the layout), padding, stride, dilation, groups -- times it
with torch.backends.cudnn.benchmark False and True, and prints it beside dnnbench's figures from
a results JSON:

  ootb   the first cuDNN engine's OOTB row (cuDNN's own top pick), GPU kernel median
  best   the fastest plan dnnbench measured for the graph: every passed row's median and every
         oracle winner's (paired re-timing) median

Timing here follows dnnbench's method: warm-up, then CUDA-graph replay of 20 calls between an
event pair (so launch gaps do not dominate short kernels), the median of --samples replays.

Attention graphs (SdpaAttributes / SdpaBackwardAttributes) are timed with
torch.nn.functional.scaled_dot_product_attention under sdpa_kernel(CUDNN_ATTENTION) and
sdpa_kernel(FLASH_ATTENTION) instead (backward: torch.autograd.grad of a kept forward), printed in
their own table with the ratios torch / dnnbench per graph.

With --repeat RUN2.json (the same suite run again) it reports the distribution of per-row ratios
of GPU kernel medians between the two runs, for rows whose kernels last more than 20 us: the
noise between two runs of the tool.
"""
import argparse
import json
import os
import statistics
import sys
import time

GRAPH_CALLS = 20  # calls per CUDA graph replay (issue 12: "CUDA-graph replay of 20 calls")
MIN_REPEAT_KERNEL_MS = 0.020

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# The graph -> PyTorch problem code is shared with gemm_compare.py and matched_conditions.py.
from torch_problems import (DTYPES, build_attention, build_problem, is_attention, load_graph,  # noqa: E402,F401
                            make_tensor, port, quantile, row_median, settings)


def compare_attention(torch, paths, ours, args):
    header = (f"{'attention graph':<62} {'ootb us':>9} {'best us':>9} {'cudnn us':>9} {'flash us':>9} "
              f"{'cudnn/ootb':>10} {'flash/ootb':>10}")
    print(header)
    print("-" * len(header))
    ratios = {"cudnn": [], "flash": []}
    for path in paths:
        name = load_graph(path)[0]["name"]
        ootb, _, best, _ = ours.get(name, (None, "not run", None, None))
        times, notes = {}, []
        for backend in ("cudnn", "flash"):
            try:
                # A failed capture of autograd's backward leaves PyTorch's RNG offsets broken for
                # every later call (seen with torch 2.11): backward is timed back to back.
                forward = load_graph(path)[2]["type"] == "SdpaAttributes"
                times[backend], method = time_ms(torch, build_attention(torch, path, backend), args.samples,
                                                 args.warmup, capture=forward)
                if not method.startswith("cuda-graph"):
                    notes.append(f"{backend}: {method}")
            except Exception as e:  # a backend that refuses the problem is a note, not a stop
                notes.append(f"{backend}: {type(e).__name__}: {str(e).splitlines()[0][:80] if str(e) else ''}")
        cells = []
        for backend in ("cudnn", "flash"):
            t = times.get(backend)
            r = t / ootb if t and ootb else None
            if r:
                ratios[backend].append(r)
            cells.append(f"{r:10.2f}" if r else f"{'-':>10}")
        print(f"{name:<62} {fmt(ootb)} {fmt(best)} {fmt(times.get('cudnn'))} {fmt(times.get('flash'))} "
              + " ".join(cells) + ("   " + "; ".join(notes) if notes else ""))
    for backend, values in ratios.items():
        if values:
            print(f"geomean torch {backend} / dnnbench cuDNN OOTB: {statistics.geometric_mean(values):.3f} "
                  f"over {len(values)} graphs (> 1: dnnbench's row is faster)")


def time_ms(torch, fn, samples, warmup, capture=True):
    """Median per-call time of `fn` by CUDA-graph replay: GRAPH_CALLS calls captured once, each
    sample one replay between an event pair (so PyTorch's per-call host cost, which is larger
    than dnnbench's, cannot leave the GPU idle between short kernels). Falls back to
    back-to-back calls when capture fails; the method is returned with the time."""
    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        for _ in range(warmup):  # also runs cudnn.benchmark's search before capture
            fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    method = f"cuda-graph({GRAPH_CALLS} calls)"
    try:
        if not capture:
            raise RuntimeError("capture not attempted")
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(GRAPH_CALLS):
                fn()
        run, per = graph.replay, GRAPH_CALLS
    except Exception as e:  # capture refused: time back-to-back calls
        method = f"back-to-back({GRAPH_CALLS} calls; " + (
            "no capture)" if not capture else f"capture failed: {type(e).__name__})")
        def run():
            for _ in range(GRAPH_CALLS):
                fn()
        per = GRAPH_CALLS
    for _ in range(3):
        run()
    torch.cuda.synchronize()
    times = []
    for _ in range(samples):
        start.record()
        run()
        stop.record()
        stop.synchronize()
        elapsed = start.elapsed_time(stop)
        times.append(elapsed / per)
        # Paced at 50% duty, as dnnbench paces a row that hits the power cap (--pacing
        # when-capped): 20 back-to-back calls of a 240 us GEMM hold the H200 at its 700 W cap and
        # read ~20% slow (bench/probes/duty_cycle_probe.py); a short kernel reads the same either way.
        time.sleep(elapsed / 1000)
    return statistics.median(times), method + ", paced 50%"


def dnnbench_figures(results_path):
    """graph name -> (ootb ms, ootb plan, best ms, best plan) from cudnn rows."""
    with open(results_path) as f:
        suite = json.load(f)
    out = {}
    for g in suite["graphs"]:
        rows = [r for r in g["results"] if r["provider"] == "cudnn"]
        if not rows:
            continue
        first = rows[0]
        ootb = row_median(first) if first.get("passed") else None
        best, best_plan = None, None
        for r in rows:
            if not r.get("passed"):
                continue
            candidates = [(row_median(r), r.get("plan_name"))]
            o = r.get("oracle") or {}
            if o.get("gpu_kernel_stats") and (o.get("correctness") or {}).get("passed"):
                candidates.append((o["gpu_kernel_stats"]["median_ms"], o.get("plan_name")))
            for ms, plan in candidates:
                if ms is not None and (best is None or ms < best):
                    best, best_plan = ms, plan
        out[g["graph_name"]] = (ootb, first.get("plan_name") if ootb else first.get("status"), best, best_plan)
    return out


def repeat_ratios(run1, run2):
    def medians(path):
        with open(path) as f:
            suite = json.load(f)
        return {(g["graph_name"], r["engine_id"]): row_median(r)
                for g in suite["graphs"] for r in g["results"]
                if r["provider"] == "cudnn" and r.get("status") == "success"}
    m1, m2 = medians(run1), medians(run2)
    ratios = []
    for key, a in m1.items():
        b = m2.get(key)
        if a and b and min(a, b) > MIN_REPEAT_KERNEL_MS:
            ratios.append(b / a)
    return ratios


def fmt(ms):
    return f"{ms * 1000:9.1f}" if ms else "        -"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("graphs", nargs="+", help="graph JSON files")
    ap.add_argument("--dnnbench", required=True, action="append",
                    help="dnnbench results JSON (run with --provider cudnn --oracle); repeat it for results "
                         "split over several runs")
    ap.add_argument("--repeat", help="results JSON of the same suite run again (repeat-run check)")
    ap.add_argument("--samples", type=int, default=100, help="timed batches per figure (>= 100)")
    ap.add_argument("--warmup", type=int, default=20)
    args = ap.parse_args()

    import torch
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name()}; CUDA-graph replays of {GRAPH_CALLS} calls, median of {args.samples}")
    ours = {}
    for results in args.dnnbench:
        ours.update(dnnbench_figures(results))
    header = (f"{'graph':<50} {'ootb us':>9} {'best us':>9} {'bm=F us':>9} {'bm=T us':>9} "
              f"{'F/ootb':>7} {'T/best':>7}")
    print(header)
    print("-" * len(header))
    ratio_f, ratio_t, methods = [], [], set()
    attention = [p for p in args.graphs if is_attention(p)]
    for path in [p for p in args.graphs if not is_attention(p)]:
        name = load_graph(path)[0]["name"]
        ootb, ootb_plan, best, best_plan = ours.get(name, (None, "not run", None, None))
        try:
            fn, _ = build_problem(torch, path)
            torch.backends.cudnn.benchmark = False
            t_false, method = time_ms(torch, fn, args.samples, args.warmup)
            torch.backends.cudnn.benchmark = True
            t_true, _ = time_ms(torch, fn, args.samples, args.warmup)
            methods.add(method)
        except Exception as e:  # one graph's failure must not stop the comparison
            print(f"{name:<50} torch failed: {e}")
            continue
        rf = t_false / ootb if ootb else None
        rt = t_true / best if best else None
        if rf:
            ratio_f.append(rf)
        if rt:
            ratio_t.append(rt)
        print(f"{name:<50} {fmt(ootb)} {fmt(best)} {fmt(t_false)} {fmt(t_true)} "
              f"{rf or float('nan'):7.2f} {rt or float('nan'):7.2f}")
    print(f"PyTorch timing methods: {sorted(methods)}")
    if attention:
        compare_attention(torch, attention, ours, args)
    def dist(name, values):
        v = sorted(values)
        print(f"{name}: n {len(v)}, min {v[0]:.3f} p10 {quantile(v, 0.1):.3f} median {quantile(v, 0.5):.3f} "
              f"p90 {quantile(v, 0.9):.3f} max {v[-1]:.3f}")
    if ratio_f:
        dist("dnnbench top pick / torch(benchmark=False)", [1 / r for r in ratio_f])
    if ratio_t:
        dist("dnnbench best plan / torch(benchmark=True)", [1 / r for r in ratio_t])
    if ratio_f:
        print(f"geomean torch(benchmark=False) / dnnbench OOTB: {statistics.geometric_mean(ratio_f):.3f} "
              f"over {len(ratio_f)} graphs")
    if ratio_t:
        print(f"geomean torch(benchmark=True) / dnnbench best:  {statistics.geometric_mean(ratio_t):.3f} "
              f"over {len(ratio_t)} graphs")
    print("(ratios > 1: dnnbench's plan is faster than PyTorch's)")
    if args.repeat:
        r = sorted(repeat_ratios(args.dnnbench[0], args.repeat))
        if r:
            print(f"repeat-run check: {len(r)} rows with kernels > {MIN_REPEAT_KERNEL_MS * 1000:.0f} us, "
                  f"run2/run1 median ratio min {r[0]:.4f} median {quantile(r, 0.5):.4f} "
                  f"p95 {quantile(r, 0.95):.4f} max {r[-1]:.4f}")
        else:
            print("repeat-run check: no comparable rows")
    return 0


if __name__ == "__main__":
    sys.exit(main())
