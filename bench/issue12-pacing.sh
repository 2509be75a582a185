#!/usr/bin/env bash
# Issue 12, session 4, on the GPU machine: build, the gpu tests and the unit tests this change
# touches, then the Nsight Compute cross-check (power-cap pacing on by default) and the overhead
# of a suite. Results in one tarball under $OUT.
#
#   bench/issue12-pacing.sh            (device tool: carry [".debs"])
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-out}/i12
mkdir -p "$OUT_DIR"
GPU_RUN_SKIP_SMOKE=1 GPU_RUN_ONLY_GPU_TESTS=1 scripts/gpu-run.sh "$OUT_DIR" 2>&1 | tail -25
ctest --test-dir build/gpu -R "Compare|HostTensor|ForEachElement|ClockS|MeasurementModes|Json|Option" -j 16 \
  --timeout 120 > "$OUT_DIR/ctest-touched.log" 2>&1
grep -E "tests passed|Failed|\*\*\*" "$OUT_DIR/ctest-touched.log" | tail -8
REPEATS=${REPEATS:-2} bench/ncu-check.sh "$OUT_DIR/ncu" 2>&1 | grep -v "^rn50\|^llama\|^bert" | tail -14
EXTRA="${OVERHEAD_EXTRA:---max-engines 4}" bench/overhead.sh "$OUT_DIR/overhead" 2>&1 | tail -10
tar czf "${OUT:-out}/issue12-pacing.tgz" -C "$OUT_DIR" . && rm -rf "$OUT_DIR"
