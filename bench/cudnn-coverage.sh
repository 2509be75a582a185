#!/usr/bin/env bash
# Which sample graphs of each op family cuDNN takes, with cuDNN's own reasons, on the GPU machine:
# runs each family's samples on the cudnn provider (top 3 engines, 2 samples, no isolation) with
# cuDNN's debug log (CUDNN_LOGLEVEL_DBG=2: warnings and errors) per family, prints one line per
# graph (engine:status and the normalized error) and cuDNN's distinct reasons; rows and logs come
# back in OUT_DIR/probe.tgz. docs/providers.md's cuDNN support table came from it (2026-12-01).
#
#   bench/cudnn-coverage.sh OUT_DIR                  (.debs beside it: scripts/gpu-prepare.sh)
#   STAGES="build coverage" bench/gpu-check.sh      (the same on gpu-check's build/gpu/dnnbench)
#
# PROBE_BIN: a dnnbench already built (then nothing is built); otherwise it unpacks the
# dependencies (scripts/setup with DNNBENCH_DEBS, default .debs) and builds the dnnbench target
# alone in PROBE_BUILD (default build/coverage). PROBE_BUDGET_S (default 100) stops probing past
# that many seconds, so the tarball always comes back.
set -uo pipefail
cd "$(dirname "$0")/.."
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX
OUT_DIR=${1:-${OUT:-out/probe}}
BUILD=${PROBE_BUILD:-build/coverage}
mkdir -p "$OUT_DIR/diag"
t0=$(date +%s)
if [ -n "${PROBE_BIN:-}" ]; then
  BIN=$PROBE_BIN
else
  DNNBENCH_DEBS=${DNNBENCH_DEBS:-.debs} scripts/setup > "$OUT_DIR/diag/setup.log" 2>&1 || {
    tail -5 "$OUT_DIR/diag/setup.log"; echo "probe: setup failed"; exit 1; }
  cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR=ON -DDNNBENCH_WITH_CUDNN=ON \
    -DDNNBENCH_WITH_ONEDNN=OFF > "$OUT_DIR/diag/configure.log" 2>&1
  cmake --build "$BUILD" --target dnnbench -j "$(nproc)" > "$OUT_DIR/diag/build.log" 2>&1 || {
    grep -E "error" -A3 "$OUT_DIR/diag/build.log" | head -30; echo "probe: build failed"; exit 1; }
  echo "probe: built in $(( $(date +%s) - t0 )) s"
  BIN=$BUILD/dnnbench
fi
S=graphs/samples
probe() {  # probe NAME GRAPH...
  local name=$1; shift
  # The caller's time limit must not cut the tarball off: stop probing past the budget.
  if [ $(( $(date +%s) - t0 )) -gt "${PROBE_BUDGET_S:-100}" ]; then echo "== $name: skipped (budget)"; return; fi
  local list; list=$(printf "%s," "$@"); list=${list%,}
  CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$OUT_DIR/diag/$name.cudnn.log" \
    timeout 25 "$BIN" run -g "$list" --provider cudnn --max-engines 3 --warmup 1 --warmup-max-ms 0 \
    --iters 2 --batch 1 --no-kernel-activity --isolate none -v -o "$OUT_DIR/diag/$name.json" \
    > "$OUT_DIR/diag/$name.txt" 2>&1
  echo "== $name rc=$? ($(( $(date +%s) - t0 )) s)"
  python3 - "$OUT_DIR/diag/$name.json" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("  no json:", e); sys.exit()
for g in d["graphs"]:
    if not g["results"]:
        print("  %s: GRAPH %s %s" % (g["graph_name"], g["status"], (g.get("error_message") or "")[:240]))
        continue
    parts, msgs = [], []
    for r in g["results"]:
        c = r.get("correctness") or {}
        err = c.get("norm_rel_error")
        parts.append("%s:%s%s" % (r["engine_id"], r["status"][:4], "(%.0e)" % err if err is not None else ""))
        m = (r.get("skip_reason") or r.get("error_message") or "")[:240]
        if m and m not in msgs: msgs.append(m)
    print("  %s: %s" % (g["graph_name"], " ".join(parts)))
    for m in msgs[:1]: print("     > " + m)
PY
}
POOL="$S/resample_maxpool_3x3_s2.json $S/resample_avgpool_include_padding.json $S/resample_avgpool_exclude_padding.json $S/resample_maxpool_3d.json $S/resample_maxpool_3x3_s2_nhwc_fp16.json $S/resample_avgpool_include_padding_nhwc_fp16.json $S/resample_avgpool_exclude_padding_nhwc_fp16.json $S/resample_maxpool_3d_ndhwc_fp16.json"
BN="$S/batchnorm_inference.json $S/batchnorm_inference_variance_ext.json $S/batchnorm_inference_nhwc_fp16.json $S/batchnorm_inference_variance_ext_nhwc_fp16.json"
RMS="$S/rmsnorm_training.json $S/rmsnorm_inference_bias.json"
RMSNEW="$S/rmsnorm_training_hidden.json $S/rmsnorm_inference_hidden_bias.json $S/rmsnorm_inference_hidden_bf16.json"
PW="$S/pointwise_add_bias_broadcast.json $S/pointwise_identity.json $S/pointwise_mul_row_broadcast.json $S/pointwise_add_bias_broadcast_nhwc.json $S/pointwise_relu.json"
RED="$S/reduction_add.json $S/reduction_max.json $S/reduction_min.json $S/reduction_mul.json $S/reduction_avg.json $S/reduction_norm1.json $S/reduction_norm2.json $S/reduction_add_per_channel_nhwc.json $S/reduction_max_spatial_nhwc.json"
MM="$S/matmul_broadcast_batch_fp32.json $S/matmul_broadcast_weights_fp16.json $S/matmul_batched_fp32.json"
BNT="$S/batchnorm_training.json $S/batchnorm_training_running_nhwc_fp16.json $S/batchnorm_backward.json $S/batchnorm_backward_nhwc_fp16.json"
probe pool $POOL
probe bn $BN $BNT
probe rms $RMS $RMSNEW
probe pw $PW
probe red $RED
probe mm $MM
# cuDNN's reasons, deduplicated, per alternative.
for f in "$OUT_DIR"/diag/*.cudnn.log; do
  [ -f "$f" ] || continue
  echo "-- $(basename "$f"): $(grep -c . "$f") lines; distinct reasons:"
  grep -E "Reason|Error:|Warning:" "$f" | sed -E 's/^[^A-Za-z]*//' | cut -c1-220 | sort | uniq -c | sort -rn | head -6
done
tar czf "$OUT_DIR/probe.tgz" -C "$OUT_DIR" diag && rm -rf "$OUT_DIR/diag"
echo "probe: done in $(( $(date +%s) - t0 )) s"
