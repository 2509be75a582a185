#!/usr/bin/env python3
"""Compare dnnbench's GPU kernel medians with Nsight Compute's per-kernel durations.

usage: ncu_compare.py NCU.csv NCU_RUN.json REP1.json [REP2.json ...]

NCU.csv is `ncu --csv --page raw --print-kernel-base demangled --metrics gpu__time_duration.sum`
of one dnnbench process that ran the top pick of each graph (NCU_RUN.json, its results) with
single-execution samples. In that process each graph's GPU reference kernels (names with
`dnnbench::`) run after the row's first execution, so the kernels after graph g's reference
group are g's remaining executions plus g+1's first one (or, when the reference comes first,
all of g's). Per graph, a kernel name that appears
at least MIN_COUNT times belongs to g; g's time per execution is the sum over those names of the
median duration times the launches per execution.
"""
import csv
import json
import math
import statistics
import sys

MIN_KERNEL_US = 5.0
# ncu's isolated-launch bracket holds ~1 us the kernel does not take (docs/methodology.md,
# "Against Nsight Compute"): kernels from this long on have it under 3%.
LONG_KERNEL_US = 35.0


def executions_after_reference(run):
    # The checked run comes before the reference (it is computed when first needed); then
    # --warmup 2 and --iters 3 single executions (--batch 1: no batch probe, and
    # --warmup-max-ms 0: no steady-state samples).
    return 2 + 3


def read_ncu(path):
    rows = []
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    reader = csv.DictReader(lines)
    for r in reader:
        value = r.get("gpu__time_duration.sum", "")
        try:
            dur = float(value.replace(",", ""))
        except ValueError:
            continue  # the units row
        rows.append((r["Kernel Name"], r.get("Grid Size", ""), r.get("Block Size", ""), dur))
    unit = "ns"
    for l in lines[1:2]:
        if "usecond" in l or '"us"' in l:
            unit = "us"
        elif "msecond" in l or '"ms"' in l:
            unit = "ms"
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3}[unit]
    return [(n, g, b, d * scale) for n, g, b, d in rows]


def segments(kernels):
    """Lists of (name, grid, block, us) after each group of reference kernels."""
    out, cur, in_ref = [], None, False
    for k in kernels:
        is_ref = "dnnbench::" in k[0]
        if is_ref and not in_ref:
            cur = []
            out.append(cur)
        elif not is_ref and cur is not None:
            cur.append(k)
        in_ref = is_ref
    return out


def top_pick(doc):
    out = {}
    for g in doc["graphs"]:
        rows = [r for r in g["results"] if r["provider"] == "cudnn"]
        first = rows[0] if rows else None
        if first and first["status"] == "success" and first.get("gpu_kernel_stats"):
            cupti = (first.get("kernel_sum_stats") or {}).get("median_ms")
            out[g["graph_name"]] = (first["engine_id"], first["gpu_kernel_stats"]["median_ms"] * 1e3,
                                    first["timing"]["method"], cupti * 1e3 if cupti else math.nan)
    return out


def quantiles(values):
    v = sorted(values)
    q = lambda p: v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
    return f"min {v[0]:.3f} p10 {q(0.1):.3f} median {q(0.5):.3f} p90 {q(0.9):.3f} max {v[-1]:.3f}"


