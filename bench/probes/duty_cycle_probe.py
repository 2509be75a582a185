#!/usr/bin/env python3
"""Probe (issue 12): does a kernel's measured time depend on the GPU's power state, and does
pacing the timed samples (idle gaps between them) keep the SM clock at boost? Times one GEMM and
one short conv by CUDA-graph replay of 20 calls, sustained vs paced at several duty cycles, and
reads NVML's SM clock and power during each. Run on the GPU machine; ncu on the same kernels
is the reference (bench/ncu-check.sh).

    python3 bench/probes/duty_cycle_probe.py
    ncu --clock-control none --cache-control none --metrics gpu__time_duration.sum --csv \
        python3 bench/probes/duty_cycle_probe.py --ncu
"""
import sys
import time

import torch

try:
    import pynvml

    pynvml.nvmlInit()
    NV = pynvml.nvmlDeviceGetHandleByIndex(0)
except Exception:  # no NVML: clocks not reported
    NV = None


def clocks():
    if NV is None:
        return 0, 0.0
    return (pynvml.nvmlDeviceGetClockInfo(NV, pynvml.NVML_CLOCK_SM),
            pynvml.nvmlDeviceGetPowerUsage(NV) / 1000.0)


def graph_of(fn, calls=20):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    return g


def measure(g, calls, duty, seconds=2.0):
    """Replay for `seconds`; after each replay of t ms, idle t*(1/duty - 1) ms on the host."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times, clk = [], []
    t0 = time.time()
    while time.time() - t0 < seconds:
        start.record()
        g.replay()
        end.record()
        end.synchronize()
        ms = start.elapsed_time(end)
        if time.time() - t0 > seconds / 2:  # second half: steady state of this regime
            times.append(ms / calls)
            clk.append(clocks())
        if duty < 1.0:
            time.sleep(ms * (1.0 / duty - 1.0) / 1000.0)
    times.sort()
    sm = sorted(c[0] for c in clk)
    pw = sorted(c[1] for c in clk)
    return times[len(times) // 2] * 1000.0, sm[len(sm) // 2], pw[len(pw) // 2], len(times)


def main():
    torch.backends.cudnn.benchmark = False
    dev = "cuda"
    a = torch.randn(4096, 4096, device=dev, dtype=torch.half)
    b = torch.randn(4096, 11008, device=dev, dtype=torch.half)
    x = torch.randn(32, 64, 56, 56, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    w = torch.randn(64, 64, 1, 1, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    w3 = torch.randn(64, 64, 3, 3, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    cases = {
        "gemm 4096x4096x11008": lambda: torch.matmul(a, b),
        "conv 1x1 64->64 56^2 N32": lambda: torch.nn.functional.conv2d(x, w),
        "conv 3x3 64->64 56^2 N32": lambda: torch.nn.functional.conv2d(x, w3, padding=1),
    }
    if "--ncu" in sys.argv:  # run under ncu: each case 5 times, eagerly, nothing else
        for fn in cases.values():
            for _ in range(5):
                fn()
        torch.cuda.synchronize()
        return
    print("case | regime | median us per call | SM MHz | W | n", flush=True)
    for name, fn in cases.items():
        g = graph_of(fn)
        for regime, duty in [("sustained", 1.0), ("duty 50%", 0.5), ("duty 25%", 0.25),
                             ("duty 10%", 0.1), ("sustained again", 1.0)]:
            us, sm, w_, n = measure(g, 20, duty)
            print(f"{name} | {regime} | {us:.2f} | {sm} | {w_:.0f} | {n}", flush=True)
        # isolated single calls after 2 ms idle: events around one launch
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        ts = []
        for _ in range(200):
            time.sleep(0.002)
            s.record(); fn(); e.record(); e.synchronize()
            ts.append(s.elapsed_time(e) * 1000.0)
        ts.sort()
        print(f"{name} | isolated (2 ms idle, 1 event pair) | {ts[100]:.2f} | {clocks()[0]} | - | 200",
              flush=True)


if __name__ == "__main__":
    main()
