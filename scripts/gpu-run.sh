#!/usr/bin/env bash
# The measurement build for the GPU machine's benchmarks (bench/): a release build in build/gpu with
# warnings as errors, then the `gpu` and `unit` tests and a smoke suite over graphs/samples with
# --provider cudnn. A user does not need it: `DNNBENCH_DEBS=.debs scripts/run-samples` and
# `DNNBENCH_DEBS=.debs scripts/test` build cuDNN (and every other provider found) there the same way
# (README). Dependencies come from scripts/setup with DNNBENCH_DEBS (default .debs, made here by
# scripts/gpu-prepare.sh and copied to the GPU machine with the checkout).
#
#   scripts/gpu-run.sh [OUT_DIR]        results and logs go to OUT_DIR (default: $OUT or out/gpu)
#
# Environment: CUDNN_ROOT (another cuDNN, e.g. PyTorch's site-packages/nvidia/cudnn),
# DNNBENCH_CUDNN_HEUR_MODE (a|b|fallback), GPU_RUN_SKIP_TESTS=1, GPU_RUN_SKIP_SMOKE=1,
# GPU_RUN_ONLY_GPU_TESTS=1 (the `gpu` label only), GPU_RUN_WERROR=OFF (warnings as errors is the default),
# GPU_RUN_TARGETS="dnnbench ..." (build only those targets),
# GPU_RUN_TORCH=auto|1|0: the torch provider against the PyTorch wheel's LibTorch (CUDA). auto (the
# default) lets CMake decide: built only when the cudnn provider links PyTorch's own cuDNN (one
# process loads one libcudnn.so.9; docs/providers.md, "torch"). 1 builds it anyway (its rows name
# the cuDNN loaded); 0 never.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out/gpu}}
BUILD=${GPU_RUN_BUILD:-build/gpu}
mkdir -p "$OUT_DIR"

# 1. Dependencies: Debian packages unpacked into .deps/ (scripts/setup; never installed).
DNNBENCH_DEBS=${DNNBENCH_DEBS:-.debs} scripts/setup || exit 2

# 2. Configure and build.
# LibTorch: CMake finds the wheel's itself where its cuDNN is the one linked (auto).
torch_args=()
case "${GPU_RUN_TORCH:-auto}" in
  0) torch_args=(-DDNNBENCH_WITH_TORCH=OFF) ;;
  1) torch_prefix=$(python3 -c "import torch; print(torch.utils.cmake_prefix_path)" 2>/dev/null) &&
       torch_args=(-DTorch_DIR="$torch_prefix/Torch") ;;
esac
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader || true
# Warnings are errors here too, as in CI: g++ 13 on the GPU machine built with 0 warnings on
# 2026-12-01 (bench/RESULTS.md). GPU_RUN_WERROR=OFF lets a new compiler's new warning
# through for a measurement run.
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR="${GPU_RUN_WERROR:-ON}" \
  ${CUDNN_ROOT:+-DCUDNN_ROOT="$CUDNN_ROOT"} "${torch_args[@]}" 2>&1 | tee "$OUT_DIR/configure.log" | grep -E "dnnbench|Error|error"
# -k 0: a target that fails (another room's test, say) must not stop the others.
cmake --build "$BUILD" -j "$(nproc)" ${GPU_RUN_TARGETS:+--target $GPU_RUN_TARGETS} -- -k 0 > "$OUT_DIR/build.log" 2>&1
build_rc=$?
if [ $build_rc -ne 0 ]; then grep -E "error|FAILED" -A3 "$OUT_DIR/build.log" | head -40; echo "gpu-run: build had failures"; fi
[ -x "$BUILD/dnnbench" ] || { echo "gpu-run: no dnnbench binary"; exit 1; }
echo "gpu-run: build done (rc $build_rc)"
"$BUILD/dnnbench" list-providers

# 3. Tests: the gpu label, then the unit label.
rc=$build_rc
if [ "${GPU_RUN_SKIP_TESTS:-0}" != 1 ]; then
  ctest --test-dir "$BUILD" -L gpu --output-on-failure --timeout 300 > "$OUT_DIR/ctest-gpu.log" 2>&1 || rc=1
  grep -E "tests passed|Failed|\*\*\*|Total Test" "$OUT_DIR/ctest-gpu.log" | tail -15
  if [ "${GPU_RUN_ONLY_GPU_TESTS:-0}" != 1 ]; then
    ctest --test-dir "$BUILD" -L unit -j "$(nproc)" --timeout 300 > "$OUT_DIR/ctest-unit.log" 2>&1 || rc=1
    grep -E "tests passed|Failed|\*\*\*|Total Test" "$OUT_DIR/ctest-unit.log" | tail -15
  fi
fi

# 4. Smoke suite: every sample graph on the cudnn provider.
if [ "${GPU_RUN_SKIP_SMOKE:-0}" != 1 ]; then
  # Correctness is the point here: a fixed, small sample count keeps the suite to minutes.
  "$BUILD/dnnbench" run -g graphs/samples --provider cudnn --warmup 2 --warmup-max-ms 0 --iters 10 -o "$OUT_DIR/smoke.json" \
    > "$OUT_DIR/smoke.log" 2>&1
  echo "gpu-run: smoke exit code $?"
  tail -40 "$OUT_DIR/smoke.log"
fi
exit $rc
