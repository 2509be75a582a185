#!/usr/bin/env python3
"""One line per timed row of dnnbench results: warm-up, measured span, samples, how much of it
the driver held the clock at the power cap, board power and SM clock range. For checking the
warm-up and --capped-min-ms at the power cap (issue 31).

    python3 bench/probes/capped_rows.py RESULTS.json [...]
"""
import json
import sys

for path in sys.argv[1:]:
    wall = 0.0
    for g in json.load(open(path))["graphs"]:
        wall += g.get("wall_ms") or 0
        for r in g.get("results", []):
            t = r.get("timing") or {}
            c = t.get("clocks") or {}
            k = r.get("gpu_kernel_stats") or r.get("host_stats") or {}
            sm = c.get("sm_mhz") or {}
            print(f"{g['graph_name'][:44]:44} {r.get('engine_id', '')[:8]:8} warm-up {t.get('warmup_ms', 0):6.0f} ms "
                  f"steady {str(t.get('warmup_steady')):5} measured {t.get('elapsed_ms', 0):5.0f} ms n {k.get('n', 0):4} "
                  f"capped {c.get('capped_fraction') or 0:.2f} {(c.get('power_w') or {}).get('mean', 0):4.0f} W "
                  f"{sm.get('min', 0):4.0f}-{sm.get('max', 0):4.0f} MHz median {1000 * (k.get('median_ms') or 0):8.2f} us")
    print(f"{path}: graphs' wall {wall / 1000:.1f} s")
