#!/usr/bin/env bash
# The torch provider's attention (issue 15) on the GPU machine, in one short cold call: builds
# the PyTorch-cuDNN (9.19) binary with the torch module and its gpu tests only, runs TorchGpu.*,
# the fp8 sample on cuDNN and cuBLASLt, then the forward attention perf graphs on cudnn (top
# engine) and torch (ATen's pick and each SDPA backend), and prints one line per row. Results in
# $OUT/sdpa.tgz.
#
#   bench/torch-sdpa-gpu.sh        (device tool: carry [".debs"])
set -uo pipefail
cd "$(dirname "$0")/.."
O=${OUT:-out}/sdpa
mkdir -p "$O"
trap 'tar czf "${OUT:-out}/sdpa.tgz" -C "$O" . 2> /dev/null; echo "== done at ${SECONDS} s"' EXIT
CUDNN919=$(python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])")
CUDNN_ROOT="$CUDNN919" GPU_RUN_TORCH=1 GPU_RUN_SKIP_TESTS=1 GPU_RUN_SKIP_SMOKE=1 GPU_RUN_BUILD=build/gpu919 \
  GPU_RUN_TARGETS="dnnbench dnnbench_torch dnnbench_torch_gpu_tests" \
  timeout "${BUILD_S:-150}" scripts/gpu-run.sh "$O/build" > "$O/build.log" 2>&1
echo "build rc $? at ${SECONDS} s; warnings: $(grep -c 'warning:' "$O/build/build.log" 2> /dev/null)"
grep -E "error:|torch provider" "$O/build.log" "$O/build/build.log" 2> /dev/null | head -20
export LD_LIBRARY_PATH="$CUDNN919/lib:/tmp/dnnbench-prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
B=build/gpu919/dnnbench
[ -x "$B" ] || exit 1
DNNBENCH_TEST_HANG_S=50 timeout 70 build/gpu919/tests/dnnbench_torch_gpu_tests > "$O/torch-gpu-tests.log" 2>&1
echo "TorchGpu rc $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Which is|skip_reason" "$O/torch-gpu-tests.log" | head -30
# fp8 (session 7's storage): the sample on cuDNN and cuBLASLt, validated by the reference.
timeout 40 "$B" run -g graphs/samples/matmul_fp8_e4m3.json --provider cudnn,cublaslt --isolate none -v \
  -o "$O/fp8.json" > "$O/fp8.log" 2>&1
echo "fp8 sample rc $?"; grep -E "^  (cudnn|cublaslt) |^Summary" "$O/fp8.log" | head -12
A=graphs/perf/attention
timeout "${RUN_S:-70}" "$B" run -g "$(ls $A/*fwd*.json | tr '\n' ',' | sed 's/,$//')" --provider cudnn,torch \
  --max-engines 5 --isolate none --min-time-ms 5 --max-time-ms 100 -q -o "$O/attention.json" > "$O/attention.log" 2>&1
echo "attention run rc $?"; grep -E "^Summary|^  (cudnn|torch):" "$O/attention.log"
python3 - "$O/attention.json" <<'PY'
import json, sys
for g in json.load(open(sys.argv[1]))["graphs"]:
    seen_cudnn = False
    for r in g["results"]:
        if r["provider"] == "cudnn":
            if seen_cudnn:
                continue
            seen_cudnn = True
        ms = (r.get("gpu_kernel_stats") or {}).get("median_ms")
        kern = " + ".join(k["name"][:40] for k in (r.get("kernels") or [])[:3])
        what = f"{ms * 1e3:9.1f} us" if ms and r.get("passed") else (r.get("skip_reason") or r.get("error_message") or r["status"])[:110]
        print(f"{g['graph_name'][:44]:44} {r['provider']:6} {r['engine_id']:22} {what}  {kern}")
PY
