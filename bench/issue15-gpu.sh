#!/usr/bin/env bash
# One device call for issue 15's cuBLASLt part, on the GPU machine from the repository root (after
# .debs/ travelled with the tree, as for scripts/gpu-run.sh):
#
#   bench/issue15-gpu.sh [OUT_DIR]          (default: $OUT/issue15 or out/issue15)
#
# 1. scripts/gpu-run.sh builds build/gpu (release, cuDNN, cuBLASLt, warnings as errors), no tests;
# 2. the cuBLASLt tests (the logic unit tests and the `gpu` tests of dnnbench_cublaslt_gpu_tests)
#    and three cuDNN gpu tests that go through the device code both providers now share
#    (providers/cuda/: streams, CUDA-graph replay, CUPTI kernels);
# 3. bench/gemm-compare.sh: one dnnbench run over cudnn, cublaslt (and torch where built) on
#    graphs/perf/gemm with --oracle, then the table beside torch.matmul's CUDA-graph anchor.
# Everything lands in OUT_DIR, packed as OUT_DIR/issue15.tgz (the device tool returns 8 files).
# BENCH_TIMEOUT (default 170 s) bounds step 3 so the pack always happens.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:+$OUT/issue15}}
OUT_DIR=${OUT_DIR:-out/issue15}
mkdir -p "$OUT_DIR"
start=$(date +%s)
GPU_RUN_SKIP_TESTS=1 GPU_RUN_SKIP_SMOKE=1 scripts/gpu-run.sh "$OUT_DIR/gpu" > "$OUT_DIR/gpu-run.log" 2>&1
echo "issue15: build rc $? in $(( $(date +%s) - start )) s"; tail -8 "$OUT_DIR/gpu-run.log"
export LD_LIBRARY_PATH="${GPU_RUN_PREFIX:-/tmp/dnnbench-prefix}/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
start=$(date +%s)
ctest --test-dir build/gpu -R "CublasLt|KnowTheCublasLt|CudnnProvider\.(VersionAndDeviceProperties|MatmulRowsPass|GraphReplayCanBeSwitchedOff)" \
  --output-on-failure --timeout 120 > "$OUT_DIR/ctest-cublaslt.log" 2>&1
echo "issue15: tests rc $? in $(( $(date +%s) - start )) s"
grep -E "tests passed|Failed|\*\*\*|Total Test" "$OUT_DIR/ctest-cublaslt.log" | tail -12
timeout "${BENCH_TIMEOUT:-170}" bench/gemm-compare.sh "$OUT_DIR/gemm"
echo "issue15: gemm-compare rc $?"
tar czf "$OUT_DIR/../issue15.tgz" -C "$OUT_DIR" --exclude='*.o' . 2>/dev/null && mv "$OUT_DIR/../issue15.tgz" "$OUT_DIR/"
ls -la "$OUT_DIR"
