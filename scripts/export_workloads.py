#!/usr/bin/env python3
"""Export the models of the real-workload collection (graphs/workloads, docs/import.md) to ONNX,
shapes only (export_params=False: no weights are written; models are built from their configs,
never downloaded), for `scripts/make_workloads.sh`. Runs where PyTorch is (the GPU machine: torch,
torchvision, timm, transformers; diffusers when present).

    python3 scripts/export_workloads.py OUT_DIR [--only NAME[,...]] [--skip NAME[,...]] [--cpu]

Writes OUT_DIR/<variant>.onnx (fp32; make_workloads.sh imports each in fp16 and bf16 with
`dnnbench import --dtype`) and OUT_DIR/workloads.json, which says for each variant its model,
family, batch, sequence, pass (inference / training: imported with --backward), layout and how
many times the exported block repeats in the model (a BERT-base layer 12 times, a Llama-3-8B
decoder layer 32 times). Each export is tried on its own: one failure is printed and the others go
on; the last line says how many exported.
"""
import argparse
import json
import math
import os
import sys
import time
import traceback

# timm's attention as explicit matmuls and softmax (not fused SDPA), which the importer reads as
# one SDPA graph per attention.
os.environ.setdefault("TIMM_FUSED_ATTN", "0")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

OPSET = 17  # Debian's libonnx 1.12 (the importer's) knows opsets up to 17


def export(model, args, path):
    """TorchScript's exporter (as scripts/export_onnx_models.py); where it fails, torch.export's
    (dynamo), converted to opset 17. Returns which one wrote the file."""
    kw = dict(export_params=False, opset_version=OPSET, do_constant_folding=True)
    with torch.no_grad():
        try:
            torch.onnx.export(model, args, path, dynamo=False, **kw)
            return "torchscript"
        except TypeError:  # a torch without the dynamo argument
            torch.onnx.export(model, args, path, **kw)
            return "torchscript"
        except Exception as e:
            print(f"  TorchScript export failed ({type(e).__name__}: {str(e)[:200]}); trying dynamo", flush=True)
        torch.onnx.export(model, args, path, dynamo=True, external_data=False, **kw)
        return "dynamo"


# ---------------------------------------------------------------- hand-built blocks


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                                 nn.ReLU(inplace=True), nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                                 nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.net(x)


