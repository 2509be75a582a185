#!/usr/bin/env bash
# Run on the GPU machine, in the repository root, after scripts/gpu-prepare.sh ran here and
# .debs/ travelled with the tree (device tool: carry [".debs"]). Unpacks the dependencies into a
# prefix, configures a release build with the cudnn provider, builds, runs the `gpu` and `unit`
# tests and a smoke suite over graphs/samples with --provider cudnn.
#
#   scripts/gpu-run.sh [OUT_DIR]        results and logs go to OUT_DIR (default: $OUT or out/gpu)
#
# Environment: CUDNN_ROOT (another cuDNN, e.g. PyTorch's site-packages/nvidia/cudnn),
# DNNBENCH_CUDNN_HEUR_MODE (a|b|fallback), GPU_RUN_SKIP_TESTS=1, GPU_RUN_SKIP_SMOKE=1,
# GPU_RUN_ONLY_GPU_TESTS=1 (the `gpu` label only), GPU_RUN_WERROR=OFF (warnings as errors is the default),
# GPU_RUN_TARGETS="dnnbench ..." (build only those targets),
# GPU_RUN_TORCH=auto|1|0: the torch provider against the PyTorch wheel's LibTorch (CUDA). auto (the
# default) builds it only when CUDNN_ROOT is PyTorch's own cuDNN: one process loads one
# libcudnn.so.9, so with the system cuDNN linked for the cudnn provider, torch's rows would run on
# that one instead of the cuDNN torch was built with (docs/providers.md, "torch"). 1 builds it
# anyway (its rows name the cuDNN loaded); 0 never.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out/gpu}}
PREFIX=${GPU_RUN_PREFIX:-/tmp/dnnbench-prefix}
BUILD=${GPU_RUN_BUILD:-build/gpu}
mkdir -p "$OUT_DIR" "$PREFIX"

# 1. Dependencies: Debian packages unpacked, never installed (no registry there; `dpkg -x` into
# a prefix leaves the system alone). Their CMake configs are relocatable.
shopt -s nullglob
debs=(.debs/*.deb)
if [ ${#debs[@]} -eq 0 ]; then echo "gpu-run: no .debs/*.deb; run scripts/gpu-prepare.sh first and carry .debs" >&2; exit 2; fi
for f in "${debs[@]}"; do dpkg -x "$f" "$PREFIX"; done
# Fallback runtime libraries (.debs/fallback): only those whose soname the system lacks.
for pair in libnettle8:libnettle.so.8 libxml2:libxml2.so.2 libicu72:libicuuc.so.72; do
  pkg=${pair%%:*} soname=${pair#*:}
  if ! ldconfig -p | grep -q "$soname"; then
    for f in .debs/fallback/${pkg}_*.deb; do echo "gpu-run: system lacks $soname; using $f"; dpkg -x "$f" "$PREFIX"; done
  fi
done
# libfmt's shared library lives in the prefix at run time too.
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# 2. Configure and build.
# LibTorch: the wheel ships its headers, libraries and CMake config (torch.utils.cmake_prefix_path).
torch_args=() torch_why=""
if [ "${GPU_RUN_TORCH:-auto}" != 0 ]; then
  torch_prefix=$(python3 -c "import torch; print(torch.utils.cmake_prefix_path)" 2>/dev/null) || torch_prefix=""
  torch_cudnn=$(python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])" 2>/dev/null) || torch_cudnn=""
  if [ -z "$torch_prefix" ]; then
    torch_why="python3 cannot import torch"
  elif [ "${GPU_RUN_TORCH:-auto}" = auto ] && [ "$(realpath -m "${CUDNN_ROOT:-/nonexistent}")" != "$(realpath -m "$torch_cudnn")" ]; then
    torch_why="CUDNN_ROOT is not PyTorch's cuDNN ($torch_cudnn): set CUDNN_ROOT=$torch_cudnn, or GPU_RUN_TORCH=1"
  else
    torch_args=(-DDNNBENCH_WITH_TORCH=ON -DTorch_DIR="$torch_prefix/Torch")
  fi
fi
[ ${#torch_args[@]} -eq 0 ] && torch_args=(-DDNNBENCH_WITH_TORCH=OFF) && echo "gpu-run: torch provider off${torch_why:+: $torch_why}"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv,noheader || true
# Warnings are errors here too, as in CI: g++ 13 on the GPU machine built with 0 warnings on
# 2026-12-01 (bench/RESULTS.md, issue 12). GPU_RUN_WERROR=OFF lets a new compiler's new warning
# through for a measurement run.
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR="${GPU_RUN_WERROR:-ON}" \
  -DDNNBENCH_WITH_CUDNN=ON -DDNNBENCH_WITH_ONEDNN=OFF -DCMAKE_PREFIX_PATH="$PREFIX/usr" \
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
