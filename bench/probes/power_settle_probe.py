#!/usr/bin/env python3
"""Probe (issue 31): how long does the H200 take to settle under back-to-back load, and what does
the driver see meanwhile? dnnbench's sustained warm-up stops when three 50 ms windows agree
(times within 1%, SM clocks within 2%), at most --warmup-max-ms (500) after it starts; PyTorch's
loop in bench/matched_conditions.py has run for seconds. If the power cap's controller follows
NVML's ~1 s power average, the clock keeps falling after dnnbench calls the row steady, and the
row reads a few % fast (bert ffn_down read 1575 against PyTorch's 1524 MHz).

For each problem: 3 s idle, then CUDA-graph replays of ~10 ms back to back for --seconds, each
replay timed by events, and beside each one NVML's SM clock, its averaged power
(nvmlDeviceGetPowerUsage: a ~1 s average on Hopper), its instant power (field 186) and whether the
clock-event reasons say the power cap holds the clock. Prints the time series in 100 ms buckets
and when the per-call time, the clock and each power reading came within 1% of their last
second's median.

    python3 bench/probes/power_settle_probe.py [--seconds 4] [--json OUT.json]
"""
import argparse
import ctypes
import json
import os
import statistics
import sys
import time

import torch

BENCH = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [BENCH, os.path.join(BENCH, "lib")]  # matched_conditions, torch_problems
from matched_conditions import calls_for, capture  # noqa: E402

NVML_FI_DEV_POWER_AVERAGE = 185
NVML_FI_DEV_POWER_INSTANT = 186
CAPPED_REASONS = 0x4 | 0x8 | 0x20 | 0x40 | 0x80  # SW power cap, HW slowdown, thermal, power brake


class FieldValue(ctypes.Structure):
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint), ("timestamp", ctypes.c_longlong),
                ("latencyUsec", ctypes.c_longlong), ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int),
                ("value", ctypes.c_ulonglong)]


class Nvml:
    def __init__(self, index):
        self.lib = ctypes.CDLL("libnvidia-ml.so.1")
        self.lib.nvmlInit_v2()
        self.dev = ctypes.c_void_p()
        if self.lib.nvmlDeviceGetHandleByIndex_v2(index, ctypes.byref(self.dev)) != 0:
            raise RuntimeError("NVML: no device")
        limit = ctypes.c_uint()
        self.limit_w = (limit.value / 1000.0
                        if self.lib.nvmlDeviceGetEnforcedPowerLimit(self.dev, ctypes.byref(limit)) == 0 else float("nan"))

    def field(self, fid):
        v = FieldValue(fieldId=fid)
        if self.lib.nvmlDeviceGetFieldValues(self.dev, 1, ctypes.byref(v)) != 0 or v.nvmlReturn != 0:
            return float("nan")
        raw = v.value
        if v.valueType == 0:  # double
            return ctypes.c_double.from_buffer_copy(ctypes.c_ulonglong(raw)).value / 1000.0
        if v.valueType == 1:  # unsigned int
            raw &= 0xFFFFFFFF
        return raw / 1000.0  # mW

    def read(self):
        clock, power, reasons = ctypes.c_uint(), ctypes.c_uint(), ctypes.c_ulonglong()
        sm = clock.value if self.lib.nvmlDeviceGetClockInfo(self.dev, 1, ctypes.byref(clock)) == 0 else float("nan")
        avg = power.value / 1000.0 if self.lib.nvmlDeviceGetPowerUsage(self.dev, ctypes.byref(power)) == 0 else float("nan")
        capped = (1.0 if reasons.value & CAPPED_REASONS else 0.0) \
            if self.lib.nvmlDeviceGetCurrentClocksEventReasons(self.dev, ctypes.byref(reasons)) == 0 else float("nan")
        return {"sm_mhz": float(sm), "power_avg_w": avg, "power_instant_w": self.field(NVML_FI_DEV_POWER_INSTANT),
                "power_avg_field_w": self.field(NVML_FI_DEV_POWER_AVERAGE), "capped": capped}


