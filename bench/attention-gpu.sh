#!/usr/bin/env bash
# Issue 13 (attention) on the GPU machine, in one go, after scripts/gpu-run.sh built build/gpu:
# the attention tests, the attention samples and perf graphs on cuDNN, and PyTorch's cuDNN and
# flash backends on the same perf graphs (bench/torch_compare.py). bench/RESULTS.md has the figures.
#   bench/attention-gpu.sh [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out/attention}}
mkdir -p "$OUT_DIR"
export LD_LIBRARY_PATH="${GPU_RUN_PREFIX:-/tmp/dnnbench-prefix}/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
BIN=${DNNBENCH:-build/gpu/dnnbench}
ctest --test-dir build/gpu -R "${TESTS:-Sdpa|OpRules|SamplesTest|CostTest|CudaReference}" --timeout 300 \
  > "$OUT_DIR/ctest.log" 2>&1
grep -E "tests passed|Failed|\*\*\*|Not Run" "$OUT_DIR/ctest.log" | tail -20
# The samples with the cuDNN backend's own log of why a graph or engine is refused.
CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$OUT_DIR/cudnn-samples.log" \
  "$BIN" run -g graphs/samples --op sdpa_fwd --op sdpa_bwd --provider cudnn --warmup 2 --warmup-max-ms 0 --iters 10 \
  -o "$OUT_DIR/samples.json" > "$OUT_DIR/samples.log" 2>&1
echo "attention samples: exit $?"; tail -25 "$OUT_DIR/samples.log"
# cuDNN's reasons for one forward and one backward perf graph, each in its own log.
for g in sdpa_bert_large_fwd_b8_h16_s512_d64_fp16 sdpa_bert_large_bwd_b8_h16_s512_d64_fp16; do
  CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$OUT_DIR/cudnn-$g.log" "$BIN" run -g "graphs/perf/attention/$g.json" \
    --provider cudnn --max-engines 3 --warmup 1 --iters 3 -q -o "$OUT_DIR/$g.json" > /dev/null 2>&1
  echo "cuDNN reasons for $g:"; grep -h "Reason" "$OUT_DIR/cudnn-$g.log" | sort | uniq -c | sort -rn | head -8
done
start=$(date +%s)
"$BIN" run -g graphs/perf/attention --provider cudnn --max-engines "${MAX_ENGINES:-3}" --warmup 5 --min-time-ms 20 \
  --max-time-ms 300 -o "$OUT_DIR/perf.json" > "$OUT_DIR/perf.log" 2>&1
echo "attention perf: exit $? in $(( $(date +%s) - start )) s"; tail -30 "$OUT_DIR/perf.log"
start=$(date +%s)
python3 bench/torch_compare.py graphs/perf/attention/*.json --dnnbench "$OUT_DIR/perf.json" \
  --samples "${SAMPLES:-30}" --warmup 5 > "$OUT_DIR/compare.txt" 2>&1
echo "torch compare: exit $? in $(( $(date +%s) - start )) s"; cat "$OUT_DIR/compare.txt"
