#!/usr/bin/env python3
"""Cost of --isolate: the same suite run with none, graph and row, REPS times each, interleaved
(so that a change in machine load hits every mode alike). Prints the median wall time per mode and
the overhead per graph and per row against `none`.

    bench/isolation_overhead.py [BINARY] [GRAPHS] [PROVIDER] [REPS]
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
modes = ["none", "graph", "row"]

times = {m: [] for m in modes}
counts = {}
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "r.json")
    for _ in range(reps):
        for mode in modes:
            start = time.monotonic()
            subprocess.run([binary, "run", "-g", graphs, "--provider", provider, "--warmup", "1", "--iters", "3",
                            "-q", "--progress", "none", "--isolate", mode, "-o", out],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
            times[mode].append(time.monotonic() - start)
            summary = json.load(open(out))["summary"]
            counts[mode] = (summary["graphs"] - summary["graph_errors"] - summary["duplicates"] - summary["filtered"],
                            summary["rows"])

graphs_run, rows = counts["none"]
base = statistics.median(times["none"])
print(f"{binary} on {graphs} --provider {provider}: {graphs_run} graphs run, {rows} rows, {reps} runs per mode")
print(f"load average at the end: {os.getloadavg()}")
for mode in modes:
    med = statistics.median(times[mode])
    extra = med - base
    print(f"  {mode:<5} median {med:7.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times[mode])})"
          f"  overhead {extra:+.2f} s = {1000 * extra / graphs_run:+.0f} ms/graph, {1000 * extra / rows:+.0f} ms/row")
