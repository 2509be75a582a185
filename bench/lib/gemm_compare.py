#!/usr/bin/env python3
"""cuDNN, cuBLASLt and PyTorch on the same GEMMs: one dnnbench results JSON plus an independent anchor.

From the results of ONE dnnbench run over providers cudnn, cublaslt and (when built) torch, it
prints per graph:

  cudnn best      the fastest passed cuDNN plan: every passed row's GPU kernel median and every
                  oracle winner's (paired re-timing)
  lt heur         cuBLASLt's own pick: the first cublaslt engine's heuristic (OOTB) row
  lt best         the fastest passed cuBLASLt plan: every row and every oracle winner
  torch rows      the torch provider's rows (fastest passed), when that provider ran
  anchor          torch.matmul timed here by CUDA-graph replay (bench/lib/torch_compare.py's time_ms:
                  20 calls per replay, median of --samples replays), the independent check

and the verdicts the issue asks for: lt best / anchor <= 1 + --slack on every graph (cuBLASLt's
best plan no slower than torch.matmul, both timed by CUDA-graph replay), and every cublaslt row
passed validation (skipped rows, with cuBLASLt's reason, are counted apart).

Usage: bench/lib/gemm_compare.py RESULTS.json GRAPH.json... [--samples N] [--no-anchor]
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torch_compare import build_problem, load_graph, row_median, time_ms  # noqa: E402


def best_of(rows):
    """(ms, plan) of the fastest passed row or oracle winner, or (None, None)."""
    best = (None, None)
    for r in rows:
        if not r.get("passed"):
            continue
        candidates = [(row_median(r), r.get("plan_name"))]
        o = r.get("oracle") or {}
        if o.get("gpu_kernel_stats") and (o.get("correctness") or {}).get("passed"):
            candidates.append((o["gpu_kernel_stats"]["median_ms"], o.get("plan_name")))
        for ms, plan in candidates:
            if ms is not None and (best[0] is None or ms < best[0]):
                best = (ms, plan)
    return best


def figures(results_path):
    with open(results_path) as f:
        suite = json.load(f)
    out = {}
    for g in suite["graphs"]:
        by = {}
        for r in g["results"]:
            by.setdefault(r["provider"], []).append(r)
        lt = by.get("cublaslt", [])
        first = lt[0] if lt else {}
        out[g["graph_name"]] = {
            "cudnn": best_of(by.get("cudnn", [])),
            "lt_heur": (row_median(first) if first.get("passed") else None, first.get("plan_name")),
            "lt_best": best_of(lt),
            "torch": best_of(by.get("torch", [])),
            "lt_status": [(r.get("engine_id"), r.get("status"), bool(r.get("passed")),
                           r.get("skip_reason") or r.get("error_message")) for r in lt],
            "lt_oracle": sum(1 for r in lt if r.get("oracle")),
            "lt_rows": [(r.get("engine_id"), r) for r in lt if r.get("passed")],
        }
    return out, suite


def anchor_kernels(torch, fn, calls=5):
    """The kernels one torch.matmul call launches, by torch.profiler (CUPTI): [(name, mean us)],
    so the table can say whether cuBLASLt's best plan runs the kernel cuBLAS picked for PyTorch."""
    from torch.profiler import ProfilerActivity, profile
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    out = []
    for e in prof.key_averages():
        if e.device_type.name == "CUDA" and e.count >= calls and "Memcpy" not in e.key:
            total = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
            out.append((e.key, total / e.count))
    return out