def problems():
    dev = "cuda"
    g = torch.Generator(device=dev).manual_seed(1)

    def randn(*shape, dtype=torch.half):
        return (0.5 * torch.randn(*shape, device=dev, generator=g, dtype=torch.float32)).to(dtype)

    a8, b8 = randn(8192, 8192, dtype=torch.bfloat16), randn(8192, 8192, dtype=torch.bfloat16)
    ad, bd = randn(4096, 4096), randn(4096, 1024)
    au, bu = randn(4096, 1024), randn(1024, 4096)
    aq, bq = randn(2048, 4096), randn(4096, 12288)
    x = randn(256, 64, 56, 56).to(memory_format=torch.channels_last)
    w = randn(256, 64, 1, 1).to(memory_format=torch.channels_last)
    x3 = randn(256, 64, 56, 56).to(memory_format=torch.channels_last)
    w3 = randn(64, 64, 3, 3).to(memory_format=torch.channels_last)
    return {
        "gemm bf16 8192^3": lambda: torch.matmul(a8, b8),
        "gemm fp16 bert ffn_down 4096x4096x1024": lambda: torch.matmul(ad, bd),
        "gemm fp16 bert ffn_up 4096x1024x4096": lambda: torch.matmul(au, bu),
        "gemm fp16 llama2 qkv 2048x4096x12288": lambda: torch.matmul(aq, bq),
        "conv fp16 rn50 res2 1x1 64->256 N256": lambda: torch.nn.functional.conv2d(x, w),
        "conv fp16 rn50 res2 3x3 64->64 N256": lambda: torch.nn.functional.conv2d(x3, w3, padding=1),
    }


def graph_of(fn):
    """One CUDA-graph replay of ~10 ms of calls, as bench/matched_conditions.py times PyTorch."""
    calls, _ = calls_for(torch, fn, None)
    run, _, graph = capture(torch, fn, calls)
    return run, calls, graph


def within(series, key, final, tol=0.01):
    """Seconds from the start after which `key` stays within tol of `final`."""
    last_out = 0.0
    for p in series:
        v = p[key]
        if v != v or final != final or final == 0:
            continue
        if abs(v - final) / abs(final) > tol:
            last_out = p["t_s"]
    return last_out


def probe(nvml, name, fn, seconds, idle_s):
    replay, calls, _graph = graph_of(fn)
    torch.cuda.synchronize()
    time.sleep(idle_s)
    events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(4096)]
    series = []
    t0 = time.perf_counter()
    i = 0
    pending = []
    # Two replays in flight: the GPU never waits for the host between them.
    while time.perf_counter() - t0 < seconds and i < len(events):
        b, e = events[i]
        b.record()
        replay()
        e.record()
        pending.append((i, e))
        i += 1
        if len(pending) > 2:
            j, ej = pending.pop(0)
            ej.synchronize()
            reading = nvml.read()
            reading["t_s"] = time.perf_counter() - t0
            reading["us_per_call"] = events[j][0].elapsed_time(ej) * 1000 / calls
            series.append(reading)
    torch.cuda.synchronize()
    tail = [p for p in series if p["t_s"] >= series[-1]["t_s"] - 1.0]
    final = {k: statistics.median([p[k] for p in tail]) for k in ("us_per_call", "sm_mhz", "power_avg_w", "power_instant_w")}
    settle = {k: within(series, k, final[k]) for k in final}
    first = [p for p in series if p["t_s"] <= 0.15]
    early = {k: statistics.median([p[k] for p in first]) for k in final} if first else {}
    return {"name": name, "calls_per_replay": calls, "series": series, "final": final, "settle_s": settle,
            "first_150ms": early}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--idle-s", type=float, default=3.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    nvml = Nvml(torch.cuda.current_device())
    print(f"power limit {nvml.limit_w:.0f} W; instant power field: {nvml.field(NVML_FI_DEV_POWER_INSTANT):.0f} W at idle",
          flush=True)
    results = []
    for name, fn in problems().items():
        if args.only and args.only not in name:
            continue
        r = probe(nvml, name, fn, args.seconds, args.idle_s)
        results.append(r)
        f, s, e = r["final"], r["settle_s"], r["first_150ms"]
        print(f"\n{name}: {r['calls_per_replay']} calls a replay; final (last 1 s) {f['us_per_call']:.2f} us/call, "
              f"{f['sm_mhz']:.0f} MHz, avg {f['power_avg_w']:.0f} W, instant {f['power_instant_w']:.0f} W", flush=True)
        if e:
            print(f"  first 150 ms: {e['us_per_call']:.2f} us/call ({e['us_per_call'] / f['us_per_call']:.3f} of final), "
                  f"{e['sm_mhz']:.0f} MHz, avg {e['power_avg_w']:.0f} W, instant {e['power_instant_w']:.0f} W")
        print(f"  within 1% of final from: time {s['us_per_call']:.2f} s, clock {s['sm_mhz']:.2f} s, "
              f"avg power {s['power_avg_w']:.2f} s, instant power {s['power_instant_w']:.2f} s")
        print("  t(s)  us/call   MHz  avgW instW capped")
        bucket = -1
        for p in r["series"]:
            b = int(p["t_s"] * 10)
            if b != bucket and (b < 20 or b % 5 == 0):
                bucket = b
                print(f"  {p['t_s']:4.2f} {p['us_per_call']:8.2f} {p['sm_mhz']:5.0f} {p['power_avg_w']:5.0f} "
                      f"{p['power_instant_w']:5.0f} {p['capped']:.0f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"power_limit_w": nvml.limit_w, "results": results}, f)


if __name__ == "__main__":
    main()
