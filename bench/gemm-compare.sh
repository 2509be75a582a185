#!/usr/bin/env bash
# cuDNN, cuBLASLt (and the torch provider where it is built) on the GEMM perf set in ONE dnnbench
# run, then bench/lib/gemm_compare.py: a table per graph (best cuDNN plan, cuBLASLt's heuristic and
# best plan, the torch rows) beside torch.matmul timed by CUDA-graph replay as the independent
# anchor (bench/RESULTS.md, issue 15). Run from the repository root on the GPU machine after
# scripts/gpu-run.sh built build/gpu/dnnbench:
#
#   bench/gemm-compare.sh [OUT_DIR]
#
# Environment (defaults keep the run near a minute on an H200 for the 26 GEMMs):
#   GRAPHS        graph files (default: graphs/perf/gemm/*.json)
#   MAX_ENGINES   engines per provider and graph, the heuristic's top N (default 2)
#   ORACLE_PLANS  plans the oracle sweeps per row (default 8); ORACLE_SECONDS per row (default 0.5)
#   NO_ORACLE=1   OOTB rows only
#   SAMPLES       anchor replays per graph (default 30)
#   DNNBENCH      the binary (default build/gpu/dnnbench)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out/gemm-compare}}
mkdir -p "$OUT_DIR"
DNNBENCH=${DNNBENCH:-build/gpu/dnnbench}
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX
if [ -z "${GRAPHS:-}" ]; then GRAPHS="$(ls graphs/perf/gemm/*.json | tr '\n' ' ')"; fi
read -r -a graphs <<< "$GRAPHS"
graph_args=()
for g in "${graphs[@]}"; do graph_args+=(-g "$g"); done

# The providers this binary has: cudnn and cublaslt, and torch once that provider is merged.
built="$("$DNNBENCH" list-providers 2>/dev/null || true)"
providers=()
for p in cudnn cublaslt torch; do
  if grep -qE "^\s*$p\b" <<< "$built"; then providers+=("$p"); fi
done
[ ${#providers[@]} -gt 0 ] || { echo "gemm-compare: $DNNBENCH has none of cudnn, cublaslt, torch"; exit 1; }
provider_list=$(IFS=,; echo "${providers[*]}")
oracle=(--oracle --oracle-max-plans "${ORACLE_PLANS:-8}" --oracle-max-seconds "${ORACLE_SECONDS:-0.5}")
[ "${NO_ORACLE:-0}" = 1 ] && oracle=()
# Short rows: the adaptive rule within 5-100 ms per row (every GEMM here runs 3 us - 1.5 ms).
echo "gemm-compare: ${#graphs[@]} graphs, providers $provider_list, top ${MAX_ENGINES:-2} engines, ${oracle[*]:-no oracle}"
start=$(date +%s)
"$DNNBENCH" run "${graph_args[@]}" --provider "$provider_list" --max-engines "${MAX_ENGINES:-2}" --warmup 3 \
  --min-time-ms 5 --max-time-ms 100 "${oracle[@]}" -q -o "$OUT_DIR/gemm.json" > "$OUT_DIR/gemm.log" 2>&1 || true
echo "gemm-compare: dnnbench $(( $(date +%s) - start )) s"; tail -3 "$OUT_DIR/gemm.log"
start=$(date +%s)
python3 bench/lib/gemm_compare.py "$OUT_DIR/gemm.json" "${graphs[@]}" --samples "${SAMPLES:-30}" | tee "$OUT_DIR/compare.txt"
rc=${PIPESTATUS[0]}
echo "gemm-compare: anchor and table $(( $(date +%s) - start )) s"
exit "$rc"
