#!/usr/bin/env bash
# The runner for the GPU machine (the H200): one run of named stages, each with a time limit inside
# DEADLINE_S of script time, so that the summary and the tarball always come back. STAGES picks
# them; a later run in the same checkout reuses build/gpu and build/gpu919:
#
#   STAGES="build tests smoke attention" bench/gpu-check.sh     (.debs beside it: scripts/gpu-prepare.sh)
#   STAGES="build919 profile tuning torch gemm" bench/gpu-check.sh
#
# Name `build` (and `build919`) in every run: on a fresh machine they build, in a warm build dir
# they are no-ops. TARGETS914 / TARGETS919 build only those targets. Where the libraries and ncu
# are: bench/lib/gpu-env.sh (GPU_RUN_PREFIX, NCU). The stages, by the question they answer
# (bench/RESULTS.md has the figures, bench/README.md the questions):
#
#   builds        build (system cuDNN 9.14, warnings as errors), build919 (PyTorch's cuDNN 9.19 and
#                 the torch provider on CUDA)
#   does it run   tests (every `gpu` test), tests919 (the same on the 9.19 build), devtests
#                 (DEVTESTS_FILTER), lt-tests (the cuBLASLt gpu tests one by one, with thread
#                 stacks when one hangs), torch, torch-gpu (the torch
#                 provider's tests); smoke (graphs/samples on cudnn and cublaslt, validation
#                 counts; SMOKE_DIRS, SMOKE_SHARDS default 4), torch-samples, fp8, tf32probe
#                 (cuDNN's fp32 matmul with NVIDIA_TF32_OVERRIDE=0); coverage (which sample graphs of
#                 each op family cuDNN takes, with cuDNN's own reasons: bench/cudnn-coverage.sh)
#   vs PyTorch    matched (matched conditions: bench/matched-conditions.sh; MATCHED_ARGS), settle
#                 (how long the power and clock take to settle: bench/probes/power_settle_probe.py),
#                 placement (short kernels' time over where their buffers lie: bench/probes/placement_probe.py),
#                 torch-compare (ResNet-50 fp16 forward beside PyTorch: bench/probes/torch-compare.sh),
#                 attention, attention-rest (attention perf graphs beside PyTorch; ATTENTION_DONE)
#   GEMM peers    gemm (cuDNN, cuBLASLt and torch.matmul on the GEMM set: bench/gemm-compare.sh;
#                 GEMM_GRAPHS, GEMM_ENGINES, GEMM_PLANS, GEMM_SECONDS), regimes (the 8192^3 bf16
#                 GEMM sustained and paced; --oracle-regimes both), gap-ab (replay vs kernel sum)
#                 splitk (the split-K decode GEMMs: per call vs kernel sum, PyTorch replay timeline)
#   workloads     workloads (graphs/workloads: dry run, defaults rows/min and stage split; WL_SECONDS),
#                 wl-oracle (--oracle --max-engines 3 on a spread subset), wl-aa (its A/A, 101 graphs),
#                 throughput (rows a minute over graphs/perf + 101 workload graphs, TP_SECONDS; beside
#                 an older build's with BASE_BIN), planted (a planted x1.05 found by compare: PLANT_FACTOR)
#   overhead      overhead (bench/overhead.sh; OVERHEAD_EXTRA), overhead4 (--max-engines 4),
#                 overhead-cache (the suite twice on an empty compiled-plan cache: compiling, loading)
#   captures      capture (PyTorch's cuDNN logs imported, run and held against its own kernels:
#                 bench/capture-check.sh; CAPTURE_MODELS, CAPTURE_CACHE_MODES="rotating hot producer"
#                 for one check per L2 state), capture-oracle (their workload report,
#                 --oracle --max-engines 3; CAPTURE_ORACLE_SECONDS)
#   oracle        oracle3 (the oracle at scale: --oracle --max-engines 3 over the ResNet-50 set),
#                 aa (the oracle's A/A over graphs/samples: bench/oracle-aa.sh; AA_EXTRA,
#                 AA_SECONDS), tuning (a tuning file made with cuDNN 9.14 re-timed on 9.19)
#   compare       compare-aa (compare's A/A between processes: COMPARE_AA_PAIRS pairs of runs of
#                 graphs/perf/resnet50 on cuDNN's pick, bench/compare-aa.sh; COMPARE_AA_EXTRA)
#   pool-eng3     cuDNN eng3 on the workload pools it failed, fresh compiles on 9.14 and 9.19, and
#                 the U-Net max-pool under compute-sanitizer
#   versions      versions (the same ResNet-50 / GEMM subset on cuDNN 9.14 and 9.19, through
#                 `dnnbench compare` and `dnnbench report --html`; VERSIONS_EVERY=K: every K-th
#                 workload graph instead, VERSIONS_ENGINES, VERSIONS_EXTRA="--oracle" for the
#                 workload report's diff)
#   ncu, clocks   ncu-check (kernel time vs Nsight Compute: bench/ncu-check.sh; NCU_REPEATS),
#                 profile (--profile ncu on three long GEMMs, with ncu's clocks: bench/probes/ncu_clocks.py),
#                 probe (CUPTI durations after idle gaps: bench/probes/kernel_basis_probe.py)
#
# Results in $OUT/check.tgz (the .ncu-rep files stay behind: too large to come back).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${OUT:-out}/check
mkdir -p "$OUT_DIR"
DEADLINE=${DEADLINE_S:-540}
STAGES=" ${STAGES:-build tests smoke attention build919 profile tuning torch gemm} "
# bench/lib/gpu-env.sh: the loader path (the unpacked .deb dependencies first), find_ncu (ncu goes
# on PATH for `--profile ncu`) and torch_cudnn_dir (PyTorch's cuDNN, for the 9.19 build).
. bench/lib/gpu-env.sh
NCU_BIN=$(find_ncu)
[ -n "$NCU_BIN" ] && export PATH="$(dirname "$NCU_BIN"):$PATH"
B=${DNNBENCH_BIN:-build/gpu/dnnbench}  # DNNBENCH_BIN: another build (e.g. build/release/dnnbench from scripts/run-samples)
B919=build/gpu919/dnnbench
CUDNN919=$(torch_cudnn_dir)
want() { [[ "$STAGES" == *" $1 "* ]]; }
# Seconds a stage may take: what it asks for, or what is left before the deadline.
cap() {
  local want=$1 left=$((DEADLINE - SECONDS))
  [ "$left" -lt "$want" ] && want=$left
  [ "$want" -lt 1 ] && want=1
  echo "$want"
}
stage() { echo "== $1 (at ${SECONDS} s)"; }
pack() { tar czf "${OUT:-out}/check.tgz" -C "$OUT_DIR" --exclude "*.ncu-rep" . 2> /dev/null; echo "== done at ${SECONDS} s"; }
trap pack EXIT

# The 9.19 build (PyTorch's cuDNN, and the torch provider against the wheel's LibTorch: one
# process loads one libcudnn.so.9) starts first and builds beside the other stages.
if want build919 && [ -n "$CUDNN919" ]; then
  ( CUDNN_ROOT="$CUDNN919" GPU_RUN_TORCH=1 GPU_RUN_SKIP_TESTS=1 GPU_RUN_SKIP_SMOKE=1 GPU_RUN_BUILD=build/gpu919 \
      GPU_RUN_TARGETS="${TARGETS919:-}" \
      scripts/gpu-run.sh "$OUT_DIR/build919" > "$OUT_DIR/build919.log" 2>&1 ) &
  b919=$!
fi
# The 9.19 build's end (or the deadline's last 120 s), for the stages that run its binary.
wait919() {
  if [ -n "${b919:-}" ]; then
    while kill -0 "$b919" 2> /dev/null && [ $((DEADLINE - SECONDS)) -gt 120 ]; do sleep 1; done
  fi
}
if want build; then
  stage "build (system cuDNN 9.14)"
  GPU_RUN_SKIP_TESTS=1 GPU_RUN_SKIP_SMOKE=1 GPU_RUN_TARGETS="${TARGETS914:-}" timeout "$(cap 240)" scripts/gpu-run.sh "$OUT_DIR/build" > "$OUT_DIR/gpu-run.log" 2>&1
  echo "build rc $?, warnings: $(grep -c 'warning:' "$OUT_DIR/build/build.log" 2> /dev/null)"
  grep -E "providers built|torch provider|error:" "$OUT_DIR/gpu-run.log" "$OUT_DIR/build/build.log" | head -12
