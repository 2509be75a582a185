#!/usr/bin/env bash
# Measurement acceptance on the GPU machine (issue 6). Run after scripts/gpu-run.sh built
# build/gpu/dnnbench:
#
#   bench/probes/measurement-gpu.sh [OUT_DIR]      (default: $OUT/measurement or out/measurement)
#
# Checks, each printed PASS/FAIL in the summary:
#   1. A/A: a ~30 us cuDNN conv (ResNet-50 res2 3x3, N=32, fp16) and a ~1 ms one (3x3, N=128,
#      256->256, 56x56, fp16), 5 independent repeats each (`dnnbench calibrate`): every repeat's
#      median within +-1% of the repeats' median.
#   2. Batched (--batch 20) and single-run (--batch 1) timing of the long kernel agree within 1%
#      (medians of 3 repeats each, the two modes alternated so that drift hits both).
#   3. Cold (--cache-mode cold) is slower than hot on the L2-resident short conv (~26 MB of
#      tensors, H200 L2 60 MB).
# and records the noise floor (`calibrate`'s file). Timings use `calibrate`, which measures the
# heuristic plan of cuDNN's first engine without the fp64 CPU reference check (minutes for the
# long conv). Takes about 1-2 minutes on an H200.
set -uo pipefail
cd "$(dirname "$0")/../.."
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX
BIN=${DNNBENCH_BIN:-build/gpu/dnnbench}
OUT_DIR=${1:-${OUT:-out}/measurement}
SHORT=graphs/perf/resnet50/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json
LONG=bench/graphs/conv3x3_n128_c256_k256_56_nhwc_fp16.json
mkdir -p "$OUT_DIR"
[ -x "$BIN" ] || { echo "measurement-gpu: no $BIN (run scripts/gpu-run.sh first)"; exit 2; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv || true

cal() {  # cal NAME ARGS...: one calibrate run, its table to stdout and NAME.log, JSON to NAME.json
  local name=$1
  shift
  echo "== calibrate $name: $*"
  "$BIN" calibrate --provider cudnn --calibration-file "$OUT_DIR/$name.json" "$@" 2>&1 | tee "$OUT_DIR/$name.log"
}

start=$(date +%s)
# 1. A/A on both kernels; this is also the run's noise floor.
cal aa -g "$SHORT" -g "$LONG" --repeats 5
# 2. Batched vs single-run on the long kernel, alternated.
#    "inline": each execution of a 20-batch between its own events (--per-execution-events), so
#    single-run times at the batch's clocks; "single": --batch 1, the device idles between samples.
for round in 1 2; do
  cal "single$round" -g "$LONG" --repeats 3 --batch 1
  cal "inline$round" -g "$LONG" --repeats 3 --batch 20 --per-execution-events
  cal "batched$round" -g "$LONG" --repeats 3 --batch 20
done
# 3. Hot vs cold on the short, L2-resident kernel.
cal hot -g "$SHORT" --repeats 3 --cache-mode hot
cal cold -g "$SHORT" --repeats 3 --cache-mode cold
echo "measurement-gpu: timing took $(($(date +%s) - start)) s"

python3 - "$OUT_DIR" <<'EOF'
import json, statistics, sys
out = sys.argv[1]
def entries(name):
    return [e for e in json.load(open(f"{out}/{name}.json"))["entries"] if e["error"] is None]
def med(name):
    return statistics.median(m for e in entries(name) for m in e["medians_ms"])
results = []
def check(label, ok, detail):
    results.append(ok)
    print(f"{'PASS' if ok else 'FAIL'}  {label}: {detail}")
print("\n== summary (H200, cuDNN heuristic plan of the first engine)")
aa = entries("aa")
for e in aa:
    mid = statistics.median(e["medians_ms"])
    worst = max(abs(m / mid - 1) for m in e["medians_ms"])
    clocks = [c for c in e["sm_mhz_mean"] if c is not None]
    check(f"A/A {e['kind']} {e['graph']} ({mid:.4f} ms, {e['timing_method']})", worst <= 0.01,
          f"repeats within +-{100 * worst:.2f}% of their median (max/min-1 {100 * e['spread']:.2f}%), "
          f"SM clock means {[round(c) for c in clocks]}, clock_unstable repeats {e['clock_unstable_repeats']}")
if len(aa) != 2:
    check("A/A", False, f"{len(aa)} of 2 kernels measured; see {out}/aa.log")
single = statistics.median([med("single1"), med("single2")])
inline = statistics.median([med("inline1"), med("inline2")])
batched = statistics.median([med("batched1"), med("batched2")])
check("batched vs single-run (each execution's own events, same stream), long kernel",
      abs(batched / inline - 1) <= 0.01,
      f"batch 20 {batched:.4f} ms, single-run in stream {inline:.4f} ms, ratio {batched / inline:.4f}")
print(f"info  single-run with idle gaps (--batch 1): {single:.4f} ms, batched/that {batched / single:.4f} "
      "(a different thermal state: the clock rises in the gaps)")
hot, cold = med("hot"), med("cold")
check("cold > hot, L2-resident short kernel", cold > hot, f"cold {cold:.4f} ms, hot {hot:.4f} ms (x{cold / hot:.2f})")
aa_doc = json.load(open(f"{out}/aa.json"))
print(f"noise floor: short {aa_doc['short_spread']}, long {aa_doc['long_spread']} (max/min - 1); file {out}/aa.json")
print(f"{sum(results)} of {len(results)} checks passed")
sys.exit(0 if all(results) else 1)
EOF