def main():
    ncu_csv, ncu_run = sys.argv[1], sys.argv[2]
    reps = [json.load(open(p)) for p in sys.argv[3:]]
    run = json.load(open(ncu_run))
    names = [g["graph_name"] for g in run["graphs"]]
    per_exec = executions_after_reference(run)
    segs = segments(read_ncu(ncu_csv))
    ncu_us, ncu_kernels = {}, {}
    if len(segs) != len(names):
        print(f"warning: {len(segs)} reference groups for {len(names)} graphs; pairing in order")
    for name, seg in zip(names, segs):
        by = {}
        for k in seg:
            by.setdefault((k[0], k[1], k[2]), []).append(k[3])
        total, kern = 0.0, []
        for key, durs in by.items():
            if len(durs) < per_exec - 1:
                continue  # the next graph's first execution
            launches = max(1, round(len(durs) / per_exec))
            med = statistics.median(durs)
            total += med * launches
            kern.append(f"{key[0][:60]} grid{key[1]} block{key[2]} x{launches} {med:.2f} us")
        if total > 0:
            ncu_us[name], ncu_kernels[name] = total, kern
    picks = [top_pick(d) for d in reps]
    print(f"{'graph':<48} {'ncu us':>8} " + " ".join(f"{'run' + str(i + 1):>8}" for i in range(len(picks)))
          + "  ratio(run1/ncu) cupti/ncu  spread  kernels")
    ratios, spreads, below, cupti_ratios = [], [], 0, []
    long_ratios, cupti_gaps = [], []
    for name in names:
        if name not in ncu_us:
            print(f"{name:<48} {'-':>8}  (no ncu time)")
            continue
        times = [p.get(name, (None, math.nan, "", math.nan))[1] for p in picks]
        cupti = picks[0].get(name, (None, math.nan, "", math.nan))[3] if picks else math.nan
        cr = cupti / ncu_us[name]
        ok = [t for t in times if not math.isnan(t)]
        ratio = times[0] / ncu_us[name] if times and not math.isnan(times[0]) else math.nan
        spread = (max(ok) / min(ok) - 1) if len(ok) > 1 else math.nan
        counted = ncu_us[name] >= MIN_KERNEL_US
        if counted and not math.isnan(ratio):
            ratios.append(ratio)
            spreads.append(spread)
            if not math.isnan(cr):
                cupti_ratios.append(cr)
                cupti_gaps.append(ncu_us[name] - cupti)
            if ncu_us[name] >= LONG_KERNEL_US:
                long_ratios.append(ratio)
        elif not counted:
            below += 1
        print(f"{name:<48} {ncu_us[name]:8.2f} " + " ".join(f"{t:8.2f}" for t in times)
              + f"  {ratio:7.3f}{'' if counted else ' (<5us)'} {cr:9.3f}  {100 * spread:5.2f}%  "
              + "; ".join(ncu_kernels[name]))
    if ratios:
        within = sum(abs(r - 1) <= 0.03 for r in ratios)
        print(f"\ndnnbench/ncu over {len(ratios)} graphs with kernels >= {MIN_KERNEL_US} us ({below} below): "
              f"{quantiles(ratios)}; within +-3%: {within} of {len(ratios)}")
        if cupti_ratios:
            print(f"CUPTI kernel sum/ncu over {len(cupti_ratios)} graphs: {quantiles(cupti_ratios)}; within +-3%: "
                  f"{sum(abs(r - 1) <= 0.03 for r in cupti_ratios)} of {len(cupti_ratios)}")
        if cupti_gaps:
            print(f"ncu - CUPTI kernel sum, us: {quantiles(cupti_gaps)}")
        if long_ratios:
            print(f"dnnbench/ncu over the {len(long_ratios)} graphs with kernels >= {LONG_KERNEL_US} us: "
                  f"{quantiles(long_ratios)}; within +-3%: {sum(abs(r - 1) <= 0.03 for r in long_ratios)} "
                  f"of {len(long_ratios)}")
        print(f"repeat runs (max/min - 1 of {len(picks)} runs' medians): {quantiles(spreads)}; "
              f"within 2%: {sum(s <= 0.02 for s in spreads)} of {len(spreads)}")
        methods = sorted({p[2].split("(")[0] for d in picks for p in d.values()})
        print(f"methods: {methods}")
        pacing = {}
        for d in reps:
            for g in d["graphs"]:
                for r in g["results"]:
                    if r.get("timing"):
                        key = r["timing"].get("pacing", "?").split(" (")[0]
                        pacing[key] = pacing.get(key, 0) + 1
        print(f"pacing over the repeat runs' rows: {pacing}")


if __name__ == "__main__":
    main()
