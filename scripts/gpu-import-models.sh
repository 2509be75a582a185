#!/usr/bin/env bash
# Run on the GPU machine after scripts/gpu-run.sh built build/gpu: runs the layers of torchvision's
# ResNet-50 (batch 32) and of one BERT-base encoder layer (batch 8, sequence 128) on cuDNN and
# prints each model's summary (docs/import.md). The graphs in graphs/models/ were imported with
# `dnnbench import` from the ONNX files beside them, which scripts/export_onnx_models.py wrote
# with torch.onnx.export on the H200 (shapes only). The GPU machine has no libonnx, so its binary
# has no importer; where the binary has one (`dnnbench import` works), the models are
# re-exported and re-imported first.
#
#   scripts/gpu-import-models.sh [OUT_DIR]        (env MAX_ENGINES, default 4; ITERS)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out/gpu}}
BUILD=${GPU_RUN_BUILD:-build/gpu}
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX (the unpacked .deb dependencies)
mkdir -p "$OUT_DIR"
MODELS=graphs/models
if "$BUILD/dnnbench" import graphs/models/bert_layer.onnx -o "$OUT_DIR/onnx-probe" > /dev/null 2>&1 &&
  python3 -c "import torch, torchvision" 2> /dev/null; then
  MODELS=$OUT_DIR/models
  mkdir -p "$MODELS"
  python3 scripts/export_onnx_models.py "$MODELS" 2>&1 | grep -v -i warn
  for m in resnet50 bert_layer; do "$BUILD/dnnbench" import "$MODELS/$m.onnx" -o "$MODELS/$m" | head -3; done
fi
for m in resnet50 bert_layer; do
  [ -f "$MODELS/$m/manifest.json" ] || { echo "no $MODELS/$m/manifest.json"; continue; }
  "$BUILD/dnnbench" run -g "$MODELS/$m" --provider cudnn --max-engines "${MAX_ENGINES:-4}" \
    ${ITERS:+--iters "$ITERS"} -o "$OUT_DIR/$m.json" > "$OUT_DIR/$m.log" 2>&1
  echo "run $m: exit $?"
  sed -n '/^Model summary/,$p' "$OUT_DIR/$m.log" | head -24
done
