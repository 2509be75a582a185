#!/usr/bin/env bash
# dnnbench's cuDNN rows beside PyTorch's own timing of the same problems (cudnn.benchmark False
# and True), on the GPU machine, in one go; superseded as the timing reference by
# bench/matched-conditions.sh (bench/probes/README.md). After scripts/gpu-run.sh built
# build/gpu/dnnbench:
#
#   bench/probes/torch-compare.sh [OUT_DIR]
#
# 1. dnnbench over the graphs with --oracle (run1.json): per graph, cuDNN's top pick (the first
#    engine's OOTB row) and the best plan measured (every row, every oracle winner);
# 2. the same suite again without the oracle (run2.json), for the repeat-run check;
# 3. bench/lib/torch_compare.py: PyTorch with cudnn.benchmark False and True, side by side.
#
# Environment (defaults keep the whole run near 8 minutes on an H200: measured 13.5 s per graph
# with these settings, 33 graphs by default):
#   GRAPHS        graph files (default: the 23 fp16 forward convolutions of graphs/perf/resnet50
#                 and the 10 fp16 matmuls of graphs/perf/gemm)
#   MAX_ENGINES   engines per graph, the heuristic's top N (default 3)
#   ORACLE_PLANS  plans the oracle sweeps per row (default 4); ORACLE_SECONDS per row (default 1)
#   NO_REPEAT=1   skip run 2 (the repeat-run check)
#   DNNBENCH      the binary (default build/gpu/dnnbench)
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT_DIR=${1:-${OUT:-out/torch-compare}}
mkdir -p "$OUT_DIR"
DNNBENCH=${DNNBENCH:-build/gpu/dnnbench}
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX
if [ -z "${GRAPHS:-}" ]; then
  GRAPHS="$(ls graphs/perf/resnet50/*_fwd_*fp16.json graphs/perf/gemm/*fp16.json | tr '\n' ' ')"
fi
read -r -a graphs <<< "$GRAPHS"
graph_args=()
for g in "${graphs[@]}"; do graph_args+=(-g "$g"); done
# Rows are short: the adaptive rule with a 20-500 ms window per row (batches of ~1 ms).
common=(--provider cudnn --max-engines "${MAX_ENGINES:-3}" --warmup 5 --min-time-ms 20 --max-time-ms 500 -q)

echo "torch-compare: ${#graphs[@]} graphs, top ${MAX_ENGINES:-3} engines each"
start=$(date +%s)
"$DNNBENCH" run "${graph_args[@]}" "${common[@]}" --oracle --oracle-max-plans "${ORACLE_PLANS:-4}" \
  --oracle-max-seconds "${ORACLE_SECONDS:-1}" -o "$OUT_DIR/run1.json" > "$OUT_DIR/run1.log" 2>&1 || true
echo "torch-compare: dnnbench run 1 (oracle) $(( $(date +%s) - start )) s"; tail -3 "$OUT_DIR/run1.log"
repeat=()
if [ "${NO_REPEAT:-0}" != 1 ]; then
  start=$(date +%s)
  "$DNNBENCH" run "${graph_args[@]}" "${common[@]}" -o "$OUT_DIR/run2.json" > "$OUT_DIR/run2.log" 2>&1 || true
  echo "torch-compare: dnnbench run 2 (repeat) $(( $(date +%s) - start )) s"
  repeat=(--repeat "$OUT_DIR/run2.json")
fi
start=$(date +%s)
python3 bench/lib/torch_compare.py "${graphs[@]}" --dnnbench "$OUT_DIR/run1.json" "${repeat[@]}" \
  | tee "$OUT_DIR/compare.txt"
echo "torch-compare: PyTorch timing $(( $(date +%s) - start )) s"
