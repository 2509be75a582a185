#!/usr/bin/env bash
# The oracle's A/A self-check on the GPU machine (bench/recipes/oracle-aa.toml): every cuDNN row of graphs/samples
# compared with itself through the sweep-and-paired path, with the control arm. Any row called
# significant is a false positive. Run after scripts/gpu-run.sh built build/gpu/dnnbench:
#
#   bench/oracle-aa.sh [OUT_DIR] [SECONDS]
#
# SECONDS (default 240) bounds the run: at the limit it is interrupted with SIGINT, which writes
# the rows finished so far (complete: false). The summary counts significant rows. AA_EXTRA adds
# flags (e.g. --max-engines 1: cuDNN's pick on every graph).
# AA_GRAPHS (default graphs/samples) names other graphs (a -g argument: comma-separated paths).
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX
BIN=${DNNBENCH_BIN:-build/gpu/dnnbench}
OUT_DIR=${1:-${OUT:-out}/oracle-aa}
mkdir -p "$OUT_DIR"
graph_args=()
[ -n "${AA_GRAPHS:-}" ] && graph_args=(-g "$AA_GRAPHS")
# shellcheck disable=SC2086
timeout -s INT "${2:-240}" "$BIN" run --config bench/recipes/oracle-aa.toml "${graph_args[@]}" ${AA_EXTRA:-} -q \
  -o "$OUT_DIR/aa.json" > "$OUT_DIR/aa.log" 2>&1
echo "oracle-aa: exit $?"
tail -8 "$OUT_DIR/aa.log"
python3 - "$OUT_DIR/aa.json" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
deltas = [(g["graph_name"], r["engine_id"], r["oracle_delta"]) for g in doc["graphs"] for r in g["results"]
          if r.get("oracle_delta")]
sig = [d for d in deltas if d[2]["significant"]]
print(f"A/A (complete: {doc.get('complete')}): {len(deltas)} rows compared, {len(sig)} significant")
far = sorted(deltas, key=lambda d: -abs(math.log(d[2]["speedup"])))[:5]
for g, e, d in far:
    print(f"  {g} {e}: {d['speedup']:.4f} [{d['ci95'][0]:.4f}, {d['ci95'][1]:.4f}] control {d['control_ratio']:.4f} "
          f"band +-{100 * d['noise_floor']:.2f}% ({d['basis']}, {d['baseline_median_ms']:.4f} ms)")
PY
