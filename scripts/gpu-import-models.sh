#!/usr/bin/env bash
# Run on the GPU machine after scripts/gpu-run.sh built build/gpu (GPU_RUN_SKIP_TESTS=1
# GPU_RUN_SKIP_SMOKE=1 is enough): exports torchvision's ResNet-50 and one BERT-base encoder layer
# with torch.onnx.export (shapes only: export_params=False), imports them and runs the layers on
# cuDNN. The model summaries are in OUT_DIR/{resnet50,bert}.log and .json.
#
#   scripts/gpu-import-models.sh [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out/gpu}}
BUILD=${GPU_RUN_BUILD:-build/gpu}
PREFIX=${GPU_RUN_PREFIX:-/tmp/dnnbench-prefix}
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
MODELS=${MODELS_DIR:-/tmp/dnnbench-models}
mkdir -p "$OUT_DIR" "$MODELS"
python3 - "$MODELS" <<'PY' 2>&1 | tail -5
import sys, torch
out = sys.argv[1]
def export(model, args, path):
    kw = dict(export_params=False, opset_version=17, do_constant_folding=True)
    try:
        torch.onnx.export(model, args, path, dynamo=False, **kw)
    except TypeError:
        torch.onnx.export(model, args, path, **kw)
    print("exported", path)
import torchvision
export(torchvision.models.resnet50().eval(), (torch.randn(32, 3, 224, 224),), f"{out}/resnet50.onnx")
try:
    from transformers import BertConfig
    from transformers.models.bert.modeling_bert import BertLayer
    layer = BertLayer(BertConfig()).eval()
    class One(torch.nn.Module):
        def __init__(self):
            super().__init__(); self.layer = layer
        def forward(self, x):
            return self.layer(x)[0]
    model = One()
except Exception as e:
    print("transformers not usable (%s); nn.TransformerEncoderLayer(768, 12, 3072, gelu) instead" % e)
    model = torch.nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu", batch_first=True).eval()
with torch.no_grad():
    export(model, (torch.randn(8, 128, 768),), f"{out}/bert_layer.onnx")
PY
for m in resnet50 bert_layer; do
  [ -f "$MODELS/$m.onnx" ] || continue
  "$BUILD/dnnbench" import "$MODELS/$m.onnx" -o "$MODELS/$m" > "$OUT_DIR/$m-import.log" 2>&1
  echo "import $m: exit $?"; head -3 "$OUT_DIR/$m-import.log"
  cp "$MODELS/$m/manifest.json" "$OUT_DIR/$m-manifest.json"
  "$BUILD/dnnbench" run -g "$MODELS/$m" --provider cudnn --max-engines 8 --warmup 2 --warmup-max-ms 0 --iters 20 \
    -o "$OUT_DIR/$m.json" > "$OUT_DIR/$m.log" 2>&1
  echo "run $m: exit $?"
  sed -n '/^Model summary/,$p' "$OUT_DIR/$m.log" | head -20
done
