#!/usr/bin/env python3
"""Export torchvision's ResNet-50 and one BERT-base encoder layer to ONNX (shapes only:
export_params=False), for `dnnbench import`: the two models of graphs/models. Runs where PyTorch is
(the GPU machine). The exporter and the BERT layer are scripts/export_workloads.py's (the
collection of graphs/workloads holds these models too, among others).

    python3 scripts/export_onnx_models.py OUT_DIR
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_workloads import bert_layer, export  # noqa: E402

import torch  # noqa: E402


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    import torchvision

    with torch.no_grad():
        for model, args, path in ((torchvision.models.resnet50().eval(), (torch.randn(32, 3, 224, 224),),
                                   f"{out}/resnet50.onnx"),
                                  (bert_layer().eval(), (torch.randn(8, 128, 768),), f"{out}/bert_layer.onnx")):
            export(model, args, path)
            print("exported", path, flush=True)


if __name__ == "__main__":
    main()
