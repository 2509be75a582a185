#!/usr/bin/env python3
"""Cost of --isolate: the same suite run with none, graph and row, REPS times each, interleaved
(so that a change in machine load hits every mode alike). Prints the median wall time per mode,
the overhead per graph and per row against `none`, and how many child processes each mode started
(metadata.isolation.children_started). With BASELINE, that binary's `graph` mode runs too (e.g. a
build from before the --isolate graph worker), as `graph@baseline`.

    bench/probes/isolation_overhead.py [BINARY] [GRAPHS] [PROVIDER] [REPS] [BASELINE]
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

binary = sys.argv[1] if len(sys.argv) > 1 else "build/default/dnnbench"
graphs = sys.argv[2] if len(sys.argv) > 2 else "graphs/samples"
provider = sys.argv[3] if len(sys.argv) > 3 else "onednn"
reps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
baseline = sys.argv[5] if len(sys.argv) > 5 else None
runs = [(m, binary, m) for m in ["none", "graph", "row"]]
if baseline:
    runs.append(("graph@baseline", baseline, "graph"))

times = {name: [] for name, _, _ in runs}
counts = {}
children = {}
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r.json")
    for _ in range(reps):
        for name, program, mode in runs:
            start = time.monotonic()
            subprocess.run([program, "run", "-g", graphs, "--provider", provider, "--warmup", "1", "--iters", "3",
                            "-q", "--progress", "none", "--isolate", mode, "-o", out],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times[name].append(time.monotonic() - start)
            result = json.load(open(out))
            summary = result["summary"]
            counts[name] = (summary["graphs"] - summary["graph_errors"] - summary["duplicates"] - summary["filtered"],
                            summary["rows"])
            children[name] = result["metadata"].get("isolation", {}).get("children_started", "?")

graphs_run, rows = counts["none"]
base = statistics.median(times["none"])
print(f"{binary} on {graphs} --provider {provider}: {graphs_run} graphs run, {rows} rows, {reps} runs per mode")
print(f"load average at the end: {os.getloadavg()}")
for name, _, _ in runs:
    med = statistics.median(times[name])
    extra = med - base
    print(f"  {name:<14} median {med:7.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times[name])})"
          f"  overhead {extra:+.2f} s = {1000 * extra / graphs_run:+.0f} ms/graph, {1000 * extra / rows:+.0f} ms/row"
          f"  children started: {children[name]}")
