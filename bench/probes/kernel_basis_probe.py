#!/usr/bin/env python3
"""Probe (issue 12): which timing basis reproduces Nsight Compute's gpu__time_duration? CUPTI
kernel durations (through torch.profiler) of the same kernels launched back to back, one at a
time with a synchronize between (no idle sleep), and one at a time after 2, 20 and 200 ms idle
(issue 17: does a kernel launched after the long idle gaps under ncu run slower, as ncu's
~5% over CUPTI on the Llama-2 GEMMs suggests?). Compare with bench/probes/duty_cycle_probe.py's ncu run
and with `--profile ncu` rows.

    python3 bench/probes/kernel_basis_probe.py
"""
import time

import torch
from torch.profiler import ProfilerActivity, profile


IDLE_MS = {"idle": 2, "idle20": 20, "idle200": 200}


def cupti_durations(fn, mode, n=60):
    if mode == "idle200":
        n = 8
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(n):
            if mode in IDLE_MS:
                torch.cuda.synchronize()
                time.sleep(IDLE_MS[mode] / 1000)
            fn()
            if mode != "b2b":
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
    q = torch.randn(2048, 4096, device=dev, dtype=torch.half)
    kv = torch.randn(4096, 12288, device=dev, dtype=torch.half)
    cases = {
        "gemm 2048x4096x12288 (Llama-2 QKV)": lambda: torch.matmul(q, kv),
        "gemm 4096x4096x11008": lambda: torch.matmul(a, b),
        "conv 1x1 64->64 56^2 N32": lambda: torch.nn.functional.conv2d(x, w),
        "conv 3x3 64->64 56^2 N32": lambda: torch.nn.functional.conv2d(x, w3, padding=1),
        "conv 1x1 2048->512 7^2 N32": lambda: torch.nn.functional.conv2d(x5, w5),
    }
    modes = ("b2b", "sync", "idle", "idle20", "idle200")
    print("case | CUPTI back-to-back | one at a time (sync) | after 2 ms idle | after 20 ms | after 200 ms (us)",
          flush=True)
    for name, fn in cases.items():
        for _ in range(20):
            fn()
        torch.cuda.synchronize()
        r = [cupti_durations(fn, m) for m in modes]
        print(f"{name} | " + " | ".join(f"{v:.2f}" for v in r), flush=True)


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
