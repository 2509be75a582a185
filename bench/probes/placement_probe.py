#!/usr/bin/env python3
"""Does where a problem's buffers lie move a short kernel's time? (issue 31)

The matched-conditions benchmark (bench/matched_conditions.py) puts 1-3 of 58 rows outside +-3%
of PyTorch in each run, a different set each time, nearly all under 10 us (split-K decode GEMMs,
small 1x1 convs). Their weights stay in L2 between CUDA-graph replays, and which L2 slices serve
them depends on the physical addresses, so one allocation may simply be luckier than another.

For each graph this times PyTorch's own call (the same call, data and CUDA-graph replay as the
matched benchmark) with its tensors allocated anew after a spacer of 0..64 MiB, every earlier
placement kept alive so that the caching allocator cannot hand the same blocks back. It prints
each placement's median and the spread (max / min - 1). A spread of 3-5% on one graph says the
per-row +-3% of such rows needs the median over placements on both sides, not a better harness.

  python3 bench/probes/placement_probe.py [--graphs G.json ...] [--spacers-mib 0,1,3,...] [--json OUT]

GPU machine only (torch with CUDA). bench/gpu-check.sh stage `placement`.
"""
import argparse
import json
import os
import statistics
import sys

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [BENCH, os.path.join(BENCH, "lib")]  # matched_conditions, torch_problems
ROOT = os.path.dirname(BENCH)
from matched_conditions import Clocks, calls_for, capture, measure_sustained  # noqa: E402
from torch_problems import build_call, problem_spec  # noqa: E402

DEFAULT_GRAPHS = ("graphs/perf/gemm/decode_m1_k4096_n4096_bf16.json",
                  "graphs/perf/gemm/decode_m16_k4096_n4096_bf16.json",
                  "graphs/perf/gemm/decode_m64_k4096_n4096_fp16.json",
                  "graphs/perf/resnet50/rn50_res2_1x1_64_64_fwd_n32_nhwc_fp16.json",
                  "graphs/perf/resnet50/rn50_res3_1x1_512_128_fwd_n32_nhwc_fp16.json")


def probe(torch, path, spacers_mib, cfg, clocks):
    spec = problem_spec(os.path.join(ROOT, path))
    keep = []  # every placement's tensors stay allocated: the next one lands elsewhere
    rows = []
    for mib in spacers_mib:
        spacer = torch.empty(max(1, mib) * (1 << 20) if mib else 1, dtype=torch.uint8, device="cuda")
        # The same data at every placement (the seed), so only the addresses change.
        fn = build_call(torch, spec, fill="normal", seed=cfg.seed, sigma=cfg.sigma)
        calls, _ = calls_for(torch, fn, None)
        run, method, graph = capture(torch, fn, calls)
        r = measure_sustained(torch, run, calls, cfg, clocks)
        rows.append({"spacer_mib": mib, "median_ms": r["median_ms"], "p5_ms": r.get("p5_ms"),
                     "p95_ms": r.get("p95_ms"), "n": r.get("n"), "sm_mhz": r.get("sm_mhz"),
                     "calls": calls, "method": method})
        keep.append((spacer, fn, run, graph))
        print(f"  {spec['name'][:44]:44} spacer {mib:3d} MiB: {r['median_ms'] * 1e3:8.3f} us "
              f"(n {r.get('n')}, {r.get('sm_mhz') or 0:.0f} MHz)", flush=True)
    medians = [x["median_ms"] for x in rows]
    spread = max(medians) / min(medians) - 1
    print(f"{spec['name']}: median over placements {statistics.median(medians) * 1e3:.3f} us, "
          f"spread {spread * 100:.1f}% ({min(medians) * 1e3:.3f}-{max(medians) * 1e3:.3f} us)", flush=True)
    del keep
    torch.cuda.empty_cache()
    return {"graph": spec["name"], "placements": rows, "spread": spread,
            "median_over_placements_ms": statistics.median(medians)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graphs", nargs="+", default=list(DEFAULT_GRAPHS))
    ap.add_argument("--spacers-mib", default="0,1,3,7,16,33,64",
                    help="comma-separated spacer sizes allocated before each placement")
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--sigma", type=float, default=0.5)
    args = ap.parse_args()
    try:
        spacers = [int(x) for x in args.spacers_mib.split(",")]
    except ValueError:
        ap.error(f"--spacers-mib {args.spacers_mib!r}: comma-separated whole MiB")
    # The matched benchmark's sustained settings, shorter: these rows stay below the power cap.
    cfg = argparse.Namespace(warm_min_s=0.2, warm_max_s=0.6, measure_s=0.5, min_samples=10, max_samples=400,
                             seed=args.seed, sigma=args.sigma)
    import torch
    torch.backends.cudnn.benchmark = False
    clocks = Clocks()
    print(f"placement probe: torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"{torch.cuda.get_device_name()}; spacers {spacers} MiB", flush=True)
    results = [probe(torch, g, spacers, cfg, clocks) for g in args.graphs]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