def us(ms):
    return f"{ms * 1000:8.1f}" if ms else "       -"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("results", help="dnnbench results JSON (--provider cudnn,cublaslt[,torch])")
    ap.add_argument("graphs", nargs="+", help="the graph files of that run")
    ap.add_argument("--samples", type=int, default=30, help="anchor: timed replays per graph")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--slack", type=float, default=0.02,
                    help="lt best / anchor above 1 + slack fails (replay-to-replay noise on the H200 is ~1%%)")
    ap.add_argument("--no-anchor", action="store_true", help="skip the PyTorch anchor (no torch here)")
    args = ap.parse_args()

    ours, suite = figures(args.results)
    torch = None
    if not args.no_anchor:
        try:
            import torch  # noqa: F811
            print(f"anchor: torch {torch.__version__} on {torch.cuda.get_device_name()}, torch.matmul by "
                  f"CUDA-graph replay, median of {args.samples}")
        except Exception as e:  # no torch: the dnnbench columns still print
            print(f"anchor: PyTorch unavailable ({e}); anchor column empty")
            torch = None
    providers = sorted({r["provider"] for g in suite["graphs"] for r in g["results"]})
    print(f"dnnbench providers in {args.results}: {', '.join(providers)}"
          + ("" if "torch" in providers else " (no torch provider in this build: its column is empty)"))
    head = (f"{'graph':<44} {'cudnn':>8} {'lt heur':>8} {'lt best':>8} {'torch':>8} {'anchor':>8} "
            f"{'best/anc':>8} {'cudnn/lt':>8}  cuBLASLt best plan")
    print(head)
    print("-" * len(head))
    slower, invalid, ratios, vs_cudnn, missing = [], [], [], [], []
    ran = {}
    for path in args.graphs:
        name = load_graph(path)[0]["name"]
        f = ours.get(name)
        if f is None:
            print(f"{name:<44} not in {args.results}")
            continue
        anchor = None
        if torch is not None:
            try:
                fn, _ = build_problem(torch, path)
                anchor, _ = time_ms(torch, fn, args.samples, args.warmup)
                ran[name] = anchor_kernels(torch, fn)
            except Exception as e:  # one graph's failure must not stop the table
                print(f"{name:<44} anchor failed: {e}")
        lt_best, lt_plan = f["lt_best"]
        ratio = lt_best / anchor if lt_best and anchor else None
        if ratio:
            ratios.append(ratio)
            if ratio > 1 + args.slack:
                slower.append((name, ratio))
        if not lt_best:
            missing.append(name)
        if lt_best and f["cudnn"][0]:
            vs_cudnn.append(f["cudnn"][0] / lt_best)
        for eng, status, passed, why in f["lt_status"]:
            if status != "skipped" and not passed:
                invalid.append((name, eng, status, why))
        print(f"{name:<44} {us(f['cudnn'][0])} {us(f['lt_heur'][0])} {us(lt_best)} {us(f['torch'][0])} {us(anchor)} "
              f"{ratio or float('nan'):8.3f} {(f['cudnn'][0] / lt_best) if lt_best and f['cudnn'][0] else float('nan'):8.3f}"
              f"  {lt_plan or '-'}")
    print("(GPU kernel medians in us; best/anc = cuBLASLt best / torch.matmul anchor, <= 1 means no slower; "
          "cudnn/lt > 1 means cuBLASLt's best is faster than cuDNN's)")
    # The kernels on each side: torch.matmul's (profiler) and each passed cublaslt row's (CUPTI,
    # the OOTB plan's kernels[] and kernel sum), so a gap reads as "another kernel" or "same kernel".
    for name, kernels in ran.items():
        print(f"kernels {name}: torch.matmul " +
              " + ".join(f"{k[:60]} {t:.1f}" for k, t in kernels))
        for eng, row in ours[name]["lt_rows"]:
            ks = row.get("kernels") or []
            ksum = (row.get("kernel_sum_stats") or {}).get("median_ms")
            print(f"    cublaslt {eng} {row.get('plan_name')}: " +
                  " + ".join(f"{k['name'][:60]} {k['median_ms'] * 1000:.1f}" for k in ks) +
                  (f" (kernel sum {ksum * 1000:.1f})" if ksum else ""))
    if ratios:
        print(f"cuBLASLt best / anchor: n {len(ratios)}, geomean {statistics.geometric_mean(ratios):.3f}, "
              f"max {max(ratios):.3f}")
    if vs_cudnn:
        print(f"cuDNN best / cuBLASLt best: geomean {statistics.geometric_mean(vs_cudnn):.3f} over {len(vs_cudnn)} graphs")
    rows = [s for v in ours.values() for s in v["lt_status"]]
    print(f"cublaslt rows: {len(rows)}, passed {sum(1 for s in rows if s[2])}, "
          f"skipped {sum(1 for s in rows if s[1] == 'skipped')}, not passed {len(invalid)}; "
          f"rows with an oracle pass {sum(v['lt_oracle'] for v in ours.values())}")
    for name, eng, status, why in invalid:
        print(f"  NOT PASSED {name} {eng}: {status} {why or ''}")
    for name, ratio in slower:
        print(f"  SLOWER than torch.matmul: {name} x{ratio:.3f}")
    for name in missing:
        print(f"  NO PASSING cuBLASLt plan: {name}")
    ok = not invalid and not slower and not missing and bool(ratios)
    print("verdict: " + ("every cuBLASLt row passed and its best plan is no slower than torch.matmul on every graph"
                         if ok else "NOT MET (see above)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
