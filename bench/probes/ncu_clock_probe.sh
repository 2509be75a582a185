#!/usr/bin/env bash
# Which SM clock Nsight Compute's kernels run at, by --clock-control and replay mode, beside the
# clock the same kernel runs at without ncu (issues 12 and 17: ncu read 4-6% over CUPTI, its
# kernels at ~1.67 GHz where dnnbench's rows ran at ~1.97 GHz). No dnnbench build needed: a
# torch.matmul (fp16, 8192^3, ~1 ms) in a loop is the kernel.
#
#   bench/probes/ncu_clock_probe.sh [OUT_DIR]        (on the GPU machine; NCU: bench/lib/gpu-env.sh)
set -uo pipefail
OUT_DIR=$(realpath -m "${1:-${OUT:-out}/ncu-clock}")
cd "$(dirname "$0")/../.."
. bench/lib/gpu-env.sh
NCU=$(find_ncu)
[ -n "$NCU" ] || { echo "ncu_clock_probe: no ncu (set NCU, or put ncu on PATH)"; exit 2; }
mkdir -p "$OUT_DIR"
PY=${PYTHON:-python3}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,clocks.applications.graphics,clocks.default_applications.graphics,power.limit,power.draw --format=csv
nvidia-smi -q -d CLOCK | sed -n '/Clocks$/,/Max Clocks/p' | head -30
cat > "$OUT_DIR/mm.py" <<'PY'
import sys, time, torch
n = int(sys.argv[1]) if len(sys.argv) > 1 else 8192
a = torch.randn(n, n, device="cuda", dtype=torch.float16)
b = torch.randn(n, n, device="cuda", dtype=torch.float16)
for _ in range(30):
    c = a @ b
torch.cuda.synchronize()
s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
s.record()
for _ in range(50):
    c = a @ b
e.record(); torch.cuda.synchronize()
print(f"events: {s.elapsed_time(e) / 50 * 1e3:.1f} us per matmul (n={n})")
PY
# Without ncu: the event time and the SM clock while it runs (nvidia-smi every 50 ms).
( nvidia-smi --query-gpu=clocks.sm,power.draw --format=csv,noheader -lms 50 > "$OUT_DIR/smi.csv" ) &
smi=$!
$PY "$OUT_DIR/mm.py"
kill $smi 2> /dev/null
echo "SM clock without ncu (MHz, power W): $(sort "$OUT_DIR/smi.csv" | uniq -c | sort -rn | head -4 | tr '\n' ';')"
M=gpu__time_duration.sum,gpc__cycles_elapsed.avg.per_second,gpc__cycles_elapsed.max
for mode in "none kernel" "base kernel" "none application"; do
  set -- $mode
  timeout 120 "$NCU" --clock-control "$1" --replay-mode "$2" --cache-control none --metrics "$M" \
    -k regex:nvjet --launch-skip 40 --launch-count 3 --csv $PY "$OUT_DIR/mm.py" > "$OUT_DIR/ncu-$1-$2.csv" 2> "$OUT_DIR/ncu-$1-$2.err"
  echo "ncu --clock-control $1 --replay-mode $2 (rc $?):"
  grep -E "gpu__time_duration|gpc__cycles" "$OUT_DIR/ncu-$1-$2.csv" | awk -F'","' '{print "   ", $(NF-2), $(NF-1), $NF}' | head -9
done
