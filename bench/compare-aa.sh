#!/usr/bin/env bash
# compare's A/A between processes (issue 32): the same suite run as PAIRS pairs of separate
# processes, each pair compared with `dnnbench compare`; a pair passes when compare exits 0 with
# 0 regressions. Prints per pair: exit code, rows, FASTER/SLOWER/SAME/UNDECIDED, the UNDECIDED
# share, the noise sources, and whether either run was disturbed by other work.
#
#   bench/compare-aa.sh OUT_DIR PAIRS -- RUN_ARGS...
#
# e.g. (CPU) bench/compare-aa.sh out/aa-cpu 3 -- --config bench/recipes/cpu-aa.toml
#      (GPU) DNNBENCH_BIN=build/gpu/dnnbench bench/compare-aa.sh out/aa-gpu 2 -- --config bench/recipes/placement-aa.toml
#      (GPU) DNNBENCH_BIN=build/gpu/dnnbench bench/compare-aa.sh out/aa-gpu 3 -- -g graphs/perf/resnet50 \
#              --provider cudnn --max-engines 1          (bench/gpu-check.sh stage compare-aa)
# DNNBENCH_BIN picks the binary (default build/default/dnnbench); COMPARE_EXTRA adds compare flags.
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX
BIN=${DNNBENCH_BIN:-build/default/dnnbench}
OUT_DIR=$1
PAIRS=$2
shift 3  # OUT_DIR PAIRS --
mkdir -p "$OUT_DIR"
passed=0
for p in $(seq 1 "$PAIRS"); do
  for side in a b; do
    start=$SECONDS
    "$BIN" run "$@" -q --save-samples -o "$OUT_DIR/$p$side.json" > "$OUT_DIR/$p$side.log" 2>&1
    echo "pair $p run $side: exit $? in $((SECONDS - start)) s ($(grep -c . "$OUT_DIR/$p$side.log") log lines)"
    grep -h "DISTURBED" "$OUT_DIR/$p$side.log"
  done
  "$BIN" compare "$OUT_DIR/${p}a.json" "$OUT_DIR/${p}b.json" ${COMPARE_EXTRA:-} \
    --json "$OUT_DIR/$p-compare.json" > "$OUT_DIR/$p-compare.log" 2> "$OUT_DIR/$p-compare.err"
  code=$?
  python3 - "$OUT_DIR/$p-compare.json" "$code" "$p" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["comparisons"][0]
s = c["summary"]
judged = s["faster"] + s["slower"] + s["same"] + s["undecided"]
machine = [f'{d["condition"]}: {d["a"]} -> {d["b"]}' for d in c["differences"] if d.get("machine")]
print(f'pair {sys.argv[3]}: compare exit {sys.argv[2]}, {s["rows"]} rows, {s["faster"]} FASTER, {s["slower"]} SLOWER, '
      f'{s["same"]} SAME, {s["undecided"]} UNDECIDED ({100 * s["undecided"] / max(judged, 1):.1f}% of {judged}), '
      f'{s["broken"]} broken, regressions {s["regressions"]}, geomean {s["geomean_ratio"]:.4f}, '
      f'noise sources {s["noise_sources"]}')
for m in machine:
    print("  MACHINE " + m)
far = sorted((r for r in c["rows"] if r["ratio"]), key=lambda r: -abs(r["ratio"]["ratio"] - 1))[:3]
for r in far:
    print(f'  farthest: {r["graph"]} {r["engine_a"]} {r["ratio"]["ratio"]:.3f} [{r["ratio"]["ci95"][0]:.3f}, '
          f'{r["ratio"]["ci95"][1]:.3f}] band {100 * r["noise_band"]:.1f}% {r["noise_source"]} -> {r["verdict"]}')
PY
  [ "$code" = 0 ] && passed=$((passed + 1))
done
echo "compare-aa: $passed of $PAIRS pairs exit 0 with no regression"
[ "$passed" = "$PAIRS" ]
