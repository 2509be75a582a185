#!/usr/bin/env python3
"""Writes the perf-sized graph sets into graphs/perf/<set>/ so that their shapes are reviewable.

Sets:
  resnet50/   every distinct convolution of ResNet-50 v1.5 at batch 32, NHWC, fp16 and fp32,
              forward, backward-data and backward-weights
  gemm/       BERT-large (batch 8 x seq 512 = 4096 tokens) and Llama-2-7B (2048 tokens) linear
              layers, BERT's attention batched matmuls, and decode-shaped GEMMs (1, 16 and 64
              tokens through a 4096 x 4096 projection), fp16 and bf16
  norms/      BERT-large layernorm, Llama RMSNorm, ResNet batchnorm inference
  attention/  BERT-large self-attention (batch 8, seq 512, 16 heads, d 64), Llama-2-7B prefill
              (seq 4096, 32 heads, d 128, causal), Llama-3-8B prefill (32 query heads sharing 8 K/V
              heads, causal), a Llama-2-7B decode step (one query against 4096 cached keys, batch 16);
              fp16 and bf16, forward and backward (decode: forward only, a decode step has no
              backward). Batch 1 for the 4096-token prefills keeps every tensor under 64 MiB.

Usage: scripts/make_perf_graphs.py [--out DIR]   (default: graphs/perf next to this script)
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_sample_graphs import (GraphWriter, channels_last_strides, conv_graph, layernorm_graph,  # noqa: E402
                                matmul_graph, sdpa_graph, to_text)

# (name, in channels, out channels, input H=W, kernel, stride): ResNet-50 v1.5, stride on the 3x3.
RESNET50_CONVS = [
    ("conv1", 3, 64, 224, 7, 2),
    ("res2_1x1_64_64", 64, 64, 56, 1, 1),
    ("res2_3x3_64_64", 64, 64, 56, 3, 1),
    ("res2_1x1_64_256", 64, 256, 56, 1, 1),
    ("res2_1x1_256_64", 256, 64, 56, 1, 1),
    ("res3_1x1_256_128", 256, 128, 56, 1, 1),
    ("res3_3x3_128_128_s2", 128, 128, 56, 3, 2),
    ("res3_1x1_128_512", 128, 512, 28, 1, 1),
    ("res3_1x1_256_512_s2", 256, 512, 56, 1, 2),
    ("res3_1x1_512_128", 512, 128, 28, 1, 1),
    ("res3_3x3_128_128", 128, 128, 28, 3, 1),
    ("res4_1x1_512_256", 512, 256, 28, 1, 1),
    ("res4_3x3_256_256_s2", 256, 256, 28, 3, 2),
    ("res4_1x1_256_1024", 256, 1024, 14, 1, 1),
    ("res4_1x1_512_1024_s2", 512, 1024, 28, 1, 2),
    ("res4_1x1_1024_256", 1024, 256, 14, 1, 1),
    ("res4_3x3_256_256", 256, 256, 14, 3, 1),
    ("res5_1x1_1024_512", 1024, 512, 14, 1, 1),
    ("res5_3x3_512_512_s2", 512, 512, 14, 3, 2),
    ("res5_1x1_512_2048", 512, 2048, 7, 1, 1),
    ("res5_1x1_1024_2048_s2", 1024, 2048, 14, 1, 2),
    ("res5_1x1_2048_512", 2048, 512, 7, 1, 1),
    ("res5_3x3_512_512", 512, 512, 7, 3, 1),
]
BATCH = 32
DTYPES = {"fp16": "half", "fp32": "float"}


def resnet50():
    graphs = []
    for name, c, k, hw, r, s in RESNET50_CONVS:
        pad = (r - 1) // 2
        for direction in ("fwd", "bwd_data", "bwd_weights"):
            for tag, dtype in DTYPES.items():
                graphs.append(conv_graph("rn50_%s_%s_n%d_nhwc_%s" % (name, direction, BATCH, tag),
                                         [BATCH, c, hw, hw], [k, c, r, r], direction=direction, pad=[pad, pad],
                                         stride=[s, s], layout="nhwc", io=dtype, compute="float"))
    return graphs


# (name, M, K, N): tokens x in-features -> out-features.
GEMMS = [
    ("bert_large_qkv", 4096, 1024, 3072),
    ("bert_large_attn_out", 4096, 1024, 1024),
    ("bert_large_ffn_up", 4096, 1024, 4096),
    ("bert_large_ffn_down", 4096, 4096, 1024),
    ("llama2_7b_qkv", 2048, 4096, 12288),
    ("llama2_7b_attn_out", 2048, 4096, 4096),
    ("llama2_7b_mlp_up", 2048, 4096, 11008),
    ("llama2_7b_mlp_down", 2048, 11008, 4096),
]
# Decode: a batch of 1, 16 or 64 tokens through a 4096 x 4096 projection (a Llama-2-7B attention
# projection at generation time). Skinny M leaves most tiles of an M x N grid empty: split-K and
# small tiles decide the speed, where cuBLAS was measured 1.2-1.5x faster than cuDNN (issue 15).
DECODE = [("decode", m, 4096, 4096) for m in (1, 16, 64)]
# BERT-large attention: batch 8 x 16 heads, seq 512, head dim 64.
BATCHED = [
    ("bert_large_attn_qk", [128, 512, 64], [128, 64, 512]),
    ("bert_large_attn_pv", [128, 512, 512], [128, 512, 64]),
]
GEMM_DTYPES = {"fp16": "half", "bf16": "bfloat16"}


def gemm():
    graphs = []
    for tag, dtype in GEMM_DTYPES.items():
        for name, m, k, n in GEMMS + DECODE:
            graphs.append(matmul_graph("%s_m%d_k%d_n%d_%s" % (name, m, k, n, tag), [m, k], [k, n], io=dtype))
        for name, a, b in BATCHED:
            graphs.append(matmul_graph("%s_%s" % (name, tag), a, b, io=dtype))
    return graphs


def batchnorm_nhwc(name, dims, dtype):
    g = GraphWriter(name, io=dtype)
    stats = [1, dims[1], 1, 1]
    x = g.tensor("x", dims, strides=channels_last_strides(dims))
    inputs = {"x": x}
    for role in ("mean", "inv_variance", "scale", "bias"):
        inputs[role] = g.tensor(role, stats, dtype="float")
    y = g.tensor("y", dims, strides=channels_last_strides(dims))
    g.node("batchnorm", "BatchnormInferenceAttributes", inputs, {"y": y}, "attributes", {})
    return g


def rmsnorm(name, tokens, hidden, dtype):
    g = GraphWriter(name, io=dtype)
    x = g.tensor("x", [tokens, hidden])
    inputs = {"x": x, "scale": g.tensor("scale", [1, hidden]), "epsilon": g.epsilon(1e-6)}
    outputs = {"y": g.tensor("y", [tokens, hidden]), "inv_rms": g.tensor("inv_rms", [tokens, 1], dtype="float")}
    g.node("rmsnorm", "RMSNormAttributes", inputs, outputs, "attributes", {"forward_phase": "TRAINING"})
    return g


def norms():
    return [
        layernorm_graph("bert_large_layernorm_8x512x1024_training", "TRAINING", dims=(8, 512, 1024)),
        layernorm_graph("bert_large_layernorm_8x512x1024_inference", "INFERENCE", dims=(8, 512, 1024)),
        rmsnorm("llama2_7b_rmsnorm_2048x4096_fp16", 2048, 4096, "half"),
        batchnorm_nhwc("rn50_batchnorm_n32_256x56x56_nhwc_fp32", [32, 256, 56, 56], "float"),
    ]


# (name, batch, q heads, kv heads, seq q, seq kv, head dim, causal, backward too)
ATTENTION = [
    ("bert_large", 8, 16, 16, 512, 512, 64, False, True),
    ("llama2_7b_prefill", 1, 32, 32, 4096, 4096, 128, True, True),
    ("llama3_8b_gqa_prefill", 1, 32, 8, 4096, 4096, 128, True, True),
    ("llama2_7b_decode", 16, 32, 32, 1, 4096, 128, False, False),
]


def attention():
    graphs = []
    for name, b, hq, hkv, sq, skv, d, causal, backward in ATTENTION:
        for tag, dtype in GEMM_DTYPES.items():
            shape = "b%d_h%d%s_s%d%s_d%d" % (b, hq, "_kv%d" % hkv if hkv != hq else "", sq,
                                           "_kv%d" % skv if skv != sq else "", d)
            mask = "_causal" if causal else ""
            # Forward as inference runs it (no statistics); backward reads the training forward's.
            graphs.append(sdpa_graph("sdpa_%s_fwd_%s%s_%s" % (name, shape, mask, tag), b, hq, sq, skv, d, h_kv=hkv,
                                     io=dtype, causal=causal, stats=False))
            if backward:
                graphs.append(sdpa_graph("sdpa_%s_bwd_%s%s_%s" % (name, shape, mask, tag), b, hq, sq, skv, d,
                                         h_kv=hkv, io=dtype, causal=causal, backward=True))
    return graphs


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "graphs", "perf"))
    args = parser.parse_args()
    total = 0
    for folder, graphs in (("resnet50", resnet50()), ("gemm", gemm()), ("norms", norms()),
                           ("attention", attention())):
        os.makedirs(os.path.join(args.out, folder), exist_ok=True)
        for g in graphs:
            with open(os.path.join(args.out, folder, g.name + ".json"), "w", encoding="utf-8") as f:
                f.write(to_text(g.to_json()))
        total += len(graphs)
    print("wrote %d graphs to %s" % (total, os.path.normpath(args.out)))


if __name__ == "__main__":
    main()
