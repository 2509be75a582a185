#!/usr/bin/env bash
# dnnbench's kernel time for cuDNN's top pick beside Nsight Compute's own duration of the same
# kernels, on the GPU machine (issue 12). Run from the repository root after scripts/gpu-run.sh
# built build/gpu/dnnbench:
#
#   bench/ncu-check.sh [OUT_DIR]
#
# 1. ncu (--cache-control none --clock-control none, gpu__time_duration.sum) profiles every kernel
#    of one dnnbench process running the top pick of each graph with single-execution samples
#    (--batch 1 --no-graph-replay --iters 3, CUPTI off: ncu is the one profiler): ncu times each kernel alone, so it is the reference
#    for a kernel's own duration. The CUDA reference's kernels (dnnbench::...) separate graphs.
# 2. REPEATS (default 3) separate dnnbench runs of the same top picks at default settings.
# 3. bench/lib/ncu_compare.py: per graph, dnnbench median / ncu per-execution time, the distribution
#    of those ratios over graphs whose kernels take >= 5 us, and the spread of the repeat runs.
#
# Environment: NCU (default: bench/lib/gpu-env.sh finds it), GRAPHS (default: the fp16 forward convolutions of graphs/perf/resnet50 and the fp16
# matmuls of graphs/perf/gemm), REPEATS, DNNBENCH, EXTRA (more dnnbench flags for step 2).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out}/ncu}
mkdir -p "$OUT_DIR"
DNNBENCH=${DNNBENCH:-build/gpu/dnnbench}
. bench/lib/gpu-env.sh  # the loader path (GPU_RUN_PREFIX) and find_ncu (NCU)
if [ -z "${GRAPHS:-}" ]; then
  GRAPHS="$(ls graphs/perf/resnet50/*_fwd_*fp16.json graphs/perf/gemm/*fp16.json | tr '\n' ' ')"
fi
read -r -a graphs <<< "$GRAPHS"
graph_args=()
for g in "${graphs[@]}"; do graph_args+=(-g "$g"); done
NCU=$(find_ncu)
[ -n "$NCU" ] || { echo "ncu-check: no ncu (set NCU, or put ncu on PATH)"; exit 2; }

start=$(date +%s)
"$NCU" --cache-control none --clock-control none --metrics gpu__time_duration.sum --print-kernel-base demangled \
  --csv --page raw \
  "$DNNBENCH" run "${graph_args[@]}" --provider cudnn --max-engines 1 --isolate none --batch 1 --no-graph-replay \
  --warmup 2 --warmup-max-ms 0 --iters 3 --no-kernel-activity -q -o "$OUT_DIR/ncu-run.json" > "$OUT_DIR/ncu.csv" 2> "$OUT_DIR/ncu.err"
echo "ncu-check: ncu pass exit $? in $(( $(date +%s) - start )) s ($(grep -c . "$OUT_DIR/ncu.csv") lines)"
reps=()
for i in $(seq 1 "${REPEATS:-3}"); do
  start=$(date +%s)
  # shellcheck disable=SC2086
  "$DNNBENCH" run "${graph_args[@]}" --provider cudnn --max-engines 1 --isolate none -q ${EXTRA:-} \
    -o "$OUT_DIR/rep$i.json" > "$OUT_DIR/rep$i.log" 2>&1
  echo "ncu-check: repeat $i exit $? in $(( $(date +%s) - start )) s"
  reps+=("$OUT_DIR/rep$i.json")
done
python3 bench/lib/ncu_compare.py "$OUT_DIR/ncu.csv" "$OUT_DIR/ncu-run.json" "${reps[@]}" | tee "$OUT_DIR/compare.txt"
