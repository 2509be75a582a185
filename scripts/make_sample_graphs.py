#!/usr/bin/env python3
"""Writes the small sample graphs shipped with dnnbench into graphs/samples/.

Every graph is tiny (well under 1 MiB of tensors) so that the reference checks it in
milliseconds; together they exercise every op family, layout and data type the tool executes,
plus one graph with an op the tool does not run (to check that it is skipped).

Usage: scripts/make_sample_graphs.py [--out DIR]   (default: graphs/samples next to this script)
"""
import argparse
import json
import math
import os
import re
import sys


def packed_strides(dims):
    """C-order (row-major) strides."""
    strides = [1] * len(dims)
    for k in range(len(dims) - 2, -1, -1):
        strides[k] = strides[k + 1] * dims[k + 1]
    return strides


def channels_last_strides(dims):
    """NHWC / NDHWC strides of N, C, spatial... dims."""
    strides = [0] * len(dims)
    s = 1
    strides[1] = s
    s *= dims[1]
    for k in range(len(dims) - 1, 1, -1):
        strides[k] = s
        s *= dims[k]
    strides[0] = s
    return strides


class GraphWriter:
    """Builds one graph in the hipDNN JSON layout (reference/GRAPH-FORMAT.md)."""

    def __init__(self, name, io="float", compute="float", intermediate="float"):
        self.name = name
        self.io = io
        self.compute = compute
        self.intermediate = intermediate
        self.tensors = []
        self.nodes = []

    def tensor(self, name, dims, dtype=None, strides=None, virtual=False):
        uid = len(self.tensors) + 1
        self.tensors.append({
            "uid": uid,
            "name": name,
            "dims": list(dims),
            "strides": list(strides) if strides else packed_strides(dims),
            "data_type": dtype or (self.intermediate if virtual else self.io),
            "virtual": virtual,
        })
        return uid

    def nhwc(self, name, dims, dtype=None):
        return self.tensor(name, dims, dtype, channels_last_strides(dims))

    def virtual(self, name, dims):
        return self.tensor(name, dims, virtual=True)

    def epsilon(self, value=1e-5):
        uid = self.tensor("epsilon", [1], "double")
        self.tensors[-1].update({"value_type": "Float64Value", "value": value})
        return uid

    def node(self, name, type_, inputs, outputs, settings_key=None, settings=None):
        node = {
            "name": name,
            "type": type_,
            "compute_data_type": self.compute,
            "inputs": {k + "_tensor_uid": v for k, v in inputs.items()},
            "outputs": {k + "_tensor_uid": v for k, v in outputs.items()},
        }
        if settings_key:
            node[settings_key] = settings
        self.nodes.append(node)

    def to_json(self):
        return {
            "name": self.name,
            "io_data_type": self.io,
            "compute_data_type": self.compute,
            "intermediate_data_type": self.intermediate,
            "tensors": self.tensors,
            "nodes": self.nodes,
        }


# ---- op helpers ---------------------------------------------------------------------------

CONV_TYPES = {
    "fwd": "ConvolutionFwdAttributes",
    "bwd_data": "ConvolutionBwdAttributes",
    "bwd_weights": "ConvolutionWrwAttributes",
}


