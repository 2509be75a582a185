#!/usr/bin/env bash
# Issue 12's last device call (see bench/issue12-gpu.sh for the stages of the first): both builds
# with warnings as errors (system cuDNN with the gpu tests; PyTorch's cuDNN for the measurements,
# so that the PyTorch comparison runs one library), the ncu cross-check with three repeat runs,
# the PyTorch comparison, an oracle timing on a subset and the samples A/A, each bounded so that
# the whole call ends in about 7.5 minutes. Logs in /tmp/issue12; the caller packs them.
set -uo pipefail
cd "$(dirname "$0")/.."
R=/tmp/issue12
mkdir -p "$R"
T0=$(date +%s)
left() { echo $(( ${BUDGET_S:-450} - ($(date +%s) - T0) )); }
mark() { echo "== $1 at +$(( $(date +%s) - T0 )) s"; }
PREFIX=/tmp/dnnbench-prefix
mkdir -p $PREFIX
for f in .debs/*.deb; do dpkg -x "$f" $PREFIX; done
ldconfig -p | grep -q libicuuc.so.72 || for f in .debs/fallback/libicu72_*.deb; do dpkg -x "$f" $PREFIX; done
export LD_LIBRARY_PATH=$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# nvidia.cudnn is a namespace package (its __file__ is None): take its path.
TORCH_CUDNN=$(python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])")
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw,power.limit,temperature.gpu --format=csv,noheader
common=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR=ON -DDNNBENCH_WITH_CUDNN=ON -DDNNBENCH_WITH_ONEDNN=OFF
        -DCMAKE_PREFIX_PATH=$PREFIX/usr)
(cmake -S . -B build/gpu "${common[@]}" > $R/configure.log 2>&1 &&
 cmake --build build/gpu -j 8 --target dnnbench dnnbench_gpu_tests > $R/build.log 2>&1; echo "system-cuDNN build (WERROR=ON) rc $?") &
(cmake -S . -B build/gpu-torch "${common[@]}" -DDNNBENCH_BUILD_TESTS=OFF -DCUDNN_ROOT="$TORCH_CUDNN" > $R/torch-configure.log 2>&1 &&
 cmake --build build/gpu-torch -j 8 --target dnnbench > $R/torch-build.log 2>&1; echo "PyTorch-cuDNN build (WERROR=ON) rc $?") &
wait
grep -h "warning:\|error:" $R/build.log $R/torch-build.log | head -5
mark builds
(cd build/gpu && ctest -R "MatmulRowsPass|GraphReplay" --output-on-failure --timeout 60 > $R/ctest.log 2>&1; echo "gpu tests rc $?")
grep -E "Failure|Expected|Which is|actual|error|Passed|Failed|rel error" $R/ctest.log | head -24
mark tests
export LD_LIBRARY_PATH=$TORCH_CUDNN/lib:$LD_LIBRARY_PATH
BIN=build/gpu-torch/dnnbench
$BIN list-providers | head -1
DNNBENCH=$BIN timeout -k 5 $(( $(left) - 200 )) bench/ncu-check.sh $R/ncu 2>&1 | tail -48
mark ncu
RN="$(ls graphs/perf/resnet50/*_fwd_*fp16.json | tr '\n' ' ')"
GEMM="$(ls graphs/perf/gemm/*fp16.json | tr '\n' ' ')"
# shellcheck disable=SC2086
timeout -k 5 90 python3 bench/torch_compare.py $RN $GEMM --dnnbench $R/ncu/rep1.json --repeat $R/ncu/rep2.json > $R/torch.txt 2>&1
grep -v "^rn50\|^bert\|^llama" $R/torch.txt | tail -12
mark torch
s=$(date +%s)
SUB="graphs/perf/resnet50/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json graphs/perf/resnet50/rn50_res3_1x1_128_512_fwd_n32_nhwc_fp16.json graphs/perf/resnet50/rn50_res4_3x3_256_256_fwd_n32_nhwc_fp16.json"
# shellcheck disable=SC2046
timeout -k 5 100 $BIN run $(for g in $SUB; do echo -g $g; done) --provider cudnn --max-engines 3 --oracle --isolate none -q \
  -o $R/oracle.json > $R/oracle.log 2>&1
echo "oracle top 3, 3 ResNet-50 graphs: exit $? in $(( $(date +%s) - s )) s"
python3 - $R/oracle.json <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for g in d["graphs"] for r in g["results"]]
t = [r.get("row_time_ms") or 0 for r in rows]
o = [r["oracle"]["sweep_time_ms"] for r in rows if r.get("oracle")]
n = [len(r["oracle"]["candidates"]) for r in rows if r.get("oracle")]
print(f"oracle rows {len(rows)}, row time sum {sum(t)/1e3:.1f} s (mean {sum(t)/len(t)/1e3:.1f} s), sweep mean {sum(o)/max(1,len(o))/1e3:.1f} s, candidates {n}")
print(f"run elapsed {d['metadata']['run_timing']['elapsed_s']:.1f} s; x 23/3 graphs = {d['metadata']['run_timing']['elapsed_s']*23/3/60:.1f} min")
PY
mark oracle
timeout -k 5 $(( $(left) - 25 )) bench/oracle-aa-gpu.sh $R/aa $(( $(left) - 40 )) 2>&1 | tail -9
mark aa
