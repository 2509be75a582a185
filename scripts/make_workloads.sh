#!/usr/bin/env bash
# Build graphs/workloads (docs/import.md) from the ONNX files scripts/export_workloads.py wrote:
# imports every model variant in fp16 and bf16 with `dnnbench import` (training variants with
# --backward, CNNs channels-last), merges identical graphs across models and writes one manifest
# with each graph's models, layers and counts. Runs on any machine whose dnnbench has the ONNX
# importer (libonnx-dev at configure time; not the GPU machine's).
#
#   scripts/make_workloads.sh ONNX_DIR [OUT_DIR]     (default OUT_DIR: graphs/workloads)
#   env DNNBENCH=path/to/dnnbench (default: the first of build/default, build/release, build/debug)
#       WORK=DIR to keep the per-variant imports; ONLY=name,prefix... to import some variants
set -euo pipefail
cd "$(dirname "$0")/.."
ONNX_DIR=${1:?usage: scripts/make_workloads.sh ONNX_DIR [OUT_DIR]}
OUT_DIR=${2:-graphs/workloads}
BIN=${DNNBENCH:-}
if [ -z "$BIN" ]; then
  for b in build/default/dnnbench build/release/dnnbench build/debug/dnnbench; do
    [ -x "$b" ] && BIN=$b && break
  done
fi
[ -n "$BIN" ] && [ -x "$BIN" ] || { echo "no dnnbench binary: build one or set DNNBENCH" >&2; exit 1; }
[ -f "$ONNX_DIR/workloads.json" ] || { echo "$ONNX_DIR/workloads.json missing: run scripts/export_workloads.py first" >&2; exit 1; }
python3 scripts/make_workloads.py "$ONNX_DIR" "$OUT_DIR" --dnnbench "$BIN" ${WORK:+--work "$WORK"} ${ONLY:+--only "$ONLY"}
# The collection must load as a whole: every graph read and validated, none a duplicate.
"$BIN" run -g "$OUT_DIR" --dry-run --provider reference -q | tail -3
