#!/usr/bin/env bash
# dnnbench's top pick beside PyTorch's own call of the same problem, in matched conditions (same
# library, torch.randn-like data, the same power regime), sustained then paced, in one run:
# bench/matched_conditions.py says how. On the GPU machine, from the repository root, once
# scripts/gpu-run.sh (or bench/gpu-check.sh's build stages) built the binary:
#
#   bench/matched-conditions.sh build/gpu919/dnnbench [OUT_DIR] [matched_conditions.py options]
#
# The cuDNN 9.19 build (build/gpu919, against PyTorch's wheel) is the one to use: both sides then
# load the same libcudnn. The whole set (58 graphs) in both regimes is planned for ~5 minutes on an
# H200: --deadline-s (default 360) splits the time between the regimes, dnnbench runs past its
# share are stopped (SIGTERM: the rows so far are kept), and PyTorch shortens its warm-ups and
# samples when late; the profiler pass and the report come after. Options worth knowing: --quick (9 graphs), --subset gemm,conv,attention,
# --only REGEX, --regimes sustained, --conv-directions all, --deadline-s S (default 360),
# --torch-fresh '^decode_' (those graphs' PyTorch calls timed in a new process each),
# --torch-passes 2 (PyTorch timed twice, the second pass in reverse order: the report adds PyTorch's
# own A/A, how many rows a repeat of the reference alone puts outside ±3%; ~2 min more sustained),
# --dnnbench-arg=--max-time-ms=500. Environment:
#   CUDNN_FROM_TORCH  1: put PyTorch's cuDNN first on the loader path (default: 1 when the binary's
#                     path holds "919", as gpu-check.sh's 9.19 build does)
#   CAP_S             hard limit on the Python run in seconds (default 570: the tarball is packed
#                     inside a 10-minute limit on the caller's side)
#
# Everything lands in OUT_DIR (default $OUT/matched-conditions, else out/matched-conditions) and in
# one tarball, $OUT/matched-conditions.tgz (one file to copy back from the GPU machine), with the
# markdown table and the console copied beside it.
set -uo pipefail
cd "$(dirname "$0")/.."
DNNBENCH=${1:?usage: bench/matched-conditions.sh DNNBENCH [OUT_DIR] [options]}
shift
RESULTS=${OUT:-out}
OUT_DIR=${RESULTS}/matched-conditions
if [ $# -gt 0 ] && [[ "$1" != -* ]]; then OUT_DIR=$1; shift; fi
mkdir -p "$OUT_DIR" "$RESULTS"
[ -x "$DNNBENCH" ] || { echo "matched-conditions: no executable $DNNBENCH"; exit 1; }

. bench/lib/gpu-env.sh  # the loader path (GPU_RUN_PREFIX) and torch_cudnn_dir
from_torch=${CUDNN_FROM_TORCH:-}
[ -z "$from_torch" ] && [[ "$DNNBENCH" == *919* ]] && from_torch=1
if [ "${from_torch:-0}" = 1 ]; then
  # The system's libcudnn.so.9 is found before the wheel's unless the loader is told (gpu-check.sh).
  cudnn_dir=$(torch_cudnn_dir)
  [ -n "$cudnn_dir" ] && export LD_LIBRARY_PATH="$cudnn_dir/lib:$LD_LIBRARY_PATH"
fi

pack() {
  cp "$OUT_DIR/matched-conditions.md" "$RESULTS/" 2> /dev/null
  tar czf "$RESULTS/matched-conditions.tgz" -C "$OUT_DIR" . 2> /dev/null
  echo "matched-conditions: packed $OUT_DIR into $RESULTS/matched-conditions.tgz at ${SECONDS} s"
}
trap pack EXIT

{
  echo "dnnbench $DNNBENCH ($("$DNNBENCH" --version 2> /dev/null | head -1)); LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
  nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,temperature.gpu --format=csv 2> /dev/null
  "$DNNBENCH" list-providers 2> /dev/null
} | tee "$OUT_DIR/machine.txt"

timeout "${CAP_S:-570}" python3 -u bench/matched_conditions.py --dnnbench "$DNNBENCH" --out "$OUT_DIR" \
  --deadline-s "${DEADLINE_S:-360}" "$@" 2>&1 | tee "$OUT_DIR/console.txt"
rc=${PIPESTATUS[0]}
cp "$OUT_DIR/console.txt" "$RESULTS/matched-conditions-console.txt" 2> /dev/null
exit "$rc"