fi
# A call of only the 9.19 build's stages (e.g. STAGES="build919 matched") goes on without $B.
if [ -x "$B" ]; then
  "$B" list-providers
elif ! want build919; then
  echo "no $B"; exit 1
fi

if want devtests; then
  stage "the device comparison and the cuDNN row tests (${DEVTESTS_FILTER:=DeviceCompare.*:CudnnProvider.*})"
  timeout "$(cap 180)" build/gpu/tests/dnnbench_gpu_tests --gtest_filter="$DEVTESTS_FILTER" > "$OUT_DIR/devtests.log" 2>&1
  echo "devtests rc $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED) |Failure|Which is|Expected|^\[==" "$OUT_DIR/devtests.log" | head -30
fi

if want tests; then
  stage "gpu tests"
  timeout "$(cap 200)" ctest --test-dir build/gpu -L gpu --output-on-failure --timeout 120 > "$OUT_DIR/ctest-gpu.log" 2>&1
  echo "ctest rc $?"
  grep -E "tests passed|\(Failed\)|\(Timeout\)|Skipped|Not Run" "$OUT_DIR/ctest-gpu.log" | tail -16
fi

if want tests919; then
  # The same tests on the 9.19 build (PyTorch's cuDNN, with the torch provider): one build
  # serves both the tests and the matched stage when device time is short.
  wait919
  stage "gpu tests, 9.19 build"
  LD_LIBRARY_PATH="$CUDNN919/lib:$LD_LIBRARY_PATH" timeout "$(cap 200)" ctest --test-dir build/gpu919 -L gpu \
    --output-on-failure --timeout 120 > "$OUT_DIR/ctest-gpu919.log" 2>&1
  echo "ctest rc $?"
  grep -E "tests passed|\(Failed\)|\(Timeout\)|Skipped|Not Run" "$OUT_DIR/ctest-gpu919.log" | tail -16
fi

# A command under a time limit; if it is still running at the limit, every thread's stack (gdb,
# where the machine has it) goes to the log before it is killed: a hang then says where.
with_stacks() {
  local limit=$1 log=$2; shift 2
  "$@" > "$log" 2>&1 &
  local pid=$! t=0
  while kill -0 "$pid" 2> /dev/null && [ "$t" -lt "$limit" ]; do sleep 1; t=$((t + 1)); done
  if kill -0 "$pid" 2> /dev/null; then
    echo "== still running after ${limit} s: stacks" >> "$log"
    if command -v gdb > /dev/null; then
      for p in $pid $(pgrep -P "$pid"); do timeout 30 gdb -batch -p "$p" -ex "thread apply all bt 25" >> "$log" 2>&1; done
    else
      echo "(no gdb here)" >> "$log"
    fi
    kill -9 "$pid" $(pgrep -P "$pid") 2> /dev/null
  fi
  wait "$pid"
}

if want lt-tests; then
  stage "cuBLASLt gpu tests, one by one"
  LT=build/gpu/tests/dnnbench_cublaslt_gpu_tests
  # The same rows through dnnbench itself, by measurement feature, beside the tests: which one
  # a hang needs (CUPTI kernel records, CUDA-graph replay).
  ( for mode in default --no-kernel-activity --no-graph-replay; do
      flags=(); [ "$mode" != default ] && flags=("$mode")
      timeout 25 "$B" run -g graphs/samples/matmul_batched_bf16.json,graphs/samples/matmul_plain_fp32.json \
        --provider cublaslt --warmup 1 --iters 3 --isolate none -q "${flags[@]}" -o "$OUT_DIR/lt-ab-$mode.json" \
        > "$OUT_DIR/lt-ab-$mode.log" 2>&1
      echo "dnnbench cublaslt matmul rows, $mode: rc $?" >> "$OUT_DIR/lt-ab.txt"
    done ) &
  ab=$!
  for t in $("$LT" --gtest_list_tests | awk '/^[^ ]/{s=$1} /^  /{print s $1}'); do
    DNNBENCH_TEST_HANG_S=45 with_stacks "$(cap 60)" "$OUT_DIR/lt-$t.log" "$LT" --gtest_filter="$t"
    echo "$t rc $? ($(grep -c '^\[row\]' "$OUT_DIR/lt-$t.log") rows)"
  done
  cat "$OUT_DIR"/lt-*.log > "$OUT_DIR/lt-tests.log" && rm -f "$OUT_DIR"/lt-*.*.log
  grep -E "FAILED|Failure|still running|main thread stack" "$OUT_DIR/lt-tests.log" | head -20
  # The hang's frames in the test binary, by the nearest symbol (the release build has no -g).
  python3 - "$LT" "$OUT_DIR/lt-tests.log" <<'PY'
import bisect, re, subprocess, sys
text = open(sys.argv[2]).read()
if "main thread stack" not in text:
    sys.exit()
syms = []
for line in subprocess.run(["nm", "-C", "-n", "--defined-only", sys.argv[1]], capture_output=True, text=True).stdout.splitlines():
    parts = line.split(" ", 2)
    if len(parts) == 3 and parts[1] in "tTwW":
        syms.append((int(parts[0], 16), parts[2]))
addrs = [a for a, _ in syms]
for frame in text.split("main thread stack", 1)[1].split("end of stack", 1)[0].splitlines()[1:40]:
    m = re.search(r"tests\(\+0x([0-9a-f]+)\)", frame)
    if m and addrs:
        i = bisect.bisect_right(addrs, int(m.group(1), 16)) - 1
        print("  ", syms[i][1][:160] if i >= 0 else "?")
    elif frame.strip():
        print("  ", frame.strip()[:160])
PY
  wait "$ab"; cat "$OUT_DIR/lt-ab.txt"
fi

if want tf32probe; then
  stage "cuDNN fp32 matmul with NVIDIA_TF32_OVERRIDE=0"
  for v in unset 0; do
    env $([ "$v" = 0 ] && echo NVIDIA_TF32_OVERRIDE=0) timeout "$(cap 30)" "$B" run \
      -g graphs/samples/matmul_plain_fp32.json,graphs/samples/matmul_batched_fp32.json --provider cudnn \
      --engine eng0 --warmup 1 --iters 3 --isolate none -q -o "$OUT_DIR/tf32-$v.json" > "$OUT_DIR/tf32-$v.log" 2>&1
    echo "NVIDIA_TF32_OVERRIDE=$v rc $?"
    python3 -c "
import json,sys
for g in json.load(open(sys.argv[1]))['graphs']:
    for r in g['results']:
        c = r.get('correctness') or {}
        print('  ', g['graph_name'], r['engine_id'], r['status'], r.get('passed'), 'norm rel', c.get('norm_rel_error'))
" "$OUT_DIR/tf32-$v.json"
  done
fi

