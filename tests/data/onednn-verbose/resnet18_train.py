# One training step (forward + backward) of torchvision's ResNet-18 on the CPU, batch 2: the
# program whose oneDNN verbose log is resnet18-train-torch1.13.log (Debian 12's python3-torch
# 1.13.1, built with oneDNN 2.6.3, and python3-torchvision 0.14.1), captured with
#   scripts/capture -o DIR -- /usr/bin/python3 tests/data/onednn-verbose/resnet18_train.py
# PyTorch's CPU build runs its convolutions (forward, backward data, backward weights) through
# oneDNN and its batch norm, pooling and linear layers in its own kernels, so the log holds
# convolutions and the reorders around them.
import torch
import torchvision

torch.manual_seed(0)
model = torchvision.models.resnet18().train()
x = torch.randn(2, 3, 224, 224)
loss = model(x).sum()
loss.backward()
print("loss", float(loss))
