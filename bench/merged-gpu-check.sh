#!/usr/bin/env bash
# One device call for a merged main: both GPU builds with warnings as errors (system cuDNN, with
# the gpu tests; PyTorch's cuDNN, for the library-version comparison), every `gpu`-labelled test,
# then the same ResNet-50 / GEMM subset on cuDNN 9.14 (system) and 9.19 (PyTorch's), compared with
# `dnnbench compare` (engine, heuristic and best views) and rendered with `dnnbench report --html`.
# Each stage is bounded so the call ends inside ~7 minutes. Results in $OUT/merged-gpu.tgz.
set -uo pipefail
cd "$(dirname "$0")/.."
R=/tmp/merged-gpu
mkdir -p "$R"
T0=$(date +%s)
mark() { echo "== $1 at +$(( $(date +%s) - T0 )) s"; }
PREFIX=/tmp/dnnbench-prefix
mkdir -p $PREFIX
for f in .debs/*.deb; do dpkg -x "$f" $PREFIX; done
ldconfig -p | grep -q libicuuc.so.72 || for f in .debs/fallback/libicu72_*.deb; do dpkg -x "$f" $PREFIX; done
export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
TORCH_CUDNN=$(python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,power.limit --format=csv,noheader
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR=ON -DDNNBENCH_WITH_CUDNN=ON -DDNNBENCH_WITH_ONEDNN=OFF
        -DCMAKE_PREFIX_PATH=$PREFIX/usr)
(cmake -S . -B build/gpu "${common[@]}" > $R/configure.log 2>&1 &&
 cmake --build build/gpu -j 10 > $R/build.log 2>&1; echo "system-cuDNN build (WERROR=ON, all targets) rc $?") &
(cmake -S . -B build/gpu-torch "${common[@]}" -DDNNBENCH_BUILD_TESTS=OFF -DCUDNN_ROOT="$TORCH_CUDNN" > $R/torch-configure.log 2>&1 &&
 cmake --build build/gpu-torch -j 6 --target dnnbench > $R/torch-build.log 2>&1; echo "PyTorch-cuDNN build (WERROR=ON) rc $?") &
wait
grep dnnbench: $R/configure.log
grep -h "warning:\|error:" $R/build.log $R/torch-build.log | head -5
mark builds
(cd build/gpu && timeout -k 5 150 ctest -L gpu --output-on-failure --timeout 100 > $R/ctest-gpu.log 2>&1; echo "gpu tests rc $?")
grep -E "tests passed|Failed|Total Test" $R/ctest-gpu.log | tail -8
mark tests
G=(graphs/perf/resnet50/rn50_res2_1x1_64_256_fwd_n32_nhwc_fp16.json graphs/perf/resnet50/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json
   graphs/perf/resnet50/rn50_res3_1x1_128_512_fwd_n32_nhwc_fp16.json graphs/perf/resnet50/rn50_res4_3x3_256_256_fwd_n32_nhwc_fp16.json
   graphs/perf/resnet50/rn50_res5_1x1_512_2048_fwd_n32_nhwc_fp16.json graphs/perf/gemm/bert_large_ffn_up_m4096_k1024_n4096_fp16.json)
args=(--provider cudnn --max-engines 4 --max-time-ms 300 --save-samples --isolate none -q)
gl=(); for g in "${G[@]}"; do [ -f "$g" ] && gl+=(-g "$g"); done
timeout -k 5 100 build/gpu/dnnbench run "${gl[@]}" "${args[@]}" -o $R/cudnn914.json > $R/run914.log 2>&1; echo "9.14 run rc $?"
LD_LIBRARY_PATH=$TORCH_CUDNN/lib:$LD_LIBRARY_PATH timeout -k 5 100 build/gpu-torch/dnnbench run "${gl[@]}" "${args[@]}" \
  -o $R/cudnn919.json > $R/run919.log 2>&1; echo "9.19 run rc $?"
tail -4 $R/run914.log $R/run919.log
mark runs
B=build/gpu/dnnbench
for by in heuristic engine best; do
  $B compare $R/cudnn914.json $R/cudnn919.json --by $by --json $R/compare-$by.json > $R/compare-$by.txt 2>&1; echo "compare --by $by rc $?"
done
cat $R/compare-heuristic.txt | head -60
$B report $R/cudnn914.json $R/cudnn919.json --html $R/report.html > /dev/null 2>&1; echo "report rc $? ($(stat -c %s $R/report.html 2>/dev/null) bytes)"
mark compare
tar -czf "${OUT:-/tmp}/merged-gpu.tgz" -C /tmp merged-gpu
