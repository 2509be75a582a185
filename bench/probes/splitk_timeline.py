#!/usr/bin/env python3
"""Where a split-K GEMM's call time goes in PyTorch's CUDA-graph replay: the device timeline of
each call (main kernel, gap, split-K reduction, gap to the next call, any memset or copy node),
from torch.profiler's trace (CUPTI records a graph's kernel nodes with device start and end).

dnnbench's side of the same question is in its row: the event-timed per-call figure against
`kernel_sum_stats` (the CUPTI kernel sum); where they agree, dnnbench's replay leaves no gap
between a call's kernels or between calls. PyTorch's per-call figure here is timed the same way
(events around a replay of CALLS calls) and set against the same kernel sum, so the difference
is split into the gaps it is made of.

    python3 bench/probes/splitk_timeline.py GRAPH.json... [--calls 1000] [--replays 50] [--blas cublaslt] [--json OUT]
"""
import argparse
import json
import os
import statistics
import sys
import tempfile

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [BENCH, os.path.join(BENCH, "lib")]  # matched_conditions, torch_problems
import torch_problems as tp  # noqa: E402
from matched_conditions import capture  # noqa: E402


def replay_ms_per_call(torch, run, calls, replays):
    """Median over `replays` of (event time of one replay) / calls: what both tools report."""
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    per = []
    for _ in range(replays):
        s.record()
        run()
        e.record()
        e.synchronize()
        per.append(s.elapsed_time(e) / calls)
    return statistics.median(per)


def device_events(torch, run, replays):
    """The device events (kernels, memsets, copies) of `replays` replays, by start time."""
    from torch.profiler import ProfilerActivity, profile
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        s.record()
        for _ in range(replays):
            run()
        e.record()
        torch.cuda.synchronize()
    # The same replays' event time: set against the timeline, whether tracing changed the run.
    device_events.traced_event_ms = s.elapsed_time(e)
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        trace = json.load(f)
    os.unlink(path)
    events = [ev for ev in trace.get("traceEvents", [])
              if ev.get("ph") == "X" and ev.get("cat") in ("kernel", "gpu_memset", "gpu_memcpy")]
    events.sort(key=lambda ev: float(ev["ts"]))
    return [{"name": ev["name"], "cat": ev["cat"], "start_us": float(ev["ts"]),
             "end_us": float(ev["ts"]) + float(ev["dur"])} for ev in events]


def decompose(events):
    """Per call (a call starts at each launch of the first event's name): its events' durations
    and the gaps between them, medians over the calls, and the per-call span start to next start."""
    if not events:
        return {}
    first = events[0]["name"]
    calls, current = [], []
    for ev in events:
        if ev["name"] == first and current:
            calls.append(current)
            current = []
        current.append(ev)
    calls.append(current)
    shape = [ev["name"] for ev in calls[0]]
    calls = [c for c in calls if [ev["name"] for ev in c] == shape]
    parts = {}
    for i, ev_name in enumerate(shape):
        parts[f"{i}:{tp.normalise_kernel_name(ev_name)[:70]}"] = statistics.median(
            c[i]["end_us"] - c[i]["start_us"] for c in calls)
        if i + 1 < len(shape):
            parts[f"gap {i}->{i + 1}"] = statistics.median(c[i + 1]["start_us"] - c[i]["end_us"] for c in calls)
    nexts = [calls[k + 1][0]["start_us"] - calls[k][-1]["end_us"] for k in range(len(calls) - 1)
             if calls[k + 1][0]["start_us"] - calls[k][-1]["end_us"] < 50]  # a replay's boundary is not a call's
    parts["gap to the next call"] = statistics.median(nexts) if nexts else None
    kernel_sum = sum(v for k, v in parts.items() if not k.startswith("gap"))
    # Medians hide a stall every few calls: the device timeline's own per-call figure (first start
    # to last end over the calls, replay boundaries left out) and the gaps' whole distribution.
    gaps = [b["start_us"] - a["end_us"] for a, b in zip(events, events[1:])]
    inner = [g for g in gaps if g < 50]
    busy = sum(ev["end_us"] - ev["start_us"] for ev in events)
    span = busy + sum(inner)
    return {"events_per_call": shape, "calls": len(calls), "median_us": parts, "kernel_sum_us": kernel_sum,
            "timeline_per_call_us": span / len(calls) if calls else None,
            "gaps_us": {"mean": statistics.mean(inner) if inner else None, "max": max(inner) if inner else None,
                        "over_1us": sum(g > 1 for g in inner), "replay_boundaries": len(gaps) - len(inner),
                        "count": len(inner)}}