class UNet(nn.Module):
    """The standard U-Net (Ronneberger et al. 2015, with padding and batch norm, as in the common
    PyTorch implementations): 4 downsamplings, 64..1024 channels, transposed-conv upsampling."""

    def __init__(self, cin=3, classes=2, width=64):
        super().__init__()
        w = [width * 2**i for i in range(5)]
        self.inc = DoubleConv(cin, w[0])
        self.downs = nn.ModuleList([DoubleConv(w[i], w[i + 1]) for i in range(4)])
        self.ups = nn.ModuleList([nn.ConvTranspose2d(w[i + 1], w[i], 2, stride=2) for i in reversed(range(4))])
        self.upconvs = nn.ModuleList([DoubleConv(w[i + 1], w[i]) for i in reversed(range(4))])
        self.outc = nn.Conv2d(w[0], classes, 1)

    def forward(self, x):
        skips = [self.inc(x)]
        for down in self.downs:
            skips.append(down(F.max_pool2d(skips[-1], 2)))
        x = skips.pop()
        for up, conv in zip(self.ups, self.upconvs):
            x = conv(torch.cat([skips.pop(), up(x)], dim=1))
        return self.outc(x)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rope(x, pos):
    d = x.shape[-1]
    inv = 1.0 / (500000.0 ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
    ang = pos[:, None].float() * inv[None, :]
    cos, sin = torch.cat([ang.cos(), ang.cos()], -1).to(x.dtype), torch.cat([ang.sin(), ang.sin()], -1).to(x.dtype)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return x * cos + torch.cat([-x2, x1], -1) * sin


class LlamaLayer(nn.Module):
    """One Llama decoder layer (RMSNorm, RoPE, grouped-query attention, SwiGLU MLP) with the sizes
    of transformers' LlamaConfig. Attention is written with broadcasting over the query groups,
    q [B, Hkv, G, S, D] against k, v [B, Hkv, 1, L, D], which the importer reads as one SDPA graph
    with Hkv key-value heads; decode appends one token to a KV cache of `past` tokens."""

    def __init__(self, hidden, heads, kv_heads, inter, past=0):
        super().__init__()
        self.h, self.kv, self.d, self.past = heads, kv_heads, hidden // heads, past
        self.q_proj = nn.Linear(hidden, heads * self.d, bias=False)
        self.k_proj = nn.Linear(hidden, kv_heads * self.d, bias=False)
        self.v_proj = nn.Linear(hidden, kv_heads * self.d, bias=False)
        self.o_proj = nn.Linear(heads * self.d, hidden, bias=False)
        self.gate = nn.Linear(hidden, inter, bias=False)
        self.up = nn.Linear(hidden, inter, bias=False)
        self.down = nn.Linear(inter, hidden, bias=False)
        self.norm1, self.norm2 = RMSNorm(hidden), RMSNorm(hidden)

    def forward(self, x, past_k=None, past_v=None):
        b, s, _ = x.shape
        g = self.h // self.kv
        h = self.norm1(x)
        pos = torch.arange(self.past, self.past + s, device=x.device)
        q = rope(self.q_proj(h).view(b, s, self.h, self.d).transpose(1, 2), pos)
        k = rope(self.k_proj(h).view(b, s, self.kv, self.d).transpose(1, 2), pos)
        v = self.v_proj(h).view(b, s, self.kv, self.d).transpose(1, 2)
        if past_k is not None:
            k, v = torch.cat([past_k, k], 2), torch.cat([past_v, v], 2)
        q = q.reshape(b, self.kv, g, s, self.d)
        k, v = k.unsqueeze(2), v.unsqueeze(2)
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.d))
        if s > 1:  # prefill: causal
            mask = torch.full((s, s), float("-inf"), device=x.device).triu(1).to(x.dtype)
            scores = scores + mask
        attn = torch.matmul(F.softmax(scores.float(), dim=-1).to(q.dtype), v)
        attn = attn.reshape(b, self.h, s, self.d).transpose(1, 2).reshape(b, s, self.h * self.d)
        x = x + self.o_proj(attn)
        h = self.norm2(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class SdResBlock(nn.Module):
    def __init__(self, cin, cout, temb=1280):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(32, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.t = nn.Linear(temb, cout)
        self.n2, self.c2 = nn.GroupNorm(32, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, t):
        h = self.c1(F.silu(self.n1(x))) + self.t(F.silu(t))[:, :, None, None]
        return self.skip(x) + self.c2(F.silu(self.n2(h)))


class SdAttention(nn.Module):
    def __init__(self, dim, ctx_dim, heads=8):
        super().__init__()
        self.h, self.d = heads, dim // heads
        self.q, self.k, self.v = nn.Linear(dim, dim, bias=False), nn.Linear(ctx_dim, dim, bias=False), nn.Linear(
            ctx_dim, dim, bias=False)
        self.o = nn.Linear(dim, dim)

    def forward(self, x, ctx):
        b, n, c = x.shape
        m = ctx.shape[1]
        q = self.q(x).view(b, n, self.h, self.d).transpose(1, 2)
        k = self.k(ctx).view(b, m, self.h, self.d).transpose(1, 2)
        v = self.v(ctx).view(b, m, self.h, self.d).transpose(1, 2)
        a = F.softmax(torch.matmul(q, k.transpose(-1, -2)) * (self.d**-0.5), dim=-1)
        return self.o(torch.matmul(a, v).transpose(1, 2).reshape(b, n, c))


class SdTransformer(nn.Module):
    """Stable Diffusion 1.x's SpatialTransformer: GroupNorm, 1x1 proj_in, self-attention,
    cross-attention to the 77 x 768 text context, GEGLU feed-forward, 1x1 proj_out."""

    def __init__(self, dim, ctx_dim=768):
        super().__init__()
        self.norm, self.proj_in, self.proj_out = nn.GroupNorm(32, dim), nn.Conv2d(dim, dim, 1), nn.Conv2d(dim, dim, 1)
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn1, self.attn2 = SdAttention(dim, dim), SdAttention(dim, ctx_dim)
        # GEGLU's projection to 2 x 4 dim as two halves: the same matmuls, and shapes that ONNX's
        # inference follows (a chunk of one projection becomes a Slice by computed indices).
        self.ff_a, self.ff_gate, self.ff_out = nn.Linear(dim, dim * 4), nn.Linear(dim, dim * 4), nn.Linear(dim * 4, dim)

    def forward(self, x, ctx):
        b, c, hh, ww = x.shape
        h = self.proj_in(self.norm(x)).flatten(2).transpose(1, 2)
        n1 = self.ln1(h)
        h = h + self.attn1(n1, n1)
        h = h + self.attn2(self.ln2(h), ctx)
        n3 = self.ln3(h)
        h = h + self.ff_out(self.ff_a(n3) * F.gelu(self.ff_gate(n3)))
        return x + self.proj_out(h.transpose(1, 2).reshape(b, c, hh, ww))


class SdBlock(nn.Module):
    """A down block of Stable Diffusion 1.x's UNet at one resolution: two (ResBlock + spatial
    transformer) pairs, as the UNet runs them at 64x64 (320 ch), 32x32 (640), 16x16 (1280)."""

    def __init__(self, cin, cout):
        super().__init__()
        self.r1, self.t1 = SdResBlock(cin, cout), SdTransformer(cout)
        self.r2, self.t2 = SdResBlock(cout, cout), SdTransformer(cout)

    def forward(self, x, t, ctx):
        x = self.t1(self.r1(x, t), ctx)
        return self.t2(self.r2(x, t), ctx)


class SelfAttention(nn.Module):
    """Multi-head self-attention as explicit matmuls and softmax (BERT's and timm's eager path)."""

    def __init__(self, dim, heads, qkv_bias=True):
        super().__init__()
        self.h, self.d = heads, dim // heads
        self.q, self.k, self.v = (nn.Linear(dim, dim, bias=qkv_bias) for _ in range(3))
        self.o = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        q, k, v = (p(x).view(b, n, self.h, self.d).transpose(1, 2) for p in (self.q, self.k, self.v))
        a = F.softmax(torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.d), dim=-1)
        return self.o(torch.matmul(a, v).transpose(1, 2).reshape(b, n, c))


class PlainBertLayer(nn.Module):
    """BERT-base's encoder layer as transformers' BertLayer computes it (eager attention,
    post-norm, GELU MLP), for where transformers is not installed."""

    def __init__(self, dim=768, heads=12, inter=3072):
        super().__init__()
        self.attn, self.ln1 = SelfAttention(dim, heads), nn.LayerNorm(dim, eps=1e-12)
        self.fc1, self.fc2, self.ln2 = nn.Linear(dim, inter), nn.Linear(inter, dim), nn.LayerNorm(dim, eps=1e-12)

    def forward(self, x):
        x = self.ln1(x + self.attn(x))
        return self.ln2(x + self.fc2(F.gelu(self.fc1(x))))


class PlainViT(nn.Module):
    """ViT-B/16 as timm's vit_base_patch16_224 computes it (16x16 patches, class token, 12
    pre-norm blocks of 12 heads, GELU MLP 3072, final norm and head), for where timm is not
    installed (torchvision's runs nn.MultiheadAttention, whose fused path has no ONNX export)."""

    def __init__(self, dim=768, depth=12, heads=12, classes=1000):
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 16, stride=16)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.zeros(1, 197, dim))
        self.blocks = nn.ModuleList()
        for _ in range(depth):
            self.blocks.append(nn.ModuleDict(dict(n1=nn.LayerNorm(dim, eps=1e-6), attn=SelfAttention(dim, heads),
                                                  n2=nn.LayerNorm(dim, eps=1e-6), fc1=nn.Linear(dim, 4 * dim),
                                                  fc2=nn.Linear(4 * dim, dim))))
        self.norm, self.head = nn.LayerNorm(dim, eps=1e-6), nn.Linear(dim, classes)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], 1) + self.pos
        for b in self.blocks:
            x = x + b["attn"](b["n1"](x))
            x = x + b["fc2"](F.gelu(b["fc1"](b["n2"](x))))
        return self.head(self.norm(x)[:, 0])