if want smoke; then
  # SMOKE_DIRS: the graph folders checked (default graphs/samples; "graphs/samples graphs/perf" checks
  # every op family at perf size too). Every engine, validation first: 2 samples of one execution.
  stage "smoke over ${SMOKE_DIRS:=graphs/samples} (cudnn, cublaslt), ${SMOKE_SHARDS:-4} processes"
  mapfile -t all < <(find $SMOKE_DIRS -name '*.json' | sort)
  n=${SMOKE_SHARDS:-4} pids=()
  for ((i = 0; i < n; i++)); do
    shard=()
    for ((j = i; j < ${#all[@]}; j += n)); do shard+=("${all[j]}"); done
    timeout "$(cap "${SMOKE_CAP_S:-200}")" "$B" run -g "$(IFS=,; echo "${shard[*]}")" --provider cudnn,cublaslt --warmup 1 --warmup-max-ms 0 \
      --iters 2 --batch 1 --no-kernel-activity --isolate none -q -o "$OUT_DIR/smoke$i.json" > "$OUT_DIR/smoke$i.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; echo "smoke shard rc $?"; done
  cat "$OUT_DIR"/smoke[0-9]*.json.journal.jsonl > "$OUT_DIR/smoke.journal.jsonl"
  cat "$OUT_DIR"/smoke[0-9]*.log > "$OUT_DIR/smoke.log"
  echo "graphs ${#all[@]}; rows $(grep -c '"row"' "$OUT_DIR/smoke.journal.jsonl")"
  python3 - "$OUT_DIR/smoke.journal.jsonl" <<'PY'
# From the journals: every finished row, even when the smoke was cut short.
import collections, json, sys
count, best, graphs = collections.Counter(), {}, set()
reduced = collections.Counter()
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "row" not in d:
        continue
    r, g = d["row"], d["graph_path"].split("/")[-1][:-5]
    graphs.add(g)
    st = r.get("status")
    key = st if st != "success" else ("passed" if r.get("passed") else "failed")
    if r.get("reduced_precision"):
        reduced[key] += 1
    count[(r.get("provider"), key)] += 1
    best.setdefault((r.get("provider"), g), key)
    if key == "passed":
        best[(r.get("provider"), g)] = "passed"
    if key not in ("passed", "skipped"):
        print("  NOT OK %s %s %s %s" % (r.get("provider"), g, r.get("engine_id"), (r.get("error_message") or "")[:160]))
print("smoke: %d graphs with rows; reduced-precision rows (labelled, normwise): %s" % (len(graphs), dict(reduced)))
for p in ("cudnn", "cublaslt"):
    c = {k: v for (q, k), v in count.items() if q == p}
    nopass = sorted(g for (q, g), v in best.items() if q == p and v != "passed")
    print("smoke %s: %s; graphs without a passing row %d: %s" % (p, c, len(nopass), " ".join(nopass)[:1200]))
PY
  rm -f "$OUT_DIR"/smoke[0-9]*
fi

if want regimes; then
  # The power regimes: the 8192^3 bf16 GEMM's default figure (sustained, normal fill) and its paced
  # one on cuDNN's and cuBLASLt's top picks, then the oracle over the ResNet-50 fp16 forward set
  # (cuDNN's top engine) with --oracle-regimes both: how many winners change between regimes.
  stage "regimes: 8192^3 bf16 GEMM sustained and paced; --oracle-regimes both over ResNet-50 fwd fp16"
  G8K=bench/graphs/matmul_m8192_k8192_n8192_bf16.json
  for regime in sustained paced; do
    timeout "$(cap 60)" "$B" run -g "$G8K" --provider cudnn,cublaslt --max-engines 1 --regime $regime -v \
      -o "$OUT_DIR/gemm8k-$regime.json" > "$OUT_DIR/gemm8k-$regime.log" 2>&1
    echo "gemm8k $regime rc $?"; grep -E "cudnn |cublaslt |regime:|clocks:|power cap" "$OUT_DIR/gemm8k-$regime.log" | head -8
  done
  R50=$(ls graphs/perf/resnet50/*_fwd_*fp16.json | tr '\n' ',' | sed 's/,$//')
  start=$SECONDS
  timeout "$(cap "${REGIMES_ORACLE_CAP_S:-300}")" "$B" run -g "$R50,$G8K" --provider cudnn --max-engines 1 --oracle \
    --oracle-regimes both -q -o "$OUT_DIR/oracle-regimes.json" > "$OUT_DIR/oracle-regimes.log" 2>&1
  echo "oracle-regimes rc $?, $((SECONDS - start)) s"
  grep -E "^Summary|^Oracle|regimes:|->|compared in" "$OUT_DIR/oracle-regimes.log" | head -30
fi

if want settle; then
  # How long the GPU takes to settle under back-to-back load, and what NVML says meanwhile
  # (bench/probes/power_settle_probe.py): the sustained warm-up's length against the power average's.
  stage "power settle probe (issue 31)"
  timeout "$(cap 90)" python3 bench/probes/power_settle_probe.py --json "$OUT_DIR/settle.json" > "$OUT_DIR/settle.log" 2>&1
  echo "settle rc $?"; grep -vE "^  [0-9]" "$OUT_DIR/settle.log" | head -40
fi

if want placement; then
  # Whether the allocation alone moves a short kernel (the rows that leave the matched band, issue 31).
  stage "placement probe (issue 31)"
  timeout "$(cap 150)" python3 bench/probes/placement_probe.py --json "$OUT_DIR/placement.json" > "$OUT_DIR/placement.log" 2>&1
  echo "placement rc $?"; grep -vE "^  " "$OUT_DIR/placement.log" | head -20
  # dnnbench's side: the same graphs as independent repeats (a fresh build and buffers each).
  if [ -x "$B" ]; then
    PG=$(python3 -c "import sys; sys.path.insert(0, 'bench/probes'); import placement_probe as p; print(','.join(p.DEFAULT_GRAPHS))")
    timeout "$(cap 120)" "$B" calibrate -g "$PG" --provider cublaslt,cudnn --repeats 5 \
      --calibration-file "$OUT_DIR/placement-calibration.json" > "$OUT_DIR/placement-calibrate.log" 2>&1
    echo "calibrate rc $?"; tail -20 "$OUT_DIR/placement-calibrate.log"
  fi
fi

if want matched; then
  # dnnbench's top pick beside PyTorch's call in matched conditions (bench/matched-conditions.sh):
  # the 9.19 build, so both load PyTorch's cuDNN. MATCHED_ARGS: its options (e.g. --quick).
  wait919
  MB=$B919; [ -x "$MB" ] || MB=$B
  stage "matched conditions vs PyTorch ($MB)"
  timeout "$(cap 580)" bench/matched-conditions.sh "$MB" "$OUT_DIR/matched" --deadline-s "$(cap 360)" ${MATCHED_ARGS:-} \
    > "$OUT_DIR/matched.log" 2>&1
  echo "matched rc $?"; tail -60 "$OUT_DIR/matched.log"
fi

if want attention-rest; then
  stage "attention graphs not in ${ATTENTION_DONE:-}, then beside PyTorch (issue 13)"
  A=graphs/perf/attention
  rest=$(python3 - "$A" "${ATTENTION_DONE:-/nonexistent}" <<'PY'
import glob, json, os, sys
done = set()
if os.path.exists(sys.argv[2]):
    done = {g["graph_name"] for g in json.load(open(sys.argv[2]))["graphs"] if g["results"]}
print(",".join(p for p in sorted(glob.glob(sys.argv[1] + "/*.json")) if os.path.basename(p)[:-5] not in done))
PY
)
  results=()
  [ -f "${ATTENTION_DONE:-/nonexistent}" ] && results+=(--dnnbench "$ATTENTION_DONE")
  if [ -n "$rest" ]; then
    timeout "$(cap 90)" "$B" run -g "$rest" --provider cudnn --max-engines 2 --warmup 3 --min-time-ms 10 --max-time-ms 150 \
      --isolate none -o "$OUT_DIR/attention-rest.json" > "$OUT_DIR/attention-rest.log" 2>&1
    echo "attention-rest rc $?"; grep -E "^Summary|cudnn:" "$OUT_DIR/attention-rest.log" | head -4
    results+=(--dnnbench "$OUT_DIR/attention-rest.json")
  fi
  timeout "$(cap 200)" python3 bench/lib/torch_compare.py "$A"/*.json "${results[@]}" --samples 30 --warmup 3 \
    > "$OUT_DIR/attention-compare.txt" 2>&1
  echo "torch compare rc $?"; tail -24 "$OUT_DIR/attention-compare.txt"
fi

if want attention; then
  stage "attention perf graphs beside PyTorch (issue 13)"
  A=graphs/perf/attention
  timeout "$(cap 150)" "$B" run -g "$A" --provider cudnn --max-engines 2 --warmup 3 --min-time-ms 10 --max-time-ms 150 \
    -o "$OUT_DIR/attention.json" > "$OUT_DIR/attention.log" 2>&1
  echo "attention rc $?"; grep -E "^Summary|cudnn:" "$OUT_DIR/attention.log" | head -4
  if [ -f "$OUT_DIR/attention.json" ]; then
    timeout "$(cap 90)" python3 bench/lib/torch_compare.py "$A"/*.json --dnnbench "$OUT_DIR/attention.json" --samples 30 \
      --warmup 3 > "$OUT_DIR/attention-compare.txt" 2>&1
    echo "torch compare rc $?"; tail -20 "$OUT_DIR/attention-compare.txt"
  fi
fi

# Kernels of 100 us and more: ncu's ~1 us wider bracket per kernel (bench/RESULTS.md, issue 12)
# is then under 1%, so what is compared is the two tools' reading of the same kernel.
G=graphs/perf/gemm
LONG="$G/llama2_7b_qkv_m2048_k4096_n12288_fp16.json,$G/llama2_7b_mlp_down_m2048_k11008_n4096_fp16.json,$G/llama2_7b_mlp_up_m2048_k4096_n11008_bf16.json"
if want profile; then
  stage "--profile ncu on three long GEMMs (issue 17)"
  timeout "$(cap 90)" "$B" run -g "$LONG" --provider cudnn --max-engines 1 --timeout-s 40 --profile ncu -v \
    --profile-dir "$OUT_DIR/prof" -o "$OUT_DIR/ncu.json" > "$OUT_DIR/ncu.log" 2>&1
  echo "profile rc $?"; grep -E "kernel sum|NOT the row|refus|error" "$OUT_DIR/ncu.log" | head -8
  # The SM clock each profiled kernel ran at (ncu's SpeedOfLight: gpc__cycles_elapsed.avg.per_second)
  # and its cycles, beside the SM clock NVML read during the row's own samples.
  python3 bench/probes/ncu_clocks.py "$OUT_DIR/ncu.json" "$OUT_DIR/prof" 2>&1 | tail -20
fi

if want tuning || want torch || want torch-gpu || want gemm || want fp8 || want torch-compare || want versions; then
  wait919
  tail -3 "$OUT_DIR/build919.log" 2> /dev/null
  # The system's libcudnn.so.9 (9.14) is found before the build's own unless the loader is told.
  export LD_LIBRARY_PATH="$CUDNN919/lib:$LD_LIBRARY_PATH"
  [ -x "$B919" ] && "$B919" list-providers
fi

if want tuning; then
  stage "tuning file: cuDNN 9.14 -> 9.19 (issue 17)"
  P=graphs/perf/resnet50
  G3="$P/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json,$P/rn50_res3_3x3_128_128_fwd_n32_nhwc_fp16.json,$G/bert_large_qkv_m4096_k1024_n3072_fp16.json"
  LD_LIBRARY_PATH="$DEPS_LIB" timeout "$(cap 60)" "$B" run -g "$G3" \
    --provider cudnn --isolate none --max-engines 2 --oracle --oracle-max-plans 6 --oracle-max-seconds 2 \
    --export-plans "$OUT_DIR/plans914.jsonl" -o "$OUT_DIR/oracle914.json" > "$OUT_DIR/oracle914.log" 2>&1
  echo "export rc $?, records $(wc -l < "$OUT_DIR/plans914.jsonl" 2> /dev/null)"
  if [ -x "$B919" ]; then
    timeout "$(cap 60)" "$B919" run -g "$G3" --provider cudnn --isolate none --max-engines 2 \
      --plans-from "$OUT_DIR/plans914.jsonl" -o "$OUT_DIR/plans919.json" > "$OUT_DIR/plans919.log" 2>&1
    echo "plans-from 9.19 rc $?"; sed -n '/Plans from the tuning file/,$p' "$OUT_DIR/plans919.log" | head -14
  fi
fi

if want torch && [ -x "$B919" ]; then
  stage "torch provider on CUDA (issue 15)"
  # The short TorchGpu tests first: the sample sweep (TorchProvider.*) takes ~85 s there.
  timeout "$(cap 60)" ctest --test-dir build/gpu919 -R "TorchGpu" --output-on-failure --timeout 50 > "$OUT_DIR/ctest-torch.log" 2>&1
  echo "TorchGpu tests rc $?"
  timeout "$(cap 150)" ctest --test-dir build/gpu919 -R "TorchProvider" --output-on-failure --timeout 140 >> "$OUT_DIR/ctest-torch.log" 2>&1
  echo "TorchProvider tests rc $?"; grep -E "tests passed|\(Failed\)|\(Timeout\)|Skipped" "$OUT_DIR/ctest-torch.log" | tail -8
fi
if want torch-gpu && [ -x "$B919" ]; then
  stage "TorchGpu tests only (issue 15), one process"
  DNNBENCH_TEST_HANG_S=50 timeout "$(cap 70)" build/gpu919/tests/dnnbench_torch_gpu_tests > "$OUT_DIR/torch-gpu-tests.log" 2>&1
  echo "TorchGpu rc $?"; grep -E "^\[  (FAILED|PASSED|SKIPPED|     OK) |Failure|Which is|skip" "$OUT_DIR/torch-gpu-tests.log" | head -30
fi
if want fp8; then
  stage "fp8 sample on cuDNN and cuBLASLt (issue 15)"
  FP8_B=$B; [ -x "$B919" ] && FP8_B=$B919
  timeout "$(cap 40)" "$FP8_B" run -g graphs/samples/matmul_fp8_e4m3.json --provider cudnn,cublaslt --isolate none -v \
    -o "$OUT_DIR/fp8.json" > "$OUT_DIR/fp8.log" 2>&1
  echo "fp8 sample rc $?"; grep -E "^  (cudnn|cublaslt) |^Summary|passed|skipped|failed" "$OUT_DIR/fp8.log" | head -16
fi
if want torch-samples && [ -x "$B919" ]; then
  timeout "$(cap 90)" "$B919" run -g graphs/samples --provider torch --isolate none --warmup 1 --warmup-max-ms 0 --iters 3 \
    -q -o "$OUT_DIR/torch-samples.json" > "$OUT_DIR/torch-samples.log" 2>&1
  echo "torch samples rc $?"; grep -E "^Summary|torch:" "$OUT_DIR/torch-samples.log" | head -3
fi

if want probe; then
  stage "CUPTI durations after idle gaps, beside ncu (issue 17)"
  timeout "$(cap 60)" python3 bench/probes/kernel_basis_probe.py 2>&1 | tail -8
fi

if want overhead; then
  stage "overhead: ResNet-50 fp16 forward set, default settings (issue 12)"
  EXTRA="${OVERHEAD_EXTRA:-}" LABEL=default timeout "$(cap 240)" bench/overhead.sh "$OUT_DIR/overhead" 2>&1 | tail -12
fi
if want oracle3; then
  # Issue 12's "a full --oracle over the ResNet-50 fp16 forward set with the top 3 engines in
  # <= 10 minutes", at default oracle settings.
  stage "--oracle --max-engines 3 over the ResNet-50 fp16 forward set (issue 12)"
  R50=$(ls graphs/perf/resnet50/*_fwd_*fp16.json | tr '\n' ',' | sed 's/,$//')
  start=$SECONDS
  timeout "$(cap 400)" "$B" run -g "$R50" --provider cudnn --max-engines 3 --oracle -q \
    -o "$OUT_DIR/oracle3.json" > "$OUT_DIR/oracle3.log" 2>&1
  echo "oracle3 rc $?, $((SECONDS - start)) s"; grep -E "^Summary|cudnn:|significant|geomean" "$OUT_DIR/oracle3.log" | head -8
fi
if want overhead-cache; then
  # The compiled-plan cache (cuDNN's runtime-compiled engines): the same suite twice on an empty
  # cache folder, compiling (cold) then loading (warm).
  export DNNBENCH_PLAN_CACHE="$OUT_DIR/plan-cache"
  rm -rf "$DNNBENCH_PLAN_CACHE"
  for label in cold warm; do
    stage "overhead at default settings, compiled-plan cache $label (issue 12)"
    EXTRA="${OVERHEAD_EXTRA:-}" LABEL=$label timeout "$(cap 240)" bench/overhead.sh "$OUT_DIR/overhead" 2>&1 | tail -12
  done
  echo "plan cache: $(ls "$DNNBENCH_PLAN_CACHE" 2> /dev/null | wc -l) files, $(du -sh "$DNNBENCH_PLAN_CACHE" 2> /dev/null | cut -f1)"
  python3 - "$OUT_DIR/overhead" <<'PY'
import json, sys, collections
for label in ("cold", "warm"):
    try:
        doc = json.load(open(f"{sys.argv[1]}/{label}.json"))
    except Exception as e:
        print(label, "no results:", e); continue
    notes = collections.Counter()
    build = collections.defaultdict(float)
    for g in doc["graphs"]:
        for r in g["results"]:
            kind = next((("loaded" if "loaded from" in n else "kept" if "kept in" in n else "not kept")
                         for n in r.get("plan_notes") or [] if "compiled-plan cache" in n), "not cached")
            notes[kind] += 1
            build[kind] += (r.get("cpu_build_time_ms") or 0) / 1e3
    print(label, dict(notes), {k: round(v, 1) for k, v in build.items()}, "s of builds;",
          "compile-ahead children:", (doc["metadata"].get("isolation") or {}).get("compile_ahead_children"))
    waits = [float(n.split("waited ")[1].split(" ms")[0]) for g in doc["graphs"] for r in g["results"]
             for n in r.get("plan_notes") or [] if n.startswith("waited ")]
    if waits:
        print(f"  rows that waited for a compile-ahead child: {len(waits)}, {sum(waits) / 1e3:.1f} s in all, "
              f"longest {max(waits) / 1e3:.1f} s")
    for g in doc["graphs"]:
        for r in g["results"]:
            for n in r.get("plan_notes") or []:
                if "not kept" in n or "did not load" in n:
                    print("  ", g["graph_name"], r.get("engine_id"), n[:200]); break
# The cold run measured while compile-ahead children compiled beside it: the same rows' kernel
# medians, cold / warm (the children must not disturb the timings).
try:
    med = {}
    for label in ("cold", "warm"):
        doc = json.load(open(f"{sys.argv[1]}/{label}.json"))
        med[label] = {(g["graph_name"], r.get("engine_id")): r["gpu_kernel_stats"]["median_ms"]
                      for g in doc["graphs"] for r in g["results"] if r.get("gpu_kernel_stats")}
    ratios = sorted(med["cold"][k] / med["warm"][k] for k in med["cold"] if k in med["warm"] and med["warm"][k] > 0)
    import math
    geo = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
    off = sum(1 for x in ratios if abs(x - 1) > 0.02)
    print(f"kernel median cold/warm over {len(ratios)} rows: geomean {geo:.4f}, min {ratios[0]:.3f}, "
          f"p5 {ratios[len(ratios) // 20]:.3f}, p95 {ratios[-1 - len(ratios) // 20]:.3f}, max {ratios[-1]:.3f}, "
          f"{off} beyond 2%")
except Exception as e:
    print("no cold/warm comparison:", e)
PY
  unset DNNBENCH_PLAN_CACHE
fi
if want aa; then
  # Issue 12's A/A: the oracle's self-check (--oracle --oracle-aa, control arm) over graphs/samples;
  # AA_EXTRA (default --max-engines 1: cuDNN's pick on every graph) and AA_SECONDS bound it.
  stage "oracle A/A over graphs/samples, cuDNN (issue 12)"
  AA_EXTRA="${AA_EXTRA:---max-engines 1}" bench/oracle-aa.sh "$OUT_DIR/aa" "$(cap "${AA_SECONDS:-400}")" 2>&1 | tail -12
fi
if want compare-aa; then
  # compare's A/A between processes: each pair two runs of the same suite, compared; a pair passes
  # when compare exits 0 with no regression. COMPARE_AA_EXTRA: more run options (e.g. --repeat 3).
  stage "compare's A/A: ${COMPARE_AA_PAIRS:=3} pairs over graphs/perf/resnet50, cuDNN's pick"
  DNNBENCH_BIN="$B" timeout "$(cap "${COMPARE_AA_CAP_S:-400}")" bench/compare-aa.sh "$OUT_DIR/compare-aa" "$COMPARE_AA_PAIRS" -- \
    -g graphs/perf/resnet50 --provider cudnn --max-engines 1 ${COMPARE_AA_EXTRA:-} 2>&1 | tail -20
fi
if want overhead4; then
  stage "overhead: the same with --max-engines 4"
  EXTRA="--max-engines 4" LABEL=top4 timeout "$(cap 150)" bench/overhead.sh "$OUT_DIR/overhead" 2>&1 | tail -12
fi

if want ncu-check; then
  stage "kernel time vs ncu, ResNet-50 + GEMM fp16 top picks (issue 12)"
  REPEATS=${NCU_REPEATS:-2} timeout "$(cap 240)" bench/ncu-check.sh "$OUT_DIR/ncu-check" 2>&1 | tail -20
fi

if want torch-compare && [ -x "$B919" ]; then
  # Issue 12's "beside PyTorch": both sides on PyTorch's cuDNN 9.19 (the 9.19 binary, the loader
  # path set above), PyTorch timed by CUDA-graph replay of 20 calls.
  stage "dnnbench (cuDNN 9.19) beside PyTorch on the ResNet-50 fp16 forward convs (issue 12)"
  GRAPHS="${TC_GRAPHS:-$(ls graphs/perf/resnet50/*_fwd_*fp16.json | tr '\n' ' ')}" MAX_ENGINES=${TC_ENGINES:-2} \
    ORACLE_PLANS=${TC_PLANS:-4} ORACLE_SECONDS=${TC_SECONDS:-0.5} NO_REPEAT=${TC_NO_REPEAT:-1} DNNBENCH="$B919" \
    timeout "$(cap "${TC_CAP_S:-300}")" bench/probes/torch-compare.sh "$OUT_DIR/torch-compare" 2>&1 | tail -40
fi

if want gap-ab; then
  # The split-K decode GEMMs' replay time against their kernel sum, with and without CUPTI kernel
  # records in the process (issue 15: the cuBLASLt rows read ~2 us above cuDNN's first row for the
  # same two kernels).
  GAP_B=$B; [ -x "$B919" ] && want build919 && GAP_B=$B919
  stage "replay vs kernel sum, CUPTI on/off: decode GEMMs (issue 15), $GAP_B"
  for mode in default --no-kernel-activity; do
    flags=(); [ "$mode" != default ] && flags=("$mode")
    timeout "$(cap 60)" "$GAP_B" run -g "$G/decode_m1_k4096_n4096_fp16.json,$G/decode_m16_k4096_n4096_fp16.json" \
      --provider cudnn,cublaslt,torch --max-engines 1 --isolate none --min-time-ms 5 --max-time-ms 100 -q \
      "${flags[@]}" -o "$OUT_DIR/gap-$mode.json" > "$OUT_DIR/gap-$mode.log" 2>&1
    python3 - "$OUT_DIR/gap-$mode.json" "$mode" <<'PY'
import json, sys
for g in json.load(open(sys.argv[1]))["graphs"]:
    for r in g["results"]:
        gs = (r.get("gpu_kernel_stats") or {}).get("median_ms")
        ks = (r.get("kernel_sum_stats") or {}).get("median_ms")
        names = " + ".join(k["name"][:28] for k in r.get("kernels") or [])
        print(f"{sys.argv[2]:22} {g['graph_name'][:28]:28} {r['provider']:8} {r.get('engine_id')} replay "
              f"{gs * 1e3 if gs else float('nan'):.2f} ksum {ks * 1e3 if ks else float('nan'):.2f} {names}")
PY
  done
fi

if want gemm; then
  # The 9.19 build has the torch provider: its rows join cuDNN's and cuBLASLt's in one run.
  GEMM_B=$B; [ -x "$B919" ] && want build919 && GEMM_B=$B919
  stage "GEMMs: cudnn, cublaslt, torch.matmul (issue 15), $GEMM_B"
  # GEMM_GRAPHS: the graphs (default: the whole GEMM perf set, 26 graphs; 6 of them with
  # GEMM_ENGINES=3 GEMM_PLANS=40 GEMM_SECONDS=2 took 125 s of dnnbench time on the H200).
  GRAPHS="${GEMM_GRAPHS:-$(ls $G/*.json | tr '\n' ' ')}" \
    MAX_ENGINES=${GEMM_ENGINES:-2} ORACLE_PLANS=${GEMM_PLANS:-8} ORACLE_SECONDS=${GEMM_SECONDS:-0.5} SAMPLES=20 \
    DNNBENCH="$GEMM_B" timeout "$(cap "${GEMM_CAP_S:-240}")" bench/gemm-compare.sh "$OUT_DIR/gemm" 2>&1 | tail -50
fi

if want coverage; then
  # Which sample graphs of each op family cuDNN takes, with cuDNN's reasons (docs/providers.md's
  # support table), on this call's binary and the system cuDNN.
  stage "cuDNN coverage of graphs/samples by op family, with cuDNN's reasons"
  PROBE_BIN=$B PROBE_BUDGET_S=$(cap "${COVERAGE_CAP_S:-120}") \
    LD_LIBRARY_PATH="$DEPS_LIB" bench/cudnn-coverage.sh "$OUT_DIR/coverage" 2>&1 | tail -60
fi

# The real-workload collection (graphs/workloads): how many graphs, what the defaults cost per row
# and where the time goes, the oracle at scale on a spread subset, and its A/A. Each run is cut
# with SIGINT at its limit (the rows finished so far are written) and measured from its journal.
wl_subset() { find graphs/workloads -name '[0-9]*.json' | sort | awk -v k="$1" 'NR % k == 1' | paste -sd, -; }
wl_journal_summary() {
  python3 - "$1" "$2" <<'PY'
# rows, rows/min over the wall time, and the sum of each stage over the rows: where the time went.
import collections, json, sys
rows, graphs, stages, status = 0, set(), collections.Counter(), collections.Counter()
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "row" not in d:
        continue
    rows += 1
    graphs.add(d["graph_path"])
    r = d["row"]
    status[r.get("status") if r.get("status") != "success" else ("passed" if r.get("passed") else "failed")] += 1
    for k, v in (r.get("stage_ms") or {}).items():
        stages[k] += v
wall = float(sys.argv[2])
print("%d rows over %d graphs in %.0f s: %.0f rows/min; %s" % (rows, len(graphs), wall, rows * 60 / max(wall, 1), dict(status)))
total = sum(stages.values())
print("stage sums (s): " + ", ".join("%s %.1f (%.0f%%)" % (k, v / 1e3, 100 * v / max(total, 1)) for k, v in stages.most_common()))
PY
}
if want workloads; then
  stage "graphs/workloads: dry run, then defaults for ${WL_SECONDS:=240} s"
  "$B" run -g graphs/workloads --dry-run > "$OUT_DIR/wl-dry.log" 2>&1
  echo "dry-run rc $?: $(tail -3 "$OUT_DIR/wl-dry.log" | tr '\n' ' ')"
  start=$SECONDS
  timeout -s INT "$(cap "$WL_SECONDS")" "$B" run -g graphs/workloads -q ${WL_EXTRA:-} -o "$OUT_DIR/wl-defaults.json" \
    > "$OUT_DIR/wl-defaults.log" 2>&1
  echo "defaults rc $?"
  wl_journal_summary "$OUT_DIR/wl-defaults.json.journal.jsonl" $((SECONDS - start))
  grep -E "^Summary|^time|rows" "$OUT_DIR/wl-defaults.log" | head -6
fi
if want capture; then
  # PyTorch's own cuDNN logs imported and run on the captures' cuDNN (the 9.19 build), against the
  # framework's kernels of one step profiled again here (bench/capture-check.sh; CAPTURE_MODELS).
  # CAPTURE_CACHE_MODES="rotating hot producer": the check once per L2 state (--cache-mode), each
  # in capture-<mode>; the first (or the default's) in capture, where capture-oracle reads it.
  wait919
  first=1
  for mode in ${CAPTURE_CACHE_MODES:-default}; do
    dir=$OUT_DIR/capture; [ "$first" = 1 ] || dir=$OUT_DIR/capture-$mode
    args=""; [ "$mode" != default ] && args="--cache-mode $mode"
    stage "capture check: ${CAPTURE_MODELS:=bert llama resnet50}, cache mode $mode (bench/capture-check.sh)"
    # shellcheck disable=SC2086
    RUN_ARGS="${RUN_ARGS:-} $args" RUN_SECONDS=${CAPTURE_RUN_SECONDS:-200} timeout "$(cap "${CAPTURE_SECONDS:-400}")" \
      bench/capture-check.sh "$dir" $CAPTURE_MODELS > "$dir.log" 2>&1
    echo "capture-check rc $?"; grep -vE "^  not in the framework" "$dir.log" | tail -24
    first=0
  done
fi

if want capture-oracle; then
  # The workload report over the captures: which layers' picks the best plan measured beats.
  wait919
  stage "the captures' workload report: --oracle --max-engines 3 for ${CAPTURE_ORACLE_SECONDS:=400} s"
  dirs=$(for m in bert llama resnet50; do [ -f "$OUT_DIR/capture/$m/manifest.json" ] && printf '%s,' "$OUT_DIR/capture/$m"; done)
  LD_LIBRARY_PATH="$CUDNN919/lib:$LD_LIBRARY_PATH" timeout -s INT "$(cap "$CAPTURE_ORACLE_SECONDS")" "$B919" run \
    -g "${dirs%,}" --provider cudnn --oracle --max-engines 3 --progress none -o "$OUT_DIR/capture-oracle.json" \
    > "$OUT_DIR/capture-oracle.log" 2>&1
  echo "capture oracle rc $?"; grep -E "^time:" "$OUT_DIR/capture-oracle.log"
  python3 - "$OUT_DIR/capture-oracle.json" <<'PY2'
import json, sys
doc = json.load(open(sys.argv[1]))
print("graphs in the results:", len(doc.get("graphs", [])))
for rep in doc.get("workload_report") or []:
    for g in rep.get("groups", []):
        o = g.get("oracle") or {}
        print("%-8s %-18s graphs %3s layers %4s judged %3s beaten %3s geomean %.3f worst %.3f saved %.1f%%" % (
            g.get("kind"), g.get("name"), g.get("graphs"), g.get("layers"), o.get("layers_judged"),
            o.get("layers_beaten"), o.get("geomean_gap") or 1, o.get("worst_gap") or 1,
            100 * (o.get("time_saved_share") or 0)))
PY2
fi

if want wl-oracle; then
  # --oracle --max-engines 3 on every WL_ORACLE_EVERY-th graph (a spread over the models).
  stage "graphs/workloads: --oracle --max-engines 3 on every ${WL_ORACLE_EVERY:=20}th graph for ${WL_ORACLE_SECONDS:=240} s"
  start=$SECONDS
  timeout -s INT "$(cap "$WL_ORACLE_SECONDS")" "$B" run -g "$(wl_subset "$WL_ORACLE_EVERY")" --provider cudnn,cublaslt \
    --max-engines 3 --oracle -o "$OUT_DIR/wl-oracle.json" > "$OUT_DIR/wl-oracle.log" 2>&1
  echo "oracle rc $?"
  wl_journal_summary "$OUT_DIR/wl-oracle.json.journal.jsonl" $((SECONDS - start))
  python3 - "$OUT_DIR/wl-oracle.json" <<'PY2'
# The oracle's time summed over the rows that finished, by part: where an oracle row's time goes;
# then the graphs' own time outside their rows (regret: the pick against the graph's best plan).
import collections, json, sys
split, n, graph_stages = collections.Counter(), 0, collections.Counter()
for g in json.load(open(sys.argv[1])).get("graphs", []):
    graph_stages.update(g.get("stage_ms") or {})
    for r in g.get("results", []):
        o = r.get("oracle") or {}
        if o.get("time_split_ms"):
            n += 1
            split.update(o["time_split_ms"])
print("oracle rows %d; time split (s): %s" % (n, ", ".join("%s %.1f" % (k, v / 1e3) for k, v in split.most_common())))
print("graph stages outside rows (s): %s" % ", ".join("%s %.1f" % (k, v / 1e3) for k, v in graph_stages.most_common()))
# The graphs' wall time against what their rows and stages account for, and the run's elapsed
# time against the graphs' (outside: starting, the graph cut short, writing results).
doc = json.load(open(sys.argv[1]))
gs = [g for g in doc.get("graphs", []) if g.get("wall_ms") is not None]
wall = sum(g["wall_ms"] for g in gs) / 1e3
rows = sum((r.get("row_time_ms") or 0) for g in gs for r in g.get("results", [])) / 1e3
stages = sum(sum((g.get("stage_ms") or {}).values()) for g in gs) / 1e3
elapsed = (doc.get("metadata", {}).get("run_timing") or {}).get("elapsed_s") or 0
print("graphs' wall %.1f s (%d graphs): rows %.1f, graph stages %.1f, overhead %.1f; run elapsed %.1f, outside graphs %.1f"
      % (wall, len(gs), rows, stages, wall - rows - stages, elapsed, elapsed - wall))
PY2
  grep -E "^time:|significant|geomean|beaten" "$OUT_DIR/wl-oracle.log" | head -12
fi
if want wl-aa; then
  # The oracle's A/A (control arm) on every WL_AA_EVERY-th graph (17: 101 graphs), cuDNN's pick.
  stage "graphs/workloads: oracle A/A on every ${WL_AA_EVERY:=17}th graph"
  AA_GRAPHS="$(wl_subset "$WL_AA_EVERY")" AA_EXTRA="${AA_EXTRA:---max-engines 1}" DNNBENCH_BIN="$B" \
    bench/oracle-aa.sh "$OUT_DIR/wl-aa" "$(cap "${WL_AA_SECONDS:-240}")" 2>&1 | tail -12
fi
# Rows a minute at the defaults over graphs/perf and a 101-graph spread of graphs/workloads (every
# 17th), GPU providers, cut at TP_SECONDS each: this build, and before it BASE_BIN (an older
# build's binary) when given, in the same order, so both are judged on the same rows. Each prints
# its rows a minute and where the rows' time went; then `compare` over the rows both finished.
if want throughput; then
  # TP_EVERY=K: every K-th graph of the set (in its order), so that a cut short of the whole set
  # still sees its mix; graphs/perf alone opens with the heavy GEMMs that run at the power cap.
  TP_SET=$( (find graphs/perf -name '*.json' | sort; wl_subset 17 | tr , '\n') |
    awk -v k="${TP_EVERY:-1}" 'NR % k == 1 || k == 1' | paste -sd, -)
  for who in ${BASE_BIN:+base} new; do
    bin=$B
    [ "$who" = base ] && bin=$BASE_BIN
    stage "throughput: $who ($bin) over every ${TP_EVERY:-1}th of graphs/perf + every 17th workload for ${TP_SECONDS:=200} s"
    start=$SECONDS
    timeout -s INT "$(cap "$TP_SECONDS")" "$bin" run -g "$TP_SET" --provider cudnn,cublaslt -q \
      -o "$OUT_DIR/tp-$who.json" > "$OUT_DIR/tp-$who.log" 2>&1
    echo "$who rc $?"
    wl_journal_summary "$OUT_DIR/tp-$who.json.journal.jsonl" $((SECONDS - start))
  done
  [ -n "${BASE_BIN:-}" ] && "$B" compare "$OUT_DIR/tp-base.json" "$OUT_DIR/tp-new.json" --allow-mismatch \
    > "$OUT_DIR/tp-compare.log" 2>&1
  [ -n "${BASE_BIN:-}" ] && tail -8 "$OUT_DIR/tp-compare.log"
fi
# A planted slowdown found (docs/reliability.md): a plain run, one with
# DNNBENCH_PLANT_DEVICE_SLOWDOWN=PLANT_FACTOR (default 1.05) and a second plain one (the A/A) over
# PL_SET (default: every 4th ResNet-50 graph from the second, the fp32 ones: their kernels run
# 40-500 us, where 5% is more than the wait kernel's own ~1 us boundary; rows whose share is less run
# unplanted), cuDNN's pick, then `compare`: every row that carried the plant (its kernels hold
# dnnbench_planted_delay) should read SLOWER, every other SAME, and the A/A nothing.
if want planted; then
  PL_SET=${PL_SET:-$(find graphs/perf/resnet50 -name '*.json' | sort | awk 'NR % 4 == 2' | paste -sd, -)}
  stage "planted x${PLANT_FACTOR:=1.05}: plain, planted, plain again"
  for who in plain planted plain2; do
    plant=(env -u DNNBENCH_PLANT_DEVICE_SLOWDOWN)
    [ "$who" = planted ] && plant=(env DNNBENCH_PLANT_DEVICE_SLOWDOWN="$PLANT_FACTOR")
    "${plant[@]}" timeout -s INT "$(cap 120)" "$B" run -g "$PL_SET" --provider cudnn --max-engines 1 -q \
      -o "$OUT_DIR/pl-$who.json" > "$OUT_DIR/pl-$who.log" 2>&1
    echo "$who rc $?"
  done
  "$B" compare "$OUT_DIR/pl-plain.json" "$OUT_DIR/pl-planted.json" --json "$OUT_DIR/pl-compare.json" \
    > "$OUT_DIR/pl-compare.log" 2>&1
  "$B" compare "$OUT_DIR/pl-plain.json" "$OUT_DIR/pl-plain2.json" > "$OUT_DIR/pl-aa.log" 2>&1
  grep -E "compared:|Noise bands|Geomean" "$OUT_DIR/pl-compare.log" "$OUT_DIR/pl-aa.log"
  python3 - "$OUT_DIR/pl-planted.json" "$OUT_DIR/pl-compare.json" <<'PY2'
# Verdicts of the rows that carried the plant and of those that did not.
import collections, json, sys
planted = {g["graph_name"] for g in json.load(open(sys.argv[1]))["graphs"] for r in g["results"]
           if any("planted_delay" in k["name"] for k in r.get("kernels") or [])}
by = collections.defaultdict(collections.Counter)
for row in json.load(open(sys.argv[2]))["comparisons"][0]["rows"]:
    by["planted" if row["graph"] in planted else "unplanted"][row["verdict"]] += 1
for k, v in sorted(by.items()):
    print(f"{k} rows: {dict(v)}")
PY2
fi

if want splitk; then
  # The split-K decode GEMMs (two kernels a call): dnnbench's per-call figure against its CUPTI
  # kernel sum, and PyTorch's CUDA-graph replay decomposed into kernels and gaps
  # (bench/probes/splitk_timeline.py): which side leaves time between the kernels.
  stage "split-K decode GEMMs: per call vs kernel sum, both sides"
  SK=$(ls graphs/perf/gemm/decode_m*_k4096_n4096_*.json | tr '\n' ' ')
  timeout "$(cap 120)" "$B" run $(for g in $SK; do echo -g "$g"; done) --provider cublaslt --max-engines 1 -q \
    -o "$OUT_DIR/splitk-dnnbench.json" > "$OUT_DIR/splitk-dnnbench.log" 2>&1
  echo "dnnbench rc $?"
  python3 - "$OUT_DIR/splitk-dnnbench.json" <<'PY2'
import json, sys
for g in json.load(open(sys.argv[1]))["graphs"]:
    for r in g["results"][:1]:
        ks = r.get("kernel_sum_stats") or {}
        per = (r.get("gpu_kernel_stats") or {}).get("median_ms")
        print("dnnbench %-32s per call %.2f us, kernel sum %.2f us, kernels %s" % (
            g["graph_name"], 1e3 * (per or 0), 1e3 * (ks.get("median_ms") or 0), [k["name"][:40] for k in r.get("kernels", [])]))
PY2
  # torch.matmul through cuBLAS (default) and cuBLASLt, allocating its output in every call as a
  # model does, and writing one preallocated output (--out) as dnnbench's batch does.
  for variant in default "default --out" "cublaslt --out"; do
    tag=$(echo "$variant" | tr -d ' -')
    timeout "$(cap 100)" python3 bench/probes/splitk_timeline.py $SK --blas $variant --json "$OUT_DIR/splitk-torch-$tag.json" \
      > "$OUT_DIR/splitk-torch-$tag.log" 2>&1
    echo "torch timeline ($variant) rc $?"; grep -E "^decode|timeline per call" "$OUT_DIR/splitk-torch-$tag.log"
  done
  # One PyTorch process per graph, as a check on the script: it times every graph before it
  # profiles any (CUPTI, once enabled, slowed later replays by 0.4-2.7 us a call).
  for g in $SK; do
    timeout 40 python3 bench/probes/splitk_timeline.py "$g" 2>&1 | grep -E "^decode"
  done | tee "$OUT_DIR/splitk-torch-per-process.log"
  # What lies between the kernels: each side's CUDA graph of 4 calls of one split-K GEMM, as
  # Graphviz (dnnbench: DNNBENCH_GRAPH_DOT; PyTorch: CUDAGraph.debug_dump), node and edge types.
  DOT_G=graphs/perf/gemm/decode_m16_k4096_n4096_fp16.json
  mkdir -p "$OUT_DIR/dot"
  DNNBENCH_GRAPH_DOT="$OUT_DIR/dot" timeout 60 "$B" run -g "$DOT_G" --provider cublaslt --max-engines 1 --batch 4 --iters 2 \
    --warmup 1 --isolate none --no-kernel-activity -q -o "$OUT_DIR/dot/dnnbench.json" > "$OUT_DIR/dot/dnnbench.log" 2>&1
  echo "dnnbench graph dump rc $?"
  timeout 60 python3 bench/probes/splitk_timeline.py "$DOT_G" --blas cublaslt --calls 4 --replays 2 --dot "$OUT_DIR/dot" \
    > "$OUT_DIR/dot/torch.log" 2>&1
  echo "torch graph dump rc $?"
  python3 - "$OUT_DIR"/dot/*.dot <<'PY2'
# Per graph file: its node types, edge kinds, and the launch attributes the kernels carry.
import collections, re, sys
for path in sys.argv[1:]:
    text = open(path, errors="replace").read()
    kinds = collections.Counter(re.findall(r"\b(KERNEL|MEMSET|MEMCPY|EVENT_RECORD|WAIT_EVENT|EVENT|HOST|EMPTY|MEM_ALLOC|MEM_FREE|CONDITIONAL)\b", text))
    edges = collections.Counter(re.findall(r"(programmatic\w*|PROGRAMMATIC\w*)", text))
    attrs = sorted(set(re.findall(r"(priority[^\\|}\n]{0,30}|cluster[^\\|}\n]{0,30}|sharedMem[^\\|}\n]{0,30})", text)))[:8]
    print("%s: %d bytes, nodes %s, programmatic %s" % (path.split("/")[-1], len(text), dict(kinds), dict(edges)))
    for a in attrs:
        print("    " + a)
PY2
fi
if want pool-eng3; then
  # cuDNN's runtime-compiled resample engine eng3 on the workload pools it failed:
  # each alone, with no compiled-plan cache (compiled fresh), on 9.14 and 9.19, then the U-Net
  # max-pool under compute-sanitizer's memcheck (one execution): whose access is out of bounds.
  stage "cuDNN eng3 on the workload pools that failed, then under compute-sanitizer"
  # The bf16 ones failed (the fp16 twins, 1049 and 0474, passed alone, in pairs, cached or not).
  POOLS=$(ls graphs/workloads/{1072_unet_b1_512__MaxPool,0579_efficientnet_b0_b1__features_features.2_features.2.0_block_block.2_avgpool_Globa,0029_resnet50_b1__maxpool_MaxPool,1075_unet_b1_512__MaxPool_1,1049_unet_b1_512__MaxPool}.json 2> /dev/null)
  for bin in "$B" "$B919"; do
    [ -x "$bin" ] || continue
    for g in $POOLS; do
      DNNBENCH_PLAN_CACHE=off timeout 60 "$bin" run -g "$g" --provider cudnn --engine eng3 --isolate none --warmup 1 --iters 3 \
        --no-kernel-activity -q -o "$OUT_DIR/pool-$(basename "$bin")-$(basename "$g")" > "$OUT_DIR/pool.log" 2>&1
      echo "$(basename "$(dirname "$bin")") $(basename "$g" .json): rc $? $(grep -E 'FAILED|error ' "$OUT_DIR/pool.log" | head -1 | cut -c1-200)"
    done
  done
  CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2> /dev/null)
  if [ -n "$CS" ]; then
    DNNBENCH_PLAN_CACHE=off timeout 240 "$CS" --tool memcheck --print-limit 3 "$B" run -g graphs/workloads/1072_unet_b1_512__MaxPool.json \
      --provider cudnn --engine eng3 --isolate none --warmup 0 --iters 1 --batch 1 --no-kernel-activity --no-graph-replay -q \
      > "$OUT_DIR/pool-memcheck.log" 2>&1
    echo "memcheck rc $?"; grep -E "Invalid|at 0x|by thread|Address|kernel|ERROR SUMMARY" "$OUT_DIR/pool-memcheck.log" | head -16 | cut -c1-220
  else
    echo "no compute-sanitizer here"
  fi
fi
if want versions && [ -x "$B919" ]; then
  # One library against another: the same ResNet-50 / GEMM subset on cuDNN 9.14 (the system's, $B)
  # and 9.19 (PyTorch's, $B919), then `dnnbench compare` by heuristic, engine and best plan, and
  # the HTML report of both.
  stage "cuDNN 9.14 vs 9.19 on a ResNet-50 / GEMM subset: compare and report"
  # VERSIONS_EVERY=K: every K-th graph of graphs/workloads instead (the collection's diff).
  V=()
  [ -n "${VERSIONS_EVERY:-}" ] && for g in $(wl_subset "$VERSIONS_EVERY" | tr ',' ' '); do V+=(-g "$g"); done
  [ -n "${VERSIONS_EVERY:-}" ] || for g in graphs/perf/resnet50/rn50_res2_1x1_64_256_fwd_n32_nhwc_fp16.json \
           graphs/perf/resnet50/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json \
           graphs/perf/resnet50/rn50_res3_1x1_128_512_fwd_n32_nhwc_fp16.json \
           graphs/perf/resnet50/rn50_res4_3x3_256_256_fwd_n32_nhwc_fp16.json \
           graphs/perf/resnet50/rn50_res5_1x1_512_2048_fwd_n32_nhwc_fp16.json \
           graphs/perf/gemm/bert_large_ffn_up_m4096_k1024_n4096_fp16.json; do
    [ -f "$g" ] && V+=(-g "$g")
  done
  # VERSIONS_EXTRA: more run options on both sides (e.g. --oracle: compare then diffs the workload
  # report, per op family and model, between the two libraries).
  args=(--provider cudnn --max-engines "${VERSIONS_ENGINES:-4}" --max-time-ms 300 --save-samples -q ${VERSIONS_EXTRA:-})
  LD_LIBRARY_PATH="$DEPS_LIB" timeout -s INT "$(cap "${VERSIONS_SECONDS:-100}")" "$B" run "${V[@]}" "${args[@]}" \
    -o "$OUT_DIR/cudnn914.json" > "$OUT_DIR/run914.log" 2>&1
  echo "9.14 run rc $?"
  timeout -s INT "$(cap "${VERSIONS_SECONDS:-100}")" "$B919" run "${V[@]}" "${args[@]}" -o "$OUT_DIR/cudnn919.json" > "$OUT_DIR/run919.log" 2>&1
  echo "9.19 run rc $?"
  for by in heuristic engine best; do
    LD_LIBRARY_PATH="$DEPS_LIB" "$B" compare "$OUT_DIR/cudnn914.json" "$OUT_DIR/cudnn919.json" --by $by --json "$OUT_DIR/compare-$by.json" \
      > "$OUT_DIR/compare-$by.txt" 2>&1
    echo "compare --by $by rc $?"
  done
  head -60 "$OUT_DIR/compare-heuristic.txt"
  grep -A30 '^Workload report, A' "$OUT_DIR/compare-heuristic.txt" | head -40
  LD_LIBRARY_PATH="$DEPS_LIB" "$B" report "$OUT_DIR/cudnn914.json" "$OUT_DIR/cudnn919.json" --html "$OUT_DIR/versions.html" > /dev/null 2>&1
  echo "report rc $? ($(stat -c %s "$OUT_DIR/versions.html" 2> /dev/null) bytes)"
fi
