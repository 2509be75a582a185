#!/usr/bin/env bash
# Session 4's merged main on the H200 in one device call (issues 12, 13, 15, 16, 17): build with
# warnings as errors, the `gpu` tests beside a smoke over graphs/samples on cudnn and cublaslt,
# the imported models on cuDNN, --profile ncu and the tuning file (9.14 -> 9.19), the GEMM
# comparison (cudnn, cublaslt, torch.matmul) and the attention perf graphs. Every stage has a
# time limit inside DEADLINE_S of script time (later stages get what is left), so the summary
# and the tarball always come back.
#
#   bench/session4-gpu-check.sh          (device tool: carry [".debs"]; results in $OUT/s4.tgz)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-out}/s4
mkdir -p "$OUT_DIR"
DEADLINE=${DEADLINE_S:-420}
export PATH="/opt/nvidia/nsight-compute/2025.3.1:$PATH"
export LD_LIBRARY_PATH="/tmp/dnnbench-prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
B=build/gpu/dnnbench
# Seconds a stage may take: what it asks for, or what is left before the deadline.
cap() {
  local want=$1 left=$((DEADLINE - SECONDS))
  [ "$left" -lt "$want" ] && want=$left
  [ "$want" -lt 1 ] && want=1
  echo "$want"
}
stage() { echo "== $1 (at ${SECONDS} s)"; }
pack() { tar czf "${OUT:-out}/s4.tgz" -C "$OUT_DIR" --exclude "*.ncu-rep" . 2> /dev/null; echo "== done at ${SECONDS} s"; }

stage "build (system cuDNN)"
GPU_RUN_SKIP_TESTS=1 GPU_RUN_SKIP_SMOKE=1 scripts/gpu-run.sh "$OUT_DIR/build" > "$OUT_DIR/gpu-run.log" 2>&1
echo "build rc $?, warnings: $(grep -c 'warning:' "$OUT_DIR/build/build.log")"
grep -E "providers built|error:" "$OUT_DIR/gpu-run.log" "$OUT_DIR/build/build.log" | head -12
[ -x "$B" ] || { pack; exit 1; }
"$B" list-providers
CUDNN919=$(python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])" 2> /dev/null)
( cmake -S . -B build/gpu919 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WITH_ONEDNN=OFF -DDNNBENCH_WITH_TORCH=OFF \
    -DCMAKE_PREFIX_PATH=/tmp/dnnbench-prefix/usr -DCUDNN_ROOT="$CUDNN919" &&
  cmake --build build/gpu919 --target dnnbench -j 6 ) > "$OUT_DIR/build919.log" 2>&1 &
b919=$!

stage "gpu tests beside the samples smoke (cudnn, cublaslt)"
( timeout "$(cap 100)" ctest --test-dir build/gpu -L gpu --output-on-failure --timeout 60 > "$OUT_DIR/ctest-gpu.log" 2>&1
  echo "ctest rc=$?" >> "$OUT_DIR/ctest-gpu.log" ) &
tests=$!
timeout "$(cap 80)" "$B" run -g graphs/samples --provider cudnn,cublaslt --warmup 1 --warmup-max-ms 0 --iters 2 \
  --batch 1 --no-kernel-activity --isolate none -q -o "$OUT_DIR/smoke.json" > "$OUT_DIR/smoke.log" 2>&1
echo "smoke rc $?"
wait "$tests"
grep -E "tests passed|\(Failed\)|\(Timeout\)|ctest rc" "$OUT_DIR/ctest-gpu.log" | tail -14
python3 - "$OUT_DIR/smoke.json.journal.jsonl" <<'PY'
# From the journal: every finished row, even when the smoke was cut short.
import collections, json, sys
count, best = collections.Counter(), {}
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "row" not in d:
        continue
    r, g = d["row"], d["graph_path"].split("/")[-1][:-5]
    st = r.get("status")
    key = st if st != "success" else ("passed" if r.get("passed") else "failed")
    count[(r.get("provider"), key)] += 1
    b = best.setdefault((r.get("provider"), g), key)
    if key == "passed":
        best[(r.get("provider"), g)] = "passed"
    if key not in ("passed", "skipped"):
        print("  NOT OK %s %s %s %s" % (r.get("provider"), g, r.get("engine_id"), (r.get("error_message") or "")[:160]))
for p in ("cudnn", "cublaslt"):
    c = {k: v for (q, k), v in count.items() if q == p}
    nopass = sorted(g for (q, g), v in best.items() if q == p and v != "passed")
    print("smoke %s: %s; graphs without a passing row %d: %s" % (p, c, len(nopass), " ".join(nopass)[:900]))
PY

stage "models (issue 16)"
MAX_ENGINES=2 timeout "$(cap 55)" scripts/gpu-import-models.sh "$OUT_DIR/models"

