#!/usr/bin/env python3
"""At which SM clock did Nsight Compute run each profiled kernel, and at which clock did the row?

Reads a `dnnbench run --profile ncu` result JSON and its --profile-dir (the CSVs that
`ncu --import X.ncu-rep --csv --page raw --print-units base` wrote), and prints per row:
ncu's duration, the SM clock ncu measured during the kernel (gpc__cycles_elapsed.avg.per_second,
SpeedOfLight's "SM Frequency"), its elapsed cycles, the row's CUPTI kernel sum and the SM clock
NVML read during the row's samples, and what ncu's cycles would take at the row's clock.

If ncu's kernels ran at a lower clock than the row's samples, the two tools agree on the work
(cycles) and differ on the clock; if the clocks match, the difference is elsewhere.

    python3 bench/probes/ncu_clocks.py RUN.json PROFILE_DIR
"""
import csv
import glob
import json
import os
import sys

FREQ = "gpc__cycles_elapsed.avg.per_second"
CYCLES = ("gpc__cycles_elapsed.max", "sm__cycles_elapsed.avg", "sm__cycles_elapsed.max")
TIME = "gpu__time_duration.sum"
SCALE = {"": 1.0, "ns": 1e-9, "nsecond": 1e-9, "usecond": 1e-6, "us": 1e-6, "msecond": 1e-3, "ms": 1e-3,
         "second": 1.0, "s": 1.0, "cycle/second": 1.0, "cycle/nsecond": 1e9, "cycle/usecond": 1e6,
         "hz": 1.0, "Hz": 1.0, "khz": 1e3, "KHz": 1e3, "mhz": 1e6, "MHz": 1e6, "ghz": 1e9, "GHz": 1e9,
         "cycle": 1.0}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    start = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
    if start is None or start + 1 >= len(rows):
        return []
    header, units = rows[start], rows[start + 1]
    out = []
    for r in rows[start + 2:]:
        if len(r) < len(header):
            continue
        rec = {"name": r[header.index("Kernel Name")]}
        for col in (FREQ, TIME) + CYCLES:
            if col in header:
                i = header.index(col)
                v = number(r[i])
                if v is not None:
                    rec[col] = v * SCALE.get(units[i], 1.0)
        out.append(rec)
    return out


def median(values):
    v = sorted(values)
    n = len(v)
    return float("nan") if n == 0 else (v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2]))


def main():
    run, prof = sys.argv[1], sys.argv[2]
    doc = json.load(open(run))
    csvs = sorted(glob.glob(os.path.join(prof, "*.csv")))
    print(f"ncu clocks: {len(csvs)} CSVs in {prof}")
    if csvs:
        first = read_csv(csvs[0])
        if first and FREQ not in first[0]:
            print(f"  ({FREQ} is not in the CSVs: the sections collected hold no SM frequency)")
    rows = [(g["graph_name"], r) for g in doc["graphs"] for r in g["results"] if r.get("profile")]
    for graph, row in rows:
        mark = f"-{graph}-".replace("/", "_")
        mine = [c for c in csvs if mark in os.path.basename(c) or graph[:40] in os.path.basename(c)]
        recs = [k for c in mine for k in read_csv(c)]
        clocks = ((row.get("timing") or {}).get("clocks") or {}).get("sm_mhz") or {}
        row_mhz = clocks.get("mean")
        ksum = ((row.get("kernel_sum_stats") or {}).get("median_ms") or float("nan")) * 1e3
        pacing = (row.get("timing") or {}).get("pacing")
        print(f"{graph[:48]:48} {row.get('engine_id')}: row CUPTI kernel sum {ksum:.2f} us at NVML SM "
              f"{row_mhz if row_mhz is None else round(row_mhz)} MHz (pacing {pacing})")
        names = sorted({r["name"] for r in recs})
        for name in names:
            mine_k = [r for r in recs if r["name"] == name]
            dur = median([r[TIME] for r in mine_k if TIME in r]) * 1e6
            mhz = median([r[FREQ] for r in mine_k if FREQ in r]) / 1e6
            cyc_col = next((c for c in CYCLES if any(c in r for r in mine_k)), None)
            cyc = median([r[cyc_col] for r in mine_k if cyc_col in r]) if cyc_col else float("nan")
            at_row = cyc / (row_mhz * 1e6) * 1e6 if row_mhz and cyc == cyc else float("nan")
            print(f"    ncu {name[:60]:60} {dur:9.2f} us at {mhz:7.0f} MHz, {cyc:12.0f} cycles "
                  f"({cyc_col}); at the row's clock {at_row:9.2f} us  [{len(mine_k)} launches]")


if __name__ == "__main__":
    main()
