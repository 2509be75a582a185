"""One step of a PyTorch workload on the GPU, to capture cuDNN's API log of it (issue: capture importer).

    python3 torch_step.py MODEL log OUT_DIR       one step (the plans are built and run once);
                                                  run it under CUDNN_LOGLEVEL_DBG=3 CUDNN_LOGDEST_DBG=...
    python3 torch_step.py MODEL profile OUT_DIR   warm steps, then torch.profiler's kernels of one step
                                                  (OUT_DIR/MODEL-kernels.json) and the step time by CUDA events

MODEL: resnet50   ResNet-50 training step, fp16 AMP, channels-last, batch 32, 224x224, SGD
       bert       BERT-base encoder layer forward+backward, fp16, batch 8, seq 512, SDPA on cuDNN
       llama      Llama-style decoder layer forward+backward, bf16, batch 1, seq 2048, 32 heads
                  (8 KV heads repeated), causal SDPA on cuDNN, SwiGLU 11008
"""
import json
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel


class BertLayer(nn.Module):
    def __init__(self, hidden=768, heads=12, ffn=3072):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.ln1 = nn.LayerNorm(hidden)
        self.up = nn.Linear(hidden, ffn)
        self.down = nn.Linear(ffn, hidden)
        self.ln2 = nn.LayerNorm(hidden)

    def forward(self, x):
        b, s, h = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, h // self.heads).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v)
        x = self.ln1(x + self.out(a.transpose(1, 2).reshape(b, s, h)))
        return self.ln2(x + self.down(F.gelu(self.up(x))))


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + self.eps)).to(x.dtype) * self.weight


def rope(x, pos):
    d = x.shape[-1]
    inv = 1.0 / (10000 ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
    ang = pos[:, None].float() * inv[None, :]
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    return torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self, hidden=4096, heads=32, kv_heads=8, ffn=11008):
        super().__init__()
        self.heads, self.kv_heads, self.dim = heads, kv_heads, hidden // heads
        self.q = nn.Linear(hidden, hidden, bias=False)
        self.k = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.v = nn.Linear(hidden, kv_heads * self.dim, bias=False)
        self.o = nn.Linear(hidden, hidden, bias=False)
        self.gate = nn.Linear(hidden, ffn, bias=False)
        self.up = nn.Linear(hidden, ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)
        self.n1, self.n2 = RMSNorm(hidden), RMSNorm(hidden)

    def forward(self, x):
        b, s, h = x.shape
        y = self.n1(x)
        pos = torch.arange(s, device=x.device)
        q = rope(self.q(y).view(b, s, self.heads, self.dim).transpose(1, 2), pos)
        k = rope(self.k(y).view(b, s, self.kv_heads, self.dim).transpose(1, 2), pos)
        v = self.v(y).view(b, s, self.kv_heads, self.dim).transpose(1, 2)
        rep = self.heads // self.kv_heads
        k, v = k.repeat_interleave(rep, dim=1), v.repeat_interleave(rep, dim=1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, h))
        return x + self.down(F.silu(self.gate(self.n2(x))) * self.up(self.n2(x)))


def make(model):
    dev = "cuda"
    if model == "resnet50":
        import torchvision

        net = torchvision.models.resnet50().to(dev).to(memory_format=torch.channels_last)
        opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
        scaler = torch.amp.GradScaler("cuda")
        x = torch.randn(32, 3, 224, 224, device=dev).to(memory_format=torch.channels_last)
        y = torch.randint(0, 1000, (32,), device=dev)

        def step():
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(net(x), y)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()

        return step
    if model in ("bert", "llama"):
        dtype = torch.float16 if model == "bert" else torch.bfloat16
        net = (BertLayer() if model == "bert" else LlamaLayer()).to(dev, dtype)
        shape = (8, 512, 768) if model == "bert" else (1, 2048, 4096)
        x = torch.randn(*shape, device=dev, dtype=dtype, requires_grad=True)

        def step():
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                net(x).float().square().mean().backward()

        return step
    raise SystemExit(f"torch_step.py: unknown model '{model}' (resnet50, bert, llama)")


def main():
    model, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    step = make(model)
    if mode == "log":
        step()
        torch.cuda.synchronize()
        return
    for _ in range(5):
        step()
    torch.cuda.synchronize()
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        step()
        torch.cuda.synchronize()
    kernels = {}
    for e in prof.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            k = kernels.setdefault(e.name, {"name": e.name, "count": 0, "total_us": 0.0})
            k["count"] += 1
            k["total_us"] += e.device_time
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    steps = 20
    start.record()
    for _ in range(steps):
        step()
    end.record()
    torch.cuda.synchronize()
    summary = {
        "model": model,
        "torch": torch.__version__,
        "cudnn": torch.backends.cudnn.version(),
        "device": torch.cuda.get_device_name(),
        "step_ms_events": start.elapsed_time(end) / steps,
        "kernel_sum_us": sum(k["total_us"] for k in kernels.values()),
        "kernels": sorted(kernels.values(), key=lambda k: -k["total_us"]),
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    with open(os.path.join(out, f"{model}-kernels.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(model, "step", round(summary["step_ms_events"], 3), "ms; kernel sum", round(summary["kernel_sum_us"], 1), "us")


if __name__ == "__main__":
    main()
