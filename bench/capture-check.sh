#!/usr/bin/env bash
# Does dnnbench, given a framework's own cuDNN API log, run the kernels the framework ran, in the
# time it took? For each committed PyTorch 2.11 capture (tests/data/cudnn-log: a ResNet-50 AMP
# training step, a BERT-base layer and a Llama-style decoder layer forward+backward, captured on
# the H200 with tests/data/cudnn-log/torch_step.py): `dnnbench import` the log, run the heuristic
# pick of every imported graph on cuDNN, and hold the run against torch.profiler's kernels of one
# step (bench/lib/capture_compare.py: executions that ran and passed, graphs whose kernels the
# framework ran by name, the matched kernels' summed time). The framework's side is profiled
# again on this machine when its PyTorch is there (torch_step.py MODEL profile: the same kernels,
# timed in the same conditions as dnnbench's rows); else the committed profiles of the H200 the
# captures were made on, which hold for kernel names on that GPU only.
#
#   bench/capture-check.sh OUT_DIR [MODEL...]      MODEL: resnet50 bert llama (default: all three)
#
# Environment: DNNBENCH_BIN (default build/gpu919/dnnbench, the build against PyTorch's cuDNN, which
# the captures were made with, else build/gpu/dnnbench), RUN_ARGS (extra `dnnbench run` options),
# RUN_SECONDS (each run is interrupted after so long and writes the rows it has: a time-boxed check).
# The comparison says when the run's cuDNN is not the capture's: picks and kernel names follow it.
set -uo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: bench/capture-check.sh OUT_DIR [resnet50|bert|llama ...]" >&2; exit 2; }
out=$1; shift
models=("$@"); [ ${#models[@]} -gt 0 ] || models=(bert llama resnet50)
bin=${DNNBENCH_BIN:-build/gpu/dnnbench}
if [ -z "${DNNBENCH_BIN:-}" ] && [ -x build/gpu919/dnnbench ]; then
  bin=build/gpu919/dnnbench
  . bench/lib/gpu-env.sh
  cudnn919=$(torch_cudnn_dir)
  [ -n "$cudnn919" ] && export LD_LIBRARY_PATH="$cudnn919/lib:$LD_LIBRARY_PATH"
fi
[ -x "$bin" ] || { echo "capture-check: no dnnbench binary at $bin (set DNNBENCH_BIN)" >&2; exit 2; }
mkdir -p "$out" || exit 2
cut=()
[ -n "${RUN_SECONDS:-}" ] && cut=(timeout -s INT "$RUN_SECONDS")
rc=0
for m in "${models[@]}"; do
  case "$m" in
    resnet50) log=tests/data/cudnn-log/resnet50-amp-step-torch2.11-cudnn9.19.log.xz ;;
    bert) log=tests/data/cudnn-log/bert-layer-torch2.11-cudnn9.19.log.xz ;;
    llama) log=tests/data/cudnn-log/llama-layer-torch2.11-cudnn9.19.log.xz ;;
    *) echo "capture-check: unknown model $m (resnet50, bert or llama)" >&2; exit 2 ;;
  esac
  kernels=tests/data/cudnn-log/$m-step-kernels-torch2.11.json
  if python3 -c "import torch, torchvision; assert torch.cuda.is_available()" 2> /dev/null &&
    python3 tests/data/cudnn-log/torch_step.py "$m" profile "$out/framework" > "$out/$m-profile.log" 2>&1; then
    kernels=$out/framework/$m-kernels.json
  fi
  echo "capture-check: $m: the framework's kernels from $kernels"
  rm -rf "$out/$m"
  "$bin" import "$log" -o "$out/$m" -q > "$out/$m-import.log" 2>&1 || { echo "capture-check: $m: import failed (see $out/$m-import.log)"; rc=1; continue; }
  # shellcheck disable=SC2086
  "${cut[@]}" "$bin" run -g "$out/$m" --provider cudnn --max-engines 1 --progress none ${RUN_ARGS:-} -o "$out/$m-run.json" \
    > "$out/$m-run.log" 2>&1
  run_rc=$?
  grep -E "^time:" "$out/$m-run.log"
  [ $run_rc -eq 0 ] || { echo "capture-check: $m: run exit code $run_rc (see $out/$m-run.log)"; rc=1; }
  # The graphs the framework ran through cuDNN's legacy API (its batch norm): that engine's run too,
  # so they are held to the kernels the framework ran, not to the graph API's.
  also=()
  mapfile -t legacy < <(python3 -c 'import json, sys
for g in json.load(open(sys.argv[1]))["graphs"]:
    if any("ran legacy_bn" in s for s in g.get("sources", [])): print(sys.argv[2] + "/" + g["file"])' \
    "$out/$m/manifest.json" "$out/$m")
  if [ ${#legacy[@]} -gt 0 ]; then
    # shellcheck disable=SC2086
    "${cut[@]}" "$bin" run $(printf -- '-g %s ' "${legacy[@]}") --provider cudnn --engine legacy_bn --progress none \
      ${RUN_ARGS:-} -o "$out/$m-run-legacy.json" > "$out/$m-run-legacy.log" 2>&1 ||
      { echo "capture-check: $m: the legacy-API run failed (see $out/$m-run-legacy.log)"; rc=1; }
    grep -E "^time:" "$out/$m-run-legacy.log"
    [ -s "$out/$m-run-legacy.json" ] && also=(--also "$out/$m-run-legacy.json")
  fi
  [ -s "$out/$m-run.json" ] && python3 bench/lib/capture_compare.py "$out/$m" "$out/$m-run.json" "$kernels" \
    "${also[@]}" --json "$out/$m-compare.json" || rc=1
done
exit $rc