def dump_dot(torch, fn, path, calls=4):
    """The CUDA graph of `calls` calls as Graphviz (node types, kernel launch attributes, edge
    types), to set beside dnnbench's (DNNBENCH_GRAPH_DOT): what lies between the kernels."""
    # keep_graph: PyTorch destroys the captured cudaGraph_t once instantiated, and debug_dump of
    # a graph it no longer has writes nothing (a first dump without it came back empty).
    try:
        graph = torch.cuda.CUDAGraph(keep_graph=True)
    except TypeError:
        graph = torch.cuda.CUDAGraph()
    graph.enable_debug_mode()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    graph.debug_dump(path)


def with_one_output(torch, fn):
    """The same matmul, writing into one output allocated once (its operands read from fn's closure)."""
    cells = dict(zip(fn.__code__.co_freevars, (c.cell_contents for c in fn.__closure__)))
    a, b = cells["a"], cells["b"]
    out = torch.matmul(a, b)
    return lambda: torch.matmul(a, b, out=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("graphs", nargs="+")
    ap.add_argument("--calls", type=int, default=1000)  # dnnbench's batch for these rows
    ap.add_argument("--replays", type=int, default=50)
    ap.add_argument("--json")
    # dnnbench's default --fill normal draws N(0, 0.5^2) (src/tensor/fill.cpp): the same here.
    ap.add_argument("--sigma", type=float, default=0.5)
    # torch.matmul goes through cuBLAS by default; cublaslt makes it call cuBLASLt, as dnnbench's
    # cublaslt provider does: the same kernels, launched by the other library's path.
    ap.add_argument("--blas", choices=("default", "cublas", "cublaslt"), default="default")
    # torch.matmul(a, b) allocates its output in every call, so a graph of CALLS calls writes
    # CALLS distinct outputs (the graph's private pool); dnnbench's batch writes one. --out writes
    # each call into one preallocated output (matmul's out=), as dnnbench does.
    ap.add_argument("--out", action="store_true", help="matmul into one preallocated output")
    ap.add_argument("--dot", help="folder: also write each graph's CUDA graph of 4 calls as Graphviz")
    args = ap.parse_args()
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    if args.blas != "default":
        torch.backends.cuda.preferred_blas_library(args.blas)
    out = {"blas": str(torch.backends.cuda.preferred_blas_library()), "one_output": args.out, "graphs": {}}
    def prepared(path):
        spec = tp.problem_spec(path)
        fn = tp.build_call(torch, spec, fill="normal", sigma=args.sigma)
        if args.out:
            fn = with_one_output(torch, fn)
        run, method, graph = capture(torch, fn, args.calls)
        for _ in range(20):
            run()
        torch.cuda.synchronize()
        return spec, fn, run, method, graph

    # Every graph's replay is timed before any profiling: once torch.profiler has enabled CUPTI,
    # later replays of dependent kernels in this process run slower (0.4-2.7 us a call on these
    # GEMMs, bench/RESULTS.md, "Split-K decode GEMMs"), and torch.profiler does not undo it. The
    # timelines of the graphs after the first are recorded with CUPTI already on: their gaps read
    # that state.
    timed = {}
    for path in args.graphs:
        spec, fn, run, method, graph = prepared(path)
        if args.dot:
            dump_dot(torch, fn, f"{args.dot}/torch-{args.blas}-{spec['name']}.dot")
        timed[path] = (method, 1e3 * replay_ms_per_call(torch, run, args.calls, args.replays))
        del fn, run, graph
        torch.cuda.empty_cache()
    for path in args.graphs:
        spec, fn, run, _, graph = prepared(path)
        method, per_call_us = timed[path]
        d = decompose(device_events(torch, run, 2))
        d.update({"method": method, "replay_per_call_us": per_call_us,
                  "traced_replay_per_call_us": 1e3 * device_events.traced_event_ms / (2 * args.calls)})
        if d.get("kernel_sum_us"):
            d["replay_minus_kernel_sum_us"] = per_call_us - d["kernel_sum_us"]
        out["graphs"][spec["name"]] = d
        print(f"{spec['name']}: replay {per_call_us:.2f} us/call ({method}), kernel sum {d.get('kernel_sum_us', 0):.2f}, "
              f"difference {d.get('replay_minus_kernel_sum_us', float('nan')):+.2f}")
        for k, v in d.get("median_us", {}).items():
            print(f"    {k:80s} {'-' if v is None else f'{v:.3f}'} us")
        if d.get("timeline_per_call_us"):
            g = d["gaps_us"]
            print(f"    device timeline per call {d['timeline_per_call_us']:.2f} us (events around the traced replays: "
                  f"{d['traced_replay_per_call_us']:.2f}); gaps: mean {g['mean']:.3f}, "
                  f"max {g['max']:.2f}, {g['over_1us']} of {g['count']} over 1 us")
        del fn, run, graph
        torch.cuda.empty_cache()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
