#!/usr/bin/env python3
"""Export torchvision's ResNet-50 and one BERT-base encoder layer to ONNX (shapes only:
export_params=False), for `dnnbench import`. Runs where PyTorch is (the GPU machine).

    python3 scripts/export_onnx_models.py OUT_DIR
"""
import sys

import torch


def export(model, args, path):
    kw = dict(export_params=False, opset_version=17, do_constant_folding=True)
    try:
        torch.onnx.export(model, args, path, dynamo=False, **kw)
    except TypeError:
        torch.onnx.export(model, args, path, **kw)
    print("exported", path, flush=True)


def bert_layer():
    try:
        from transformers import BertConfig
        from transformers.models.bert.modeling_bert import BertLayer

        layer = BertLayer(BertConfig(attn_implementation="eager")).eval()

        class One(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = layer

            def forward(self, x):
                out = self.layer(x)
                return out[0] if isinstance(out, (tuple, list)) else out

        return One()
    except Exception as e:  # transformers' API moves; the plain layer has the same shapes
        print(f"transformers' BertLayer not usable ({e}); nn.TransformerEncoderLayer instead")
        return torch.nn.TransformerEncoderLayer(768, 12, 3072, activation="gelu",
                                                batch_first=True).eval()


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    import torchvision

    with torch.no_grad():
        export(torchvision.models.resnet50().eval(), (torch.randn(32, 3, 224, 224),),
               f"{out}/resnet50.onnx")
        export(bert_layer(), (torch.randn(8, 128, 768),), f"{out}/bert_layer.onnx")


if __name__ == "__main__":
    main()
