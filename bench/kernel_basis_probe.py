#!/usr/bin/env python3
"""Probe (issue 12): which timing basis reproduces Nsight Compute's gpu__time_duration? CUPTI
kernel durations (through torch.profiler) of the same kernels launched back to back, one at a
time with a synchronize between (no idle sleep), and one at a time after 2 ms idle; beside CUDA
events per call in a CUDA-graph replay of 20. Compare with bench/duty_cycle_probe.py's ncu run.

    python3 bench/kernel_basis_probe.py
"""
import time

import torch
from torch.profiler import ProfilerActivity, profile


def cupti_durations(fn, mode, n=60):
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            if mode == "idle":
                torch.cuda.synchronize()
                time.sleep(0.002)
            fn()
            if mode in ("sync", "idle"):
                torch.cuda.synchronize()
        torch.cuda.synchronize()
    ds = sorted(e.device_time for e in prof.events()
                if e.device_type == torch.autograd.DeviceType.CUDA and e.device_time > 0)
    return ds[len(ds) // 2] if ds else float("nan")


def main():
    dev = "cuda"
    a = torch.randn(4096, 4096, device=dev, dtype=torch.half)
    b = torch.randn(4096, 11008, device=dev, dtype=torch.half)
    x = torch.randn(32, 64, 56, 56, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    w = torch.randn(64, 64, 1, 1, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    w3 = torch.randn(64, 64, 3, 3, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    x5 = torch.randn(32, 2048, 7, 7, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    w5 = torch.randn(512, 2048, 1, 1, device=dev, dtype=torch.half).to(memory_format=torch.channels_last)
    cases = {
        "gemm 4096x4096x11008": lambda: torch.matmul(a, b),
        "conv 1x1 64->64 56^2 N32": lambda: torch.nn.functional.conv2d(x, w),
        "conv 3x3 64->64 56^2 N32": lambda: torch.nn.functional.conv2d(x, w3, padding=1),
        "conv 1x1 2048->512 7^2 N32": lambda: torch.nn.functional.conv2d(x5, w5),
    }
    print("case | CUPTI back-to-back | CUPTI one at a time (sync) | CUPTI after 2 ms idle (us)", flush=True)
    for name, fn in cases.items():
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        r = [cupti_durations(fn, m) for m in ("b2b", "sync", "idle")]
        print(f"{name} | {r[0]:.2f} | {r[1]:.2f} | {r[2]:.2f}", flush=True)


if __name__ == "__main__":
    import sys
    if "--ncu" in sys.argv:  # under ncu: the fourth case only, 5 times
        x5 = torch.randn(32, 2048, 7, 7, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
        w5 = torch.randn(512, 2048, 1, 1, device="cuda", dtype=torch.half).to(memory_format=torch.channels_last)
        for _ in range(5):
            torch.nn.functional.conv2d(x5, w5)
        torch.cuda.synchronize()
    else:
        main()
