#!/usr/bin/env bash
# compare's A/A between processes on the GPU machine (issue 32): graphs/perf/resnet50 on cuDNN's
# top pick, three pairs of separate runs, each pair compared. Done when all three exit 0 with no
# regression. Run after scripts/gpu-run.sh built build/gpu/dnnbench:
#
#   bench/compare-aa-gpu.sh [OUT_DIR] [PAIRS]
set -uo pipefail
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH=/tmp/dnnbench-prefix/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
DNNBENCH_BIN=${DNNBENCH_BIN:-build/gpu/dnnbench} exec bench/compare-aa.sh "${1:-${OUT:-out}/compare-aa-gpu}" \
  "${2:-3}" -- -g graphs/perf/resnet50 --provider cudnn --max-engines 1