stage "profile and tuning file (issue 17)"
P=graphs/perf/resnet50
G3="$P/rn50_res2_1x1_64_256_fwd_n32_nhwc_fp16.json,$P/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json,$P/rn50_res3_3x3_128_128_fwd_n32_nhwc_fp16.json"
timeout "$(cap 45)" "$B" run -g "$G3" --provider cudnn --max-engines 1 --timeout-s 20 --profile ncu -v \
  --profile-dir "$OUT_DIR/prof" -o "$OUT_DIR/ncu.json" > "$OUT_DIR/ncu.log" 2>&1
echo "profile rc $?"; grep -E "kernel sum|refus|error" "$OUT_DIR/ncu.log" | head -8
timeout "$(cap 25)" "$B" run -g "$G3" --provider cudnn --isolate none --max-engines 1 --oracle --oracle-max-plans 4 \
  --oracle-max-seconds 1 --export-plans "$OUT_DIR/plans914.jsonl" -o "$OUT_DIR/oracle914.json" > "$OUT_DIR/oracle914.log" 2>&1
echo "export rc $?, records $(wc -l < "$OUT_DIR/plans914.jsonl" 2> /dev/null)"
# The 9.19 half only while at least a minute is left for the stages after it.
while kill -0 "$b919" 2> /dev/null && [ $((DEADLINE - SECONDS)) -gt 130 ]; do sleep 1; done
tail -2 "$OUT_DIR/build919.log"
if ! kill -0 "$b919" 2> /dev/null && [ -x build/gpu919/dnnbench ]; then
  # The system's libcudnn.so.9 (9.14) is found before the build's own unless the loader is told:
  # on 2026-12-01 this binary loaded 9.14 without it (list-providers said so).
  export LD_LIBRARY_PATH="$CUDNN919/lib:$LD_LIBRARY_PATH"
  build/gpu919/dnnbench list-providers | grep cudnn
  timeout "$(cap 30)" build/gpu919/dnnbench run -g "$G3" --provider cudnn --isolate none \
    --plans-from "$OUT_DIR/plans914.jsonl" -o "$OUT_DIR/plans919.json" > "$OUT_DIR/plans919.log" 2>&1
  echo "plans-from 9.19 rc $?"; sed -n '/Plans from the tuning file/,$p' "$OUT_DIR/plans919.log" | head -12
fi

stage "GEMMs: cudnn, cublaslt, torch.matmul (issue 15)"
G=graphs/perf/gemm
GRAPHS="$G/decode_m1_k4096_n4096_fp16.json $G/decode_m16_k4096_n4096_fp16.json $G/decode_m64_k4096_n4096_fp16.json \
$G/bert_large_qkv_m4096_k1024_n3072_fp16.json $G/llama2_7b_qkv_m2048_k4096_n12288_fp16.json \
$G/llama2_7b_mlp_down_m2048_k11008_n4096_bf16.json" ORACLE_PLANS=6 ORACLE_SECONDS=0.3 SAMPLES=20 \
  timeout "$(cap 50)" bench/gemm-compare.sh "$OUT_DIR/gemm" 2>&1 | tail -30

stage "attention (issue 13)"
A=graphs/perf/attention
timeout "$(cap 30)" "$B" run -g "$A/sdpa_bert_large_fwd_b8_h16_s512_d64_fp16.json" \
  -g "$A/sdpa_llama3_8b_gqa_prefill_fwd_b1_h32_kv8_s4096_d128_causal_fp16.json" \
  -g "$A/sdpa_llama2_7b_decode_fwd_b16_h32_s1_kv4096_d128_fp16.json" -g "$A/sdpa_bert_large_bwd_b8_h16_s512_d64_fp16.json" \
  --provider cudnn --max-engines 2 --max-time-ms 200 -o "$OUT_DIR/attention.json" > "$OUT_DIR/attention.log" 2>&1
echo "attention rc $?"; grep -E "passed|skipped|failed|error" "$OUT_DIR/attention.log" | head -12
if [ -f "$OUT_DIR/attention.json" ] && [ $((DEADLINE - SECONDS)) -gt 15 ]; then
  timeout "$(cap 25)" python3 bench/torch_compare.py "$A/sdpa_bert_large_fwd_b8_h16_s512_d64_fp16.json" \
    "$A/sdpa_llama3_8b_gqa_prefill_fwd_b1_h32_kv8_s4096_d128_causal_fp16.json" \
    --dnnbench "$OUT_DIR/attention.json" --samples 100 --warmup 5 > "$OUT_DIR/attention-compare.txt" 2>&1
  tail -12 "$OUT_DIR/attention-compare.txt"
fi
pack