def conv_out(in_dims, w_dims, pre, post, stride, dilation):
    out = [in_dims[0], w_dims[0]]
    for s in range(len(in_dims) - 2):
        extent = dilation[s] * (w_dims[2 + s] - 1) + 1
        out.append((in_dims[2 + s] + pre[s] + post[s] - extent) // stride[s] + 1)
    return out


def conv_graph(name, x_dims, w_dims, direction="fwd", pad=None, post=None, stride=None, dilation=None,
               layout="nchw", io="float", compute="float", mode="CROSS_CORRELATION"):
    spatial = len(x_dims) - 2
    pre = pad if pad is not None else [0] * spatial
    post = post if post is not None else pre
    stride = stride or [1] * spatial
    dilation = dilation or [1] * spatial
    y_dims = conv_out(x_dims, w_dims, pre, post, stride, dilation)
    g = GraphWriter(name, io=io, compute=compute, intermediate=compute)
    make = g.nhwc if layout == "nhwc" else g.tensor
    if direction == "fwd":
        x, w, y = make("x", x_dims), make("w", w_dims), make("y", y_dims)
        ins, outs = {"x": x, "w": w}, {"y": y}
    elif direction == "bwd_data":
        dy, w, dx = make("dy", y_dims), make("w", w_dims), make("dx", x_dims)
        ins, outs = {"dy": dy, "w": w}, {"dx": dx}
    else:
        x, dy, dw = make("x", x_dims), make("dy", y_dims), make("dw", w_dims)
        ins, outs = {"x": x, "dy": dy}, {"dw": dw}
    g.node("conv", CONV_TYPES[direction], ins, outs, "parameters", {
        "conv_mode": mode,
        "pre_padding": pre,
        "post_padding": post,
        "stride": stride,
        "dilation": dilation,
    })
    return g


def pointwise_inputs(operation, in_0, in_1=None, **settings):
    """The `inputs` object of a pointwise node: ports plus the op settings inline."""
    inputs = {
        "operation": operation,
        "relu_lower_clip": None,
        "relu_upper_clip": None,
        "relu_lower_clip_slope": None,
        "axis": None,
        "in_0": in_0,
        "in_1": in_1,
        "in_2": None,
        "swish_beta": None,
        "elu_alpha": None,
        "softplus_beta": None,
    }
    inputs.update(settings)
    return inputs


def add_pointwise(g, name, operation, in_0, out, in_1=None, **settings):
    """Adds a pointwise node; setting keys are written verbatim, ports get the `_tensor_uid` suffix."""
    port_keys = {"axis", "in_0", "in_1", "in_2"}
    inputs = {}
    for key, value in pointwise_inputs(operation, in_0, in_1, **settings).items():
        inputs[key + "_tensor_uid" if key in port_keys else key] = value
    g.nodes.append({
        "name": name,
        "type": "PointwiseAttributes",
        "compute_data_type": g.compute,
        "inputs": inputs,
        "outputs": {"out_0_tensor_uid": out},
    })


def pointwise_unary(name, operation, dims=(2, 8, 6, 6), **settings):
    g = GraphWriter(name)
    x = g.tensor("x", dims)
    y = g.tensor("y", dims)
    add_pointwise(g, operation, operation, x, y, **settings)
    return g


def pointwise_binary(name, operation, a_dims=(2, 8, 6, 6), b_dims=(2, 8, 6, 6), layout="nchw"):
    g = GraphWriter(name)
    t = g.nhwc if layout == "nhwc" else g.tensor
    a = t("a", a_dims)
    b = t("b", b_dims)
    out = t("out", a_dims)
    add_pointwise(g, operation, operation, a, out, in_1=b)
    return g


def matmul_graph(name, a_dims, b_dims, io="float"):
    batch_a, batch_b = a_dims[:-2], b_dims[:-2]
    rank = max(len(batch_a), len(batch_b))
    pa = [1] * (rank - len(batch_a)) + list(batch_a)
    pb = [1] * (rank - len(batch_b)) + list(batch_b)
    c_dims = [max(x, y) for x, y in zip(pa, pb)] + [a_dims[-2], b_dims[-1]]
    g = GraphWriter(name, io=io)
    a, b, c = g.tensor("a", a_dims), g.tensor("b", b_dims), g.tensor("c", c_dims)
    g.node("matmul", "MatmulAttributes", {"a": a, "b": b}, {"c": c})
    return g


def matmul_fp8_graph():
    """fp8 E4M3 inputs, fp16 output; b K-contiguous ([N, K] in memory, the usual weight layout):
    the "TN" layout cuBLASLt's fp8 kernels take."""
    g = GraphWriter("matmul_fp8_e4m3", io="fp8_e4m3")
    a = g.tensor("a", [64, 64])
    b = g.tensor("b", [64, 48], strides=[1, 64])
    c = g.tensor("c", [64, 48], "half")
    g.node("matmul", "MatmulAttributes", {"a": a, "b": b}, {"c": c})
    return g


def batchnorm_graph(name, variance_ext, dims=(2, 6, 5, 5), layout="nchw", io="float"):
    """Statistics, scale and bias are fp32 whatever the data type (as cuDNN and PyTorch keep them)."""
    g = GraphWriter(name, io=io)
    t = g.nhwc if layout == "nhwc" else g.tensor
    stats = [1, dims[1]] + [1] * (len(dims) - 2)
    x = t("x", dims)
    mean = t("mean", stats, "float")
    var = t("variance" if variance_ext else "inv_variance", stats, "float")
    scale = t("scale", stats, "float")
    bias = t("bias", stats, "float")
    inputs = {"x": x, "mean": mean, "scale": scale, "bias": bias}
    if variance_ext:
        inputs.update({"variance": var, "epsilon": g.epsilon()})
        type_ = "BatchnormInferenceAttributesVarianceExt"
    else:
        inputs["inv_variance"] = var
        type_ = "BatchnormInferenceAttributes"
    y = t("y", dims)
    g.node("batchnorm", type_, inputs, {"y": y}, "attributes", {})
    return g


def batchnorm_training_graph(name, dims=(2, 6, 5, 5), layout="nchw", io="float", running=True):
    g = GraphWriter(name, io=io)
    t = g.nhwc if layout == "nhwc" else g.tensor
    stats = [1, dims[1]] + [1] * (len(dims) - 2)
    x = t("x", dims)
    inputs = {"x": x, "scale": t("scale", stats, "float"), "bias": t("bias", stats, "float"), "epsilon": g.epsilon()}
    outputs = {"y": t("y", dims), "mean": t("mean", stats, "float"), "inv_variance": t("inv_variance", stats, "float")}
    if running:
        inputs.update({"prev_running_mean": t("prev_running_mean", stats, "float"),
                       "prev_running_variance": t("prev_running_variance", stats, "float")})
        momentum = g.tensor("momentum", [1], "double")
        g.tensors[-1].update({"value_type": "Float64Value", "value": 0.1})
        inputs["momentum"] = momentum
        outputs.update({"next_running_mean": t("next_running_mean", stats, "float"),
                        "next_running_variance": t("next_running_variance", stats, "float")})
    g.node("batchnorm", "BatchnormAttributes", inputs, outputs, "attributes", {})
    return g


def batchnorm_backward_graph(name, dims=(2, 6, 5, 5), layout="nchw", io="float"):
    g = GraphWriter(name, io=io)
    t = g.nhwc if layout == "nhwc" else g.tensor
    stats = [1, dims[1]] + [1] * (len(dims) - 2)
    inputs = {"dy": t("dy", dims), "x": t("x", dims), "mean": t("mean", stats, "float"),
              "inv_variance": t("inv_variance", stats, "float"), "scale": t("scale", stats, "float")}
    outputs = {"dx": t("dx", dims), "dscale": t("dscale", stats, "float"), "dbias": t("dbias", stats, "float")}
    g.node("batchnorm_bwd", "BatchnormBackwardAttributes", inputs, outputs, "attributes", {})
    return g


def layernorm_graph(name, phase, dims=(4, 6, 16), normalized_dim_count=1):
    g = GraphWriter(name)
    x = g.tensor("x", dims)
    norm_dims = list(dims[len(dims) - normalized_dim_count:])
    scale, bias = g.tensor("scale", norm_dims), g.tensor("bias", norm_dims)
    eps = g.epsilon()
    y = g.tensor("y", dims)
    outputs = {"y": y}
    if phase == "TRAINING":
        stats = list(dims[:len(dims) - normalized_dim_count]) + [1] * normalized_dim_count
        outputs.update({"mean": g.tensor("mean", stats), "inv_variance": g.tensor("inv_variance", stats)})
    g.node("layernorm", "LayernormAttributes", {"x": x, "scale": scale, "bias": bias, "epsilon": eps}, outputs,
           "attributes", {"normalized_dim_count": normalized_dim_count, "forward_phase": phase})
    return g


def rmsnorm_graph(name, phase, with_bias, dims=(2, 4, 6, 6), scale_dims=(1, 4, 1, 1), stats_dims=(2, 4, 1, 1),
                  io="float"):
    g = GraphWriter(name, io=io)
    x = g.tensor("x", dims)
    scale = g.tensor("scale", scale_dims)
    eps = g.epsilon()
    inputs = {"x": x, "scale": scale, "epsilon": eps}
    if with_bias:
        inputs["bias"] = g.tensor("bias", scale_dims)
    y = g.tensor("y", dims)
    outputs = {"y": y}
    if phase == "TRAINING":
        outputs["inv_rms"] = g.tensor("inv_rms", stats_dims, "float")
    g.node("rmsnorm", "RMSNormAttributes", inputs, outputs, "attributes", {"forward_phase": phase})
    return g


def reduction_graph(name, mode, in_dims, out_dims, layout="nchw"):
    g = GraphWriter(name)
    t = g.nhwc if layout == "nhwc" else g.tensor
    x, y = t("in", in_dims), t("out", out_dims)
    g.node("reduce", "ReductionAttributes", {"in": x}, {"out": y}, "attributes", {"mode": mode})
    return g


def resample_graph(name, mode, x_dims, window, stride, pre, post, layout="nchw", io="float"):
    g = GraphWriter(name, io=io)
    t = g.nhwc if layout == "nhwc" else g.tensor
    y_dims = [x_dims[0], x_dims[1]] + [
        (x_dims[2 + s] + pre[s] + post[s] - window[s]) // stride[s] + 1 for s in range(len(window))
    ]
    x, y = t("x", x_dims), t("y", y_dims)
    g.node("pool", "ResampleFwdAttributes", {"x": x}, {"y": y}, "attributes", {
        "window": window,
        "stride": stride,
        "pre_padding": pre,
        "post_padding": post,
        "resample_mode": mode,
        "padding_mode": "ZERO_PAD",
    })
    return g


# ---- the samples --------------------------------------------------------------------------


def fused_conv_bias_relu():
    g = GraphWriter("fused_conv_bias_relu")
    x = g.nhwc("x", [2, 8, 8, 8])
    w = g.nhwc("w", [16, 8, 3, 3])
    conv = g.virtual("conv_out", [2, 16, 8, 8])
    bias = g.tensor("bias", [1, 16, 1, 1])
    biased = g.virtual("biased", [2, 16, 8, 8])
    y = g.nhwc("y", [2, 16, 8, 8])
    g.node("conv", "ConvolutionFwdAttributes", {"x": x, "w": w}, {"y": conv}, "parameters", {
        "conv_mode": "CROSS_CORRELATION", "pre_padding": [1, 1], "post_padding": [1, 1],
        "stride": [1, 1], "dilation": [1, 1]})
    add_pointwise(g, "bias", "add", conv, biased, in_1=bias)
    add_pointwise(g, "relu", "relu_fwd", biased, y)
    return g


def fused_matmul_bias_gelu():
    g = GraphWriter("fused_matmul_bias_gelu")
    a = g.tensor("a", [2, 16, 32])
    b = g.tensor("b", [32, 24])
    mm = g.virtual("mm_out", [2, 16, 24])
    bias = g.tensor("bias", [1, 1, 24])
    biased = g.virtual("biased", [2, 16, 24])
    y = g.tensor("y", [2, 16, 24])
    g.node("matmul", "MatmulAttributes", {"a": a, "b": b}, {"c": mm})
    add_pointwise(g, "bias", "add", mm, biased, in_1=bias)
    add_pointwise(g, "gelu", "gelu_fwd", biased, y)
    return g


def sdpa_graph(name, b, h_q, s_q, s_kv, d, h_kv=None, io="half", backward=False, causal=False,
               bottom_right=False, left_bound=None, padding=False, stats=True, scale=None):
    """Attention in hipDNN's layout: q [b, h_q, s_q, d], k/v [b, h_kv, s_kv, d], BHSD packed."""
    h_kv = h_kv or h_q
    g = GraphWriter(name, io=io)
    q, k, v = g.tensor("q", [b, h_q, s_q, d]), g.tensor("k", [b, h_kv, s_kv, d]), g.tensor("v", [b, h_kv, s_kv, d])
    inputs = {"q": q, "k": k, "v": v}
    if padding:
        inputs["seq_len_q"] = g.tensor("seq_len_q", [b, 1, 1, 1], dtype="int32")
        inputs["seq_len_kv"] = g.tensor("seq_len_kv", [b, 1, 1, 1], dtype="int32")
    settings = {"causal_mask": causal and not bottom_right, "causal_mask_bottom_right": causal and bottom_right,
                "attn_scale_value": scale if scale is not None else 1.0 / math.sqrt(d),
                "padding_mask": padding}
    if left_bound is not None:
        settings["left_bound"] = left_bound
        if bottom_right and not causal:
            settings["diagonal_alignment"] = "BOTTOM_RIGHT"
    if backward:
        inputs["o"] = g.tensor("o", [b, h_q, s_q, d])
        inputs["do"] = g.tensor("do", [b, h_q, s_q, d])
        inputs["stats"] = g.tensor("stats", [b, h_q, s_q, 1], dtype="float")
        outputs = {"dq": g.tensor("dq", [b, h_q, s_q, d]), "dk": g.tensor("dk", [b, h_kv, s_kv, d]),
                   "dv": g.tensor("dv", [b, h_kv, s_kv, d])}
        g.node("sdpa_backward", "SdpaBackwardAttributes", inputs, outputs, "parameters", settings)
    else:
        outputs = {"o": g.tensor("o", [b, h_q, s_q, d])}
        if stats:
            outputs["stats"] = g.tensor("stats", [b, h_q, s_q, 1], dtype="float")
        settings["generate_stats"] = stats
        g.node("sdpa", "SdpaAttributes", inputs, outputs, "attributes", settings)
    return g


def unsupported_block_scale_quantize():
    """An op dnnbench does not execute (hipDNN's MX block quantization): its rows are skipped."""
    g = GraphWriter("unsupported_block_scale_quantize", io="float")
    x = g.tensor("x", [4, 64])
    y = g.tensor("y", [4, 64], dtype="int8")
    scale = g.tensor("scale", [4, 2], dtype="float")
    g.nodes.append({
        "name": "quantize",
        "type": "BlockScaleQuantizeAttributes",
        "compute_data_type": "float",
        "inputs": {"x_tensor_uid": x},
        "outputs": {"y_tensor_uid": y, "scale_tensor_uid": scale},
        "attributes": {"block_size": 32},
    })
    return g


def samples():
    s = []
    # Convolution forward.
    s.append(conv_graph("conv_fwd_2d_nchw_fp32", [2, 8, 10, 10], [16, 8, 3, 3], pad=[1, 1]))
    s.append(conv_graph("conv_fwd_2d_nhwc_fp32", [2, 8, 10, 10], [16, 8, 3, 3], pad=[1, 1], layout="nhwc"))
    s.append(conv_graph("conv_fwd_2d_nhwc_fp16", [2, 16, 10, 10], [16, 16, 3, 3], pad=[1, 1], layout="nhwc",
                        io="half"))
    s.append(conv_graph("conv_fwd_2d_nchw_bf16", [2, 8, 10, 10], [16, 8, 3, 3], pad=[1, 1], io="bfloat16"))
    s.append(conv_graph("conv_fwd_3d_ncdhw_fp32", [1, 4, 6, 6, 6], [8, 4, 3, 3, 3], pad=[1, 1, 1]))
    s.append(conv_graph("conv_fwd_3d_ndhwc_fp16", [1, 8, 5, 6, 6], [8, 8, 3, 3, 3], pad=[1, 1, 1],
                        layout="nhwc", io="half"))
    s.append(conv_graph("conv_fwd_grouped_g4", [2, 8, 9, 9], [12, 2, 3, 3]))
    s.append(conv_graph("conv_fwd_depthwise", [2, 8, 9, 9], [8, 1, 3, 3], pad=[1, 1], layout="nhwc"))
    s.append(conv_graph("conv_fwd_asymmetric_padding", [1, 4, 7, 7], [8, 4, 3, 3], pad=[1, 0], post=[0, 2]))
    s.append(conv_graph("conv_fwd_dilation2", [1, 4, 11, 11], [8, 4, 3, 3], pad=[2, 2], dilation=[2, 2]))
    s.append(conv_graph("conv_fwd_stride2", [2, 4, 12, 12], [8, 4, 3, 3], pad=[1, 1], stride=[2, 2]))
    s.append(conv_graph("conv_fwd_1x1_stride2_nhwc", [2, 16, 8, 8], [8, 16, 1, 1], stride=[2, 2],
                        layout="nhwc"))
    s.append(conv_graph("conv_fwd_convolution_mode", [1, 4, 8, 8], [4, 4, 3, 3], pad=[1, 1],
                        mode="CONVOLUTION"))
    s.append(conv_graph("conv_fwd_fp64", [1, 4, 6, 6], [4, 4, 3, 3], pad=[1, 1], io="double", compute="double"))
    # Convolution backward data / weights.
    s.append(conv_graph("conv_bwd_data_2d_fp32", [2, 8, 8, 8], [16, 8, 3, 3], "bwd_data", pad=[1, 1]))
    s.append(conv_graph("conv_bwd_data_2d_stride2_nhwc", [2, 8, 9, 9], [8, 8, 3, 3], "bwd_data", pad=[1, 1],
                        stride=[2, 2], layout="nhwc"))
    s.append(conv_graph("conv_bwd_data_3d_grouped", [1, 4, 5, 5, 5], [8, 2, 3, 3, 3], "bwd_data",
                        pad=[1, 1, 1]))
    s.append(conv_graph("conv_bwd_weights_2d_fp32", [2, 8, 8, 8], [16, 8, 3, 3], "bwd_weights", pad=[1, 1]))
    s.append(conv_graph("conv_bwd_weights_2d_grouped_nhwc", [2, 8, 8, 8], [8, 4, 3, 3], "bwd_weights",
                        pad=[1, 1], layout="nhwc"))
    s.append(conv_graph("conv_bwd_weights_3d", [1, 4, 5, 5, 5], [8, 4, 3, 3, 3], "bwd_weights",
                        pad=[1, 1, 1]))
    s.append(conv_graph("conv_bwd_weights_3d_grouped", [1, 4, 5, 5, 5], [8, 2, 3, 3, 3], "bwd_weights",
                        pad=[1, 1, 1]))
    # Matmul.
    s.append(matmul_graph("matmul_plain_fp32", [32, 48], [48, 24]))
    s.append(matmul_graph("matmul_batched_fp32", [4, 16, 32], [4, 32, 8]))
    s.append(matmul_graph("matmul_broadcast_batch_fp32", [2, 1, 16, 32], [3, 32, 8]))
    s.append(matmul_graph("matmul_broadcast_weights_fp16", [4, 16, 32], [32, 8], io="half"))
    s.append(matmul_graph("matmul_fp16", [64, 32], [32, 48], io="half"))
    s.append(matmul_graph("matmul_batched_bf16", [3, 32, 16], [3, 16, 24], io="bfloat16"))
    s.append(matmul_fp8_graph())
    # Pointwise unary.
    s.append(pointwise_unary("pointwise_relu", "relu_fwd"))
    s.append(pointwise_unary("pointwise_relu_clipped", "relu_fwd", relu_lower_clip=-0.25, relu_upper_clip=0.5,
                             relu_lower_clip_slope=0.1))
    s.append(pointwise_unary("pointwise_gelu", "gelu_fwd"))
    s.append(pointwise_unary("pointwise_gelu_tanh", "gelu_approx_tanh_fwd"))
    s.append(pointwise_unary("pointwise_sigmoid", "sigmoid_fwd"))
    s.append(pointwise_unary("pointwise_tanh", "tanh_fwd"))
    s.append(pointwise_unary("pointwise_swish", "swish_fwd", swish_beta=1.5))
    s.append(pointwise_unary("pointwise_elu", "elu_fwd", elu_alpha=0.8))
    s.append(pointwise_unary("pointwise_exp", "exp"))
    s.append(pointwise_unary("pointwise_log", "log"))
    s.append(pointwise_unary("pointwise_sqrt", "sqrt"))
    s.append(pointwise_unary("pointwise_identity", "identity", dims=(3, 5, 7)))
    # Pointwise binary.
    s.append(pointwise_binary("pointwise_add_bias_broadcast", "add", b_dims=(1, 8, 1, 1)))
    # cuDNN's pointwise engines broadcast an operand along the channels-last dim only.
    s.append(pointwise_binary("pointwise_add_bias_broadcast_nhwc", "add", b_dims=(1, 8, 1, 1), layout="nhwc"))
    s.append(pointwise_binary("pointwise_sub", "sub"))
    s.append(pointwise_binary("pointwise_mul_row_broadcast", "mul", a_dims=(4, 6, 10), b_dims=(10,)))
    s.append(pointwise_binary("pointwise_div", "div"))
    s.append(pointwise_binary("pointwise_max", "max"))
    s.append(pointwise_binary("pointwise_min", "min"))
    # Norms.
    s.append(batchnorm_graph("batchnorm_inference", variance_ext=False))
    s.append(batchnorm_graph("batchnorm_inference_variance_ext", variance_ext=True))
    # cuDNN's shapes: NHWC half data with fp32 statistics.
    s.append(batchnorm_graph("batchnorm_inference_nhwc_fp16", variance_ext=False, dims=(2, 16, 5, 5), layout="nhwc",
                             io="half"))
    s.append(batchnorm_graph("batchnorm_inference_variance_ext_nhwc_fp16", variance_ext=True, dims=(2, 16, 5, 5),
                             layout="nhwc", io="half"))
    # Batch-norm training (batch statistics, running averages) and backward.
    s.append(batchnorm_training_graph("batchnorm_training", running=False))
    s.append(batchnorm_training_graph("batchnorm_training_running_nhwc_fp16", dims=(4, 16, 6, 6), layout="nhwc",
                                      io="half"))
    s.append(batchnorm_backward_graph("batchnorm_backward"))
    s.append(batchnorm_backward_graph("batchnorm_backward_nhwc_fp16", dims=(4, 16, 6, 6), layout="nhwc", io="half"))
    s.append(layernorm_graph("layernorm_training", "TRAINING"))
    s.append(layernorm_graph("layernorm_inference", "INFERENCE"))
    s.append(layernorm_graph("layernorm_training_2d_normalized", "TRAINING", dims=(2, 3, 4, 5),
                             normalized_dim_count=2))
    s.append(rmsnorm_graph("rmsnorm_training", "TRAINING", with_bias=False))
    s.append(rmsnorm_graph("rmsnorm_inference_bias", "INFERENCE", with_bias=True))
    # RMS norm as language models use it: over the hidden (last) dim, one scale per element of it.
    s.append(rmsnorm_graph("rmsnorm_training_hidden", "TRAINING", with_bias=False, dims=(4, 6, 16), scale_dims=(16,),
                           stats_dims=(4, 6, 1)))
    s.append(rmsnorm_graph("rmsnorm_inference_hidden_bias", "INFERENCE", with_bias=True, dims=(4, 6, 16),
                           scale_dims=(16,)))
    s.append(rmsnorm_graph("rmsnorm_inference_hidden_bf16", "INFERENCE", with_bias=False, dims=(8, 64),
                           scale_dims=(64,), io="bfloat16"))
    # Reductions.
    s.append(reduction_graph("reduction_add", "ADD", [2, 3, 16], [2, 3, 1]))
    s.append(reduction_graph("reduction_max", "MAX", [4, 8, 6, 6], [4, 8, 1, 1]))
    s.append(reduction_graph("reduction_min", "MIN", [4, 8, 6], [1, 8, 1]))
    s.append(reduction_graph("reduction_mul", "MUL", [3, 5, 4], [3, 5, 1]))
    s.append(reduction_graph("reduction_avg", "AVG", [2, 6, 10], [2, 1, 10]))
    s.append(reduction_graph("reduction_norm1", "NORM1", [2, 3, 8], [2, 3, 1]))
    s.append(reduction_graph("reduction_norm2", "NORM2", [2, 3, 8], [1, 1, 1]))
    # Channels-last 4-D reductions: per-channel (batch-norm statistics) and per-image-and-channel.
    s.append(reduction_graph("reduction_add_per_channel_nhwc", "ADD", [4, 16, 6, 6], [1, 16, 1, 1], layout="nhwc"))
    s.append(reduction_graph("reduction_max_spatial_nhwc", "MAX", [4, 16, 6, 6], [4, 16, 1, 1], layout="nhwc"))
    # Pooling.
    s.append(resample_graph("resample_maxpool_3x3_s2", "MAXPOOL", [2, 4, 9, 9], [3, 3], [2, 2], [1, 1], [1, 1]))
    s.append(resample_graph("resample_avgpool_include_padding", "AVGPOOL_INCLUDE_PADDING", [2, 4, 8, 8], [3, 3],
                            [1, 1], [1, 1], [1, 1]))
    s.append(resample_graph("resample_avgpool_exclude_padding", "AVGPOOL_EXCLUDE_PADDING", [1, 2, 5, 5], [2, 2],
                            [2, 2], [1, 0], [0, 1]))
    s.append(resample_graph("resample_maxpool_3d", "MAXPOOL", [1, 2, 4, 6, 6], [2, 2, 2], [2, 2, 2], [0, 0, 0],
                            [0, 0, 0]))
    # The same pooling in cuDNN's pooling layout: channels last, half, C a multiple of 8.
    s.append(resample_graph("resample_maxpool_3x3_s2_nhwc_fp16", "MAXPOOL", [2, 8, 9, 9], [3, 3], [2, 2], [1, 1],
                            [1, 1], layout="nhwc", io="half"))
    s.append(resample_graph("resample_avgpool_include_padding_nhwc_fp16", "AVGPOOL_INCLUDE_PADDING", [2, 8, 8, 8],
                            [3, 3], [1, 1], [1, 1], [1, 1], layout="nhwc", io="half"))
    s.append(resample_graph("resample_avgpool_exclude_padding_nhwc_fp16", "AVGPOOL_EXCLUDE_PADDING", [1, 8, 5, 5],
                            [2, 2], [2, 2], [1, 0], [0, 1], layout="nhwc", io="half"))
    s.append(resample_graph("resample_maxpool_3d_ndhwc_fp16", "MAXPOOL", [1, 8, 4, 6, 6], [2, 2, 2], [2, 2, 2],
                            [0, 0, 0], [0, 0, 0], layout="nhwc", io="half"))
    # Fused graphs, fp64, and an op the tool does not execute.
    s.append(fused_conv_bias_relu())
    s.append(fused_matmul_bias_gelu())
    s.append(matmul_graph("matmul_fp64", [16, 24], [24, 8], io="double"))
    # Attention: plain with stats, causal GQA, bottom-right window, padding; backward.
    s.append(sdpa_graph("sdpa_fwd_fp16", 2, 2, 16, 16, 8))
    s.append(sdpa_graph("sdpa_fwd_causal_gqa_bf16", 1, 4, 12, 20, 16, h_kv=2, io="bfloat16", causal=True))
    s.append(sdpa_graph("sdpa_fwd_bottom_right_window_fp16", 1, 2, 8, 20, 16, causal=True, bottom_right=True,
                        left_bound=6))
    s.append(sdpa_graph("sdpa_fwd_padding_fp16", 3, 2, 16, 24, 8, padding=True))
    s.append(sdpa_graph("sdpa_bwd_fp16", 2, 2, 16, 16, 8, backward=True))
    s.append(sdpa_graph("sdpa_bwd_causal_gqa_bf16", 1, 4, 12, 12, 16, h_kv=2, io="bfloat16", backward=True,
                        causal=True))
    s.append(unsupported_block_scale_quantize())
    return s


def to_text(graph):
    """Indented JSON with arrays of numbers kept on one line (dims, strides, padding)."""
    text = json.dumps(graph, indent=2)
    number_list = re.compile(r"\[\s+([-0-9.e,\s]+?)\s+\]")
    return number_list.sub(lambda m: "[" + ", ".join(v.strip() for v in m.group(1).split(",")) + "]", text) + "\n"


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.path.join(here, "..", "graphs", "samples"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    graphs = samples()
    names = [g.name for g in graphs]
    duplicates = {n for n in names if names.count(n) > 1}
    if duplicates:
        sys.exit("duplicate sample names: " + ", ".join(sorted(duplicates)))
    for g in graphs:
        path = os.path.join(args.out, g.name + ".json")
        with open(path, "w", encoding="utf-8") as f:
            f.write(to_text(g.to_json()))
    print("wrote %d graphs to %s" % (len(graphs), os.path.normpath(args.out)))


if __name__ == "__main__":
    main()
