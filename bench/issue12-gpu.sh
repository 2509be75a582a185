#!/usr/bin/env bash
# Issue 12's measurements on the GPU machine, in one call of the device tool (carry .debs, and
# .before for the "before" binary: `git archive <commit> | tar -x -C .before`):
#
#   bench/issue12-gpu.sh STAGES...      logs and results in /tmp/issue12, packed into $OUT/issue12.tgz
#
# Stages: build (scripts/gpu-run.sh, gpu tests), before (builds .before's dnnbench), torchbuild
# (dnnbench against PyTorch's cuDNN in build/gpu-torch), ncu (bench/ncu-check.sh), overhead
# (bench/overhead.sh before/after), oracle (--oracle, top 3, ResNet-50 fp16 forward), torch
# (bench/torch-compare.sh on the oracle run), aa (bench/oracle-aa-gpu.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
R=/tmp/issue12
mkdir -p "$R" "${OUT:-out}"
export LD_LIBRARY_PATH=/tmp/dnnbench-prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
RN_FWD="$(ls graphs/perf/resnet50/*_fwd_*fp16.json | tr '\n' ' ')"
# nvidia.cudnn is a namespace package (its __file__ is None): take its path.
TORCH_CUDNN=$(python3 -c "import nvidia.cudnn; print(list(nvidia.cudnn.__path__)[0])" 2>/dev/null)
stage_t=$(date +%s)
mark() { echo "== issue12: $1 done at +$(( $(date +%s) - stage_t )) s"; }
has() { [[ " $STAGES " == *" $1 "* ]]; }
STAGES=" $* "
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv,noheader

if has before; then
  # The binary before issue 12, built alongside (dnnbench target only).
  (cd .before && cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR=OFF -DDNNBENCH_BUILD_TESTS=OFF \
     -DDNNBENCH_WITH_CUDNN=ON -DDNNBENCH_WITH_ONEDNN=OFF -DCMAKE_PREFIX_PATH=/tmp/dnnbench-prefix/usr > "$R/before-configure.log" 2>&1 \
   && cmake --build build/gpu -j 6 --target dnnbench > "$R/before-build.log" 2>&1; echo "before build rc $?" >> "$R/before-build.log") &
  before_pid=$!
fi
if has torchbuild; then
  mkdir -p /tmp/dnnbench-prefix
  (sleep 20; cmake -S . -B build/gpu-torch -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR=ON -DDNNBENCH_BUILD_TESTS=OFF \
     -DDNNBENCH_WITH_CUDNN=ON -DDNNBENCH_WITH_ONEDNN=OFF -DCMAKE_PREFIX_PATH=/tmp/dnnbench-prefix/usr -DCUDNN_ROOT="$TORCH_CUDNN" \
     > "$R/torch-configure.log" 2>&1 && cmake --build build/gpu-torch -j 6 --target dnnbench > "$R/torch-build.log" 2>&1
   echo "torch build rc $?" >> "$R/torch-build.log") &
  torch_pid=$!
fi
if has build; then
  GPU_RUN_SKIP_SMOKE=1 GPU_RUN_ONLY_GPU_TESTS=1 scripts/gpu-run.sh "$R/gpu" 2>&1 | tail -25
  echo "warnings in the GPU build: $(grep -c 'warning:' "$R/gpu/build.log")"
  grep 'warning:' "$R/gpu/build.log" | sort | uniq | head -10
  grep -E "error" -A3 "$R/gpu/build.log" | head -30
  mark build
  if [ ! -x build/gpu/dnnbench ]; then
    tar -czf "${OUT:-out}/issue12.tgz" -C /tmp issue12; echo "issue12: no binary, stopping"; exit 1
  fi
fi
[ -n "${before_pid:-}" ] && { wait "$before_pid"; tail -1 "$R/before-build.log"; mark before; }
[ -n "${torch_pid:-}" ] && { wait "$torch_pid"; tail -1 "$R/torch-build.log"; grep -c "warning:" "$R/torch-build.log"; mark torchbuild; }

if has ncu; then
  timeout -s INT 300 bench/ncu-check.sh "$R/ncu" 2>&1 | tail -60
  mark ncu
fi
if has overhead; then
  SUB="graphs/perf/resnet50/rn50_res2_3x3_64_64_fwd_n32_nhwc_fp16.json graphs/perf/resnet50/rn50_res2_1x1_64_256_fwd_n32_nhwc_fp16.json"
  [ -x .before/build/gpu/dnnbench ] && GRAPHS="$SUB" EXTRA="--max-engines 3" LABEL=before-subset DNNBENCH=.before/build/gpu/dnnbench \
    timeout -s INT 150 bench/overhead.sh "$R/overhead"
  GRAPHS="$SUB" EXTRA="--max-engines 3" LABEL=after-subset timeout -s INT 100 bench/overhead.sh "$R/overhead"
  LABEL=after timeout -s INT 300 bench/overhead.sh "$R/overhead"
  mark overhead
fi
if has oracle; then
  BIN=${ORACLE_BIN:-build/gpu/dnnbench}
  s=$(date +%s)
  # shellcheck disable=SC2086
  timeout -s INT 600 "$BIN" run $(for g in $RN_FWD; do echo -g "$g"; done) --provider cudnn --max-engines 3 --oracle -q \
    -o "$R/oracle.json" > "$R/oracle.log" 2>&1
  echo "oracle top 3 over $(echo $RN_FWD | wc -w) ResNet-50 fp16 forward graphs: exit $?, $(( $(date +%s) - s )) s"
  tail -4 "$R/oracle.log"
  mark oracle
fi
if has torch; then
  CUDNN_ROOT=$TORCH_CUDNN python3 bench/torch_compare.py $RN_FWD --dnnbench "$R/oracle.json" 2>&1 | tail -40 | tee "$R/torch.txt"
  mark torch
fi
if has aa; then
  bench/oracle-aa-gpu.sh "$R/aa" "${AA_SECONDS:-240}" 2>&1 | tail -12
  mark aa
fi
tar -czf "${OUT:-out}/issue12.tgz" -C /tmp issue12 2>/dev/null
ls -la "${OUT:-out}"
