#!/usr/bin/env bash
# Issue 17 on the H200, in one device call (bench/RESULTS.md has the numbers):
#   1. the cuDNN 9.14 build (scripts/gpu-run.sh), and PyTorch's cuDNN 9.19 build beside it;
#   2. --profile ncu on three perf graphs: ncu's kernel durations vs dnnbench's CUPTI kernel sum;
#   3. a tuning file made with cuDNN 9.14 (--oracle --export-plans, the top engine per graph);
#   4. --plans-from that file with cuDNN 9.19: stored winner vs today's pick, per graph.
# Usage: bench/profile_tuning_h200.sh OUT_DIR   (from the repository root, .debs carried);
# OUT_DIR.tgz then holds the logs, results, tuning files and ncu CSVs (not the .ncu-rep files).
set -uo pipefail
OUT_DIR=${1:-out/issue17}
mkdir -p "$OUT_DIR"
export PATH="/opt/nvidia/nsight-compute/2025.3.1:$PATH"
command -v ncu || ls -d /opt/nvidia/nsight-compute/*/ 2>/dev/null
# GPU_TESTS=1: also the `gpu`-labelled tests (about a minute more); default: the build only.
if [ "${GPU_TESTS:-0}" = 1 ]; then tests=(GPU_RUN_ONLY_GPU_TESTS=1); else tests=(GPU_RUN_SKIP_TESTS=1); fi
env "${tests[@]}" GPU_RUN_SKIP_SMOKE=1 scripts/gpu-run.sh "$OUT_DIR/build914" > "$OUT_DIR/gpu-run.log" 2>&1
echo "9.14 build: rc $?"; tail -3 "$OUT_DIR/gpu-run.log"
export LD_LIBRARY_PATH="/tmp/dnnbench-prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
CUDNN919=$(python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])" 2>/dev/null)
( cmake -S . -B build/gpu919 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WITH_CUDNN=ON -DDNNBENCH_WITH_ONEDNN=OFF \
    -DCMAKE_PREFIX_PATH=/tmp/dnnbench-prefix/usr -DCUDNN_ROOT="$CUDNN919" > "$OUT_DIR/cfg919.log" 2>&1 &&
  cmake --build build/gpu919 --target dnnbench -j 8 > "$OUT_DIR/build919.log" 2>&1; echo "9.19 build rc $?" ) &
B919=$!
P=graphs/perf/resnet50
G3="$P/rn50_res2_1x1_64_256_fwd_n32_nhwc_fp16.json,$P/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json,$P/rn50_res3_3x3_128_128_fwd_n32_nhwc_fp16.json"
# --timeout-s: each isolated graph and each ncu child is killed after 20 s (then a row error, not a lost run).
timeout 55 build/gpu/dnnbench run -g "$G3" --provider cudnn --max-engines 1 --timeout-s 20 --profile ncu -v \
  --profile-dir "$OUT_DIR/prof" -o "$OUT_DIR/ncu.json" > "$OUT_DIR/ncu.log" 2>&1
echo "ncu run: rc $?"; grep -E "Profile|kernel sum|error|refus" "$OUT_DIR/ncu.log" | head -20
timeout 30 build/gpu/dnnbench run -g "$G3" --provider cudnn --isolate none --max-engines 1 --oracle --oracle-max-plans 4 \
  --oracle-max-seconds 1 --export-plans "$OUT_DIR/plans914.jsonl" -o "$OUT_DIR/oracle914.json" > "$OUT_DIR/oracle914.log" 2>&1
echo "export: rc $? records $(wc -l < "$OUT_DIR/plans914.jsonl" 2>/dev/null)"
# The 9.19 half only while the call's time allows (DEADLINE_S, default 125 s of script time).
while kill -0 $B919 2>/dev/null && [ $SECONDS -lt "${DEADLINE_S:-125}" ]; do sleep 1; done
if ! kill -0 $B919 2>/dev/null && [ -x build/gpu919/dnnbench ] && [ $SECONDS -lt "${DEADLINE_S:-125}" ]; then
  # The system's libcudnn.so.9 (9.14) is found first unless the loader is told (seen 2026-12-01).
  export LD_LIBRARY_PATH="$CUDNN919/lib:$LD_LIBRARY_PATH"
  build/gpu919/dnnbench list-providers
  timeout 35 build/gpu919/dnnbench run -g "$G3" --provider cudnn --isolate none --plans-from "$OUT_DIR/plans914.jsonl" \
    -o "$OUT_DIR/plans919.json" > "$OUT_DIR/plans919.log" 2>&1
  echo "plans-from 9.19: rc $?"; sed -n '/Plans from the tuning file/,$p' "$OUT_DIR/plans919.log" | head -12
fi
echo "script time ${SECONDS} s"
tar czf "${TARBALL:-$OUT_DIR.tgz}" -C "$OUT_DIR" --exclude "*.ncu-rep" . 2>/dev/null; ls -la "${TARBALL:-$OUT_DIR.tgz}"; du -sh "$OUT_DIR"/prof 2>/dev/null
