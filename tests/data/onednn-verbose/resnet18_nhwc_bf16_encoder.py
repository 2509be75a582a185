# torchvision's ResNet-18 forward in channels-last, once in fp32 and once under CPU bf16 autocast,
# then a transformer encoder layer (d_model 256, 4 heads) forward: the program whose oneDNN verbose
# log is resnet18-nhwc-bf16-encoder-torch1.13.log (Debian 12's python3-torch 1.13.1 with oneDNN
# 2.6.3, python3-torchvision 0.14.1), captured with
#   scripts/capture -o DIR -- /usr/bin/python3 tests/data/onednn-verbose/resnet18_nhwc_bf16_encoder.py
# The log holds channels-last convolutions in fp32 and bf16 (weights in oneDNN's padded blockings)
# and one bf16 matmul with a fused `sum` post-op (the classifier under autocast); the encoder layer
# runs outside oneDNN in this build.
import torch
import torchvision

torch.manual_seed(0)
m = torchvision.models.resnet18().eval().to(memory_format=torch.channels_last)
x = torch.randn(2, 3, 224, 224).to(memory_format=torch.channels_last)
with torch.no_grad():
    m(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        m(x)
enc = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True).eval()
with torch.no_grad():
    enc(torch.randn(2, 64, 256))
print("ok")