# ---------------------------------------------------------------- the collection


def torchvision_model(name):
    import torchvision

    return getattr(torchvision.models, name)(weights=None)


def vit_b16():
    try:
        import timm

        return timm.create_model("vit_base_patch16_224", pretrained=False)
    except Exception as e:  # timm missing or its API moved: the same network written out
        print(f"  timm's ViT not usable ({e}); the same ViT-B/16 written out instead", flush=True)
        return PlainViT()


def bert_layer():
    try:
        from transformers import BertConfig
        from transformers.models.bert.modeling_bert import BertLayer
    except Exception as e:  # transformers missing: the same layer written out
        print(f"  transformers' BertLayer not usable ({e}); the same layer written out instead", flush=True)
        return PlainBertLayer()
    try:
        config = BertConfig(attn_implementation="eager")
    except TypeError:
        config = BertConfig()
    config._attn_implementation = "eager"
    layer = BertLayer(config)

    class One(nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = layer

        def forward(self, x):
            out = self.layer(x)
            return out[0] if isinstance(out, (tuple, list)) else out

    return One()


def llama_sizes():
    """Llama-3-8B's sizes, read from transformers' LlamaConfig where it is installed."""
    sizes = dict(hidden=4096, heads=32, kv_heads=8, inter=14336, layers=32)
    try:
        from transformers import LlamaConfig

        c = LlamaConfig(hidden_size=4096, num_attention_heads=32, num_key_value_heads=8,
                        intermediate_size=14336, num_hidden_layers=32)
        sizes = dict(hidden=c.hidden_size, heads=c.num_attention_heads, kv_heads=c.num_key_value_heads,
                     inter=c.intermediate_size, layers=c.num_hidden_layers)
    except Exception as e:
        print(f"  transformers' LlamaConfig not usable ({e}); Llama-3-8B's sizes as constants", flush=True)
    return sizes


def sd_unet_block(res):
    channels = {64: (320, 320), 32: (320, 640), 16: (640, 1280)}[res]
    return SdBlock(*channels)


def variants():
    """(variant name, metadata, builder -> (model, example inputs))."""
    out = []

    def add(name, meta, build, train=False):
        out.append((name, meta, build))
        if train:  # the same model in training: its forward and backward graphs, from the same file
            out.append((name + "_train", dict(meta, training=True, file=name + ".onnx"), None))

    def image(batch, size=224):
        return lambda: (torch.randn(batch, 3, size, size),)

    cnns = ["resnet50", "resnext50_32x4d", "convnext_tiny", "efficientnet_b0", "mobilenet_v3_large"]
    for model in cnns:
        for batch in (1, 32):
            add(f"{model}_b{batch}", dict(model=model, family="cnn", batch=batch, layout="nhwc"),
                (lambda m=model, b=batch: (torchvision_model(m), image(b)())),
                train=batch == 32 and model in ("resnet50", "convnext_tiny"))
    for batch, size in ((1, 512), (8, 256)):
        add(f"unet_b{batch}_{size}", dict(model="unet", family="cnn", batch=batch, image=size, layout="nhwc"),
            (lambda b=batch, s=size: (UNet(), image(b, s)())), train=batch == 8)

    for batch, seq in ((1, 128), (8, 128), (32, 128), (8, 512)):
        add(f"bert_base_b{batch}_s{seq}", dict(model="bert_base", family="transformer", batch=batch, seq=seq,
                                               repeat=12),
            (lambda b=batch, s=seq: (bert_layer(), (torch.randn(b, s, 768),))), train=batch == 32)
    for batch in (1, 32):
        add(f"vit_b16_b{batch}", dict(model="vit_b16", family="transformer", batch=batch, seq=197),
            (lambda b=batch: (vit_b16(), image(b)())), train=batch == 32)

    ls = llama_sizes()
    dims = dict(hidden=ls["hidden"], heads=ls["heads"], kv_heads=ls["kv_heads"], inter=ls["inter"])
    kv_d = ls["hidden"] // ls["heads"]
    for seq in (512, 2048):
        add(f"llama3_8b_prefill_b1_s{seq}", dict(model="llama3_8b", family="transformer", batch=1, seq=seq,
                                                  phase="prefill", repeat=ls["layers"]),
            (lambda s=seq: (LlamaLayer(**dims), (torch.randn(1, s, ls["hidden"]),))), train=seq == 2048)
        for batch in (1, 16):
            add(f"llama3_8b_decode_b{batch}_kv{seq}",
                dict(model="llama3_8b", family="transformer", batch=batch, seq=1, kv_cache=seq, phase="decode",
                     repeat=ls["layers"]),
                (lambda s=seq, b=batch: (LlamaLayer(**dims, past=s),
                                         (torch.randn(b, 1, ls["hidden"]), torch.randn(b, ls["kv_heads"], s, kv_d),
                                          torch.randn(b, ls["kv_heads"], s, kv_d)))))

    # Stable Diffusion 1.x: the UNet's blocks at the latent resolutions of a 512x512 image
    # (batch 2: the conditional and unconditional halves of classifier-free guidance).
    for res in (64, 32, 16):
        for batch in (2, 8):
            ch = {64: 320, 32: 320, 16: 640}[res]
            add(f"sd15_unet_block{res}_b{batch}", dict(model="sd15_unet", family="diffusion", batch=batch, image=res,
                                                        layout="nhwc"),
                (lambda r=res, b=batch, c=ch: (sd_unet_block(r), (torch.randn(b, c, r, r), torch.randn(b, 1280),
                                                                  torch.randn(b, 77, 768)))))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--only", default="", help="comma-separated variant names (or prefixes)")
    parser.add_argument("--skip", default="", help="comma-separated variant names (or prefixes) to leave out")
    parser.add_argument("--cpu", action="store_true", help="trace on the CPU even where CUDA is")
    a = parser.parse_args()
    os.makedirs(a.out_dir, exist_ok=True)
    device = "cuda" if torch.cuda.is_available() and not a.cpu else "cpu"
    only = [s for s in a.only.split(",") if s]
    skip = [s for s in a.skip.split(",") if s]
    catalog_path = os.path.join(a.out_dir, "workloads.json")
    catalog = {"format": "dnnbench-workload-exports", "version": 1, "torch": torch.__version__, "variants": []}
    exported, failed = [], []
    for name, meta, build in variants():
        if (only and not any(name.startswith(o) for o in only)) or any(name.startswith(o) for o in skip):
            continue
        path = os.path.join(a.out_dir, name + ".onnx")
        start = time.time()
        if build is None:  # a training variant of an exported file
            if meta["file"][: -len(".onnx")] in exported:
                entry = dict(name=name, dtypes=["half", "bfloat16"], repeat=1)
                entry.update(meta)
                catalog["variants"].append(entry)
                print(f"listed {name} (the backward of {meta['file']})", flush=True)
            continue
        try:
            torch.manual_seed(0)
            model, args = build()
            model = model.eval().to(device)
            args = tuple(x.to(device) for x in args)
            exporter = export(model, args, path)
            del model
            if device == "cuda":
                torch.cuda.empty_cache()
            entry = dict(name=name, file=name + ".onnx", dtypes=["half", "bfloat16"], repeat=1, training=False,
                         exporter=exporter)
            entry.update(meta)
            catalog["variants"].append(entry)
            exported.append(name)
            print(f"exported {name} ({os.path.getsize(path) / 1e6:.1f} MB, {time.time() - start:.0f} s)", flush=True)
        except Exception as e:
            failed.append(name)
            print(f"FAILED {name}: {type(e).__name__}: {e}", flush=True)
            traceback.print_exc(limit=3)
        # Written after each model, so a crash keeps what finished.
        with open(catalog_path, "w") as f:
            json.dump(catalog, f, indent=1)
    print(f"{len(exported)} exported, {len(failed)} failed{': ' + ', '.join(failed) if failed else ''}; "
          f"catalog {catalog_path}", flush=True)
    return 0 if exported else 1


if __name__ == "__main__":
    sys.exit(main())
