#!/usr/bin/python3
"""Independent check of a `dnnbench run --dump-tensors` folder with numpy (float64).

Usage: check_dump.py DUMP_DIR GRAPH_JSON_OR_DIR...

For every graph file (a folder stands for every .json in it, sorted), the script reads the graph,
loads the dumped inputs from DUMP_DIR/<graph>/inputs/, recomputes the graph's non-virtual outputs
with its own numpy code in float64, and compares against it
  (a) the tool's reference outputs (DUMP_DIR/<graph>/reference/), allowing one rounding of the
      output data type (rtol = machine epsilon of the output type, at least 1e-9), and
  (b) every DUMP_DIR/<graph>/<provider>/<engine>/ folder, with the per-type tolerances of
      docs/methodology.md: |out - numpy| <= atol + rtol*|numpy|, atol scaled by max(1, sqrt(L/64))
      where L is the graph's longest reduction.
One line per (graph, source): PASS or FAIL with max abs / rel error; graphs with an op this script
does not implement print SKIP naming the op. Exit 1 if anything failed, 2 on usage errors, else 0.

Only the standard library and numpy; written from the format notes, not from the tool's code.
"""
import json
import math
import os
import re
import sys

import numpy as np

# ---- tolerances -----------------------------------------------------------------------------

ENGINE_TOL = {"float": 1e-5, "half": 2e-3, "bfloat16": 1.6e-2, "double": 1e-9}
# Machine epsilon (one ulp at 1.0) of each output type: one rounding of the output is half of it.
EPS = {"float": 2.0 ** -23, "half": 2.0 ** -10, "bfloat16": 2.0 ** -7, "double": 2.0 ** -52}
# Spacing of the subnormals: absolute error of one rounding near zero is at most half of it.
SUBNORMAL = {"float": 2.0 ** -149, "half": 2.0 ** -24, "bfloat16": 2.0 ** -133, "double": 0.0}


class Unsupported(Exception):
    """An op (or op setting) this script does not implement."""


def sanitize(name):
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def role(ports, name):
    """The tensor uid of a role in a node's inputs/outputs (key with or without `_tensor_uid`)."""
    for key in (name + "_tensor_uid", name):
        if key in ports and ports[key] is not None and not isinstance(ports[key], (str, float)):
            return ports[key]
    return None


def settings_of(node):
    s = {}
    for key in ("parameters", "attributes"):
        if isinstance(node.get(key), dict):
            s.update(node[key])
    return s


# ---- ops ------------------------------------------------------------------------------------


def pad_spatial(x, pre, needed, fill):
    """Pads (or crops) the spatial dims (2..) of x: `pre` in front, and at the back enough that
    the padded extent of dim s is needed[s]. Negative `pre` crops."""
    out = x
    for s in range(x.ndim - 2):
        axis = 2 + s
        n = out.shape[axis]
        front, back = pre[s], needed[s] - pre[s] - n
        if front < 0:
            out = np.take(out, range(-front, n), axis=axis)
            n += front
            front = 0
        if back < 0:
            out = np.take(out, range(0, n + back), axis=axis)
            back = 0
        widths = [(0, 0)] * out.ndim
        widths[axis] = (front, back)
        out = np.pad(out, widths, mode="constant", constant_values=fill)
    return out


def window_slices(offsets, dilation, stride, out_spatial):
    """Slices of the padded input read by kernel position `offsets` for every output position."""
    sl = [slice(None), slice(None)]
    for s, k in enumerate(offsets):
        start = k * dilation[s]
        sl.append(slice(start, start + (out_spatial[s] - 1) * stride[s] + 1, stride[s]))
    return tuple(sl)


def conv_params(p, spatial):
    mode = p.get("conv_mode", "CROSS_CORRELATION")
    if mode not in ("CROSS_CORRELATION", "CONVOLUTION"):
        raise Unsupported("conv_mode " + str(mode))
    pre = list(p.get("pre_padding") or p.get("padding") or [0] * spatial)
    post = list(p.get("post_padding") or pre)
    stride = list(p.get("stride") or [1] * spatial)
    dilation = list(p.get("dilation") or [1] * spatial)
    return mode, pre, post, stride, dilation


def needed_extent(in_spatial, out_spatial, k_spatial, pre, post, stride, dilation):
    return [max(in_spatial[s] + pre[s] + post[s], (out_spatial[s] - 1) * stride[s] + (k_spatial[s] - 1) * dilation[s] + 1)
            for s in range(len(in_spatial))]


def conv_fwd(x, w, y_dims, p):
    spatial = x.ndim - 2
    mode, pre, post, stride, dilation = conv_params(p, spatial)
    n, c = x.shape[:2]
    k, cg = w.shape[:2]
    groups = c // cg
    kg = k // groups
    if mode == "CONVOLUTION":
        w = np.flip(w, axis=tuple(range(2, w.ndim)))
    ks, os_ = list(w.shape[2:]), list(y_dims[2:])
    xp = pad_spatial(x, pre, needed_extent(x.shape[2:], os_, ks, pre, post, stride, dilation), 0.0)
    y = np.zeros([n, groups, kg] + os_)
    wg = w.reshape([groups, kg, cg] + ks)
    for off in np.ndindex(*ks):
        xs = xp[window_slices(off, dilation, stride, os_)].reshape([n, groups, cg] + os_)
        y += np.einsum("ngc...,gkc->ngk...", xs, wg[(slice(None),) * 3 + off])
    return y.reshape([n, k] + os_), cg * int(np.prod(ks))


def conv_bwd_data(dy, w, dx_dims, p):
    spatial = dy.ndim - 2
    mode, pre, post, stride, dilation = conv_params(p, spatial)
    n, k = dy.shape[:2]
    c = dx_dims[1]
    cg = w.shape[1]
    groups = c // cg
    kg = k // groups
    if mode == "CONVOLUTION":
        w = np.flip(w, axis=tuple(range(2, w.ndim)))
    ks, os_, is_ = list(w.shape[2:]), list(dy.shape[2:]), list(dx_dims[2:])
    ext = needed_extent(is_, os_, ks, pre, post, stride, dilation)
    dxp = np.zeros([n, groups, cg] + ext)
    dyg = dy.reshape([n, groups, kg] + os_)
    wg = w.reshape([groups, kg, cg] + ks)
    for off in np.ndindex(*ks):
        sl = (slice(None),) + window_slices(off, dilation, stride, os_)
        dxp[sl] += np.einsum("ngk...,gkc->ngc...", dyg, wg[(slice(None),) * 3 + off])
    dxp = dxp.reshape([n, c] + ext)
    # Crop the padding back off (a negative pre-padding means the input starts inside).
    out = np.zeros([n, c] + is_)
    src, dst = [slice(None)] * 2, [slice(None)] * 2
    for s in range(spatial):
        lo = max(0, -pre[s])  # first input index present in the padded buffer
        hi = min(is_[s], ext[s] - pre[s])
        dst.append(slice(lo, hi))
        src.append(slice(lo + pre[s], hi + pre[s]))
    out[tuple(dst)] = dxp[tuple(src)]
    return out, kg * int(np.prod(ks))


def conv_bwd_weights(x, dy, w_dims, p):
    spatial = x.ndim - 2
    mode, pre, post, stride, dilation = conv_params(p, spatial)
    n, c = x.shape[:2]
    k, cg = w_dims[:2]
    groups = c // cg
    kg = k // groups
    ks, os_ = list(w_dims[2:]), list(dy.shape[2:])
    xp = pad_spatial(x, pre, needed_extent(x.shape[2:], os_, ks, pre, post, stride, dilation), 0.0)
    dyg = dy.reshape([n, groups, kg] + os_)
    dw = np.zeros([groups, kg, cg] + ks)
    for off in np.ndindex(*ks):
        xs = xp[window_slices(off, dilation, stride, os_)].reshape([n, groups, cg] + os_)
        dw[(slice(None),) * 3 + off] = np.einsum("ngkp,ngcp->gkc", dyg.reshape([n, groups, kg, -1]),
                                                 xs.reshape([n, groups, cg, -1]))
    dw = dw.reshape([k, cg] + ks)
    if mode == "CONVOLUTION":
        dw = np.flip(dw, axis=tuple(range(2, dw.ndim)))
    return dw, n * int(np.prod(os_))


def erf(v):
    return np.vectorize(math.erf, otypes=[np.float64])(v)


def num(value, default):
    return default if value is None else float(value)


def pointwise(op, a, b, st):
    if op in ("add", "sub", "mul", "div", "max", "min", "pow", "cmp_gt", "cmp_lt") and b is None:
        raise Unsupported("pointwise %s without in_1" % op)
    binary = {
        "add": lambda: a + b,
        "sub": lambda: a - b,
        "mul": lambda: a * b,
        "div": lambda: a / b,
        "max": lambda: np.maximum(a, b),
        "min": lambda: np.minimum(a, b),
    }
    if op in binary:
        with np.errstate(all="ignore"):
            return binary[op]()
    with np.errstate(all="ignore"):
        if op == "identity":
            return a.copy()
        if op == "relu_fwd":
            lower = num(st.get("relu_lower_clip"), 0.0)
            upper = num(st.get("relu_upper_clip"), math.inf)
            slope = num(st.get("relu_lower_clip_slope"), 0.0)
            return np.where(a > lower, np.minimum(a, upper), lower + slope * (a - lower))
        if op == "gelu_fwd":
            return 0.5 * a * (1.0 + erf(a / math.sqrt(2.0)))
        if op == "gelu_approx_tanh_fwd":
            return 0.5 * a * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (a + 0.044715 * a ** 3)))
        if op == "sigmoid_fwd":
            return 1.0 / (1.0 + np.exp(-a))
        if op == "tanh_fwd":
            return np.tanh(a)
        if op == "swish_fwd":
            beta = num(st.get("swish_beta"), 1.0)
            return a / (1.0 + np.exp(-beta * a))
        if op == "elu_fwd":
            alpha = num(st.get("elu_alpha"), 1.0)
            return np.where(a > 0, a, alpha * np.expm1(a))
        if op == "exp":
            return np.exp(a)
        if op == "log":
            return np.log(a)
        if op == "sqrt":
            return np.sqrt(a)
    raise Unsupported("PointwiseAttributes(%s)" % op)


def reduce_axes(in_shape, out_shape):
    if len(in_shape) != len(out_shape):
        raise Unsupported("reduction of rank %d to rank %d" % (len(in_shape), len(out_shape)))
    axes = []
    for ax, (i, o) in enumerate(zip(in_shape, out_shape)):
        if o == 1 and i != 1:
            axes.append(ax)
        elif o != i:
            raise Unsupported("reduction %s -> %s" % (list(in_shape), list(out_shape)))
    return tuple(axes)


def reduction(x, out_dims, mode):
    axes = reduce_axes(x.shape, out_dims)
    funcs = {
        "ADD": lambda: np.sum(x, axis=axes, keepdims=True),
        "MUL": lambda: np.prod(x, axis=axes, keepdims=True),
        "MIN": lambda: np.min(x, axis=axes, keepdims=True),
        "MAX": lambda: np.max(x, axis=axes, keepdims=True),
        "AMAX": lambda: np.max(np.abs(x), axis=axes, keepdims=True),
        "AVG": lambda: np.mean(x, axis=axes, keepdims=True),
        "NORM1": lambda: np.sum(np.abs(x), axis=axes, keepdims=True),
        "NORM2": lambda: np.sqrt(np.sum(x * x, axis=axes, keepdims=True)),
    }
    if mode not in funcs:
        raise Unsupported("ReductionAttributes(%s)" % mode)
    length = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    return funcs[mode]().reshape(out_dims), length


def pool_counts(in_len, out_len, window, stride, lo, hi, pre):
    """Per output position: how many window positions fall in [lo, hi) (input coordinates)."""
    start = np.arange(out_len) * stride - pre
    return np.clip(np.minimum(start + window, hi) - np.maximum(start, lo), 0, None).astype(np.float64)


def resample(x, y_dims, st):
    mode = st.get("resample_mode")
    window = list(st["window"])
    spatial = len(window)
    stride = list(st.get("stride") or window)
    pre = list(st.get("pre_padding") or [0] * spatial)
    post = list(st.get("post_padding") or pre)
    if mode not in ("MAXPOOL", "AVGPOOL_INCLUDE_PADDING", "AVGPOOL_EXCLUDE_PADDING"):
        raise Unsupported("ResampleFwdAttributes(%s)" % mode)
    os_ = list(y_dims[2:])
    ones = [1] * spatial
    ext = needed_extent(x.shape[2:], os_, window, pre, post, stride, ones)
    fill = -np.inf if mode == "MAXPOOL" else 0.0
    xp = pad_spatial(x, pre, ext, fill)
    acc = np.full(list(x.shape[:2]) + os_, fill)
    for off in np.ndindex(*window):
        xs = xp[window_slices(off, ones, stride, os_)]
        acc = np.maximum(acc, xs) if mode == "MAXPOOL" else acc + xs
    if mode != "MAXPOOL":
        count = np.ones([1, 1] + [1] * spatial)
        for s in range(spatial):
            n = x.shape[2 + s]
            if mode == "AVGPOOL_INCLUDE_PADDING":
                c = pool_counts(n, os_[s], window[s], stride[s], -pre[s], n + post[s], pre[s])
            else:
                c = pool_counts(n, os_[s], window[s], stride[s], 0, n, pre[s])
            shape = [1] * (2 + spatial)
            shape[2 + s] = os_[s]
            count = count * c.reshape(shape)
        with np.errstate(all="ignore"):
            acc = acc / count
    return acc, int(np.prod(window))


# ---- attention ----------------------------------------------------------------------------

def sdpa_keep(st, lens_q, lens_kv, sq, skv):
    """Boolean [B, 1, Sq, Skv]: which (row, key) pairs the masks keep, built as whole matrices."""
    right = st.get("right_bound")
    left = st.get("left_bound")
    if left is not None and int(left) == -1:
        left = None
    bottom_right = bool(st.get("causal_mask_bottom_right")) or st.get("diagonal_alignment") == "BOTTOM_RIGHT"
    if st.get("causal_mask") or st.get("causal_mask_bottom_right"):
        right = 0
    rows = np.arange(sq)[:, None]
    cols = np.arange(skv)[None, :]
    keep = np.zeros((len(lens_q), 1, sq, skv), dtype=bool)
    for b, (lq, lkv) in enumerate(zip(lens_q, lens_kv)):
        shift = (lkv - lq) if bottom_right else 0
        m = (rows < lq) & (cols < lkv)
        if right is not None:
            m &= cols <= rows + shift + int(right)
        if left is not None:
            m &= cols > rows + shift - int(left)
        keep[b, 0] = m
    return keep


def sdpa_scores(q, k, st, scale, lens_q, lens_kv, bias):
    """Masked scaled scores [B, Hq, Sq, Skv] (-inf where masked), K heads repeated for GQA."""
    hq, hk = q.shape[1], k.shape[1]
    kk = np.repeat(k, hq // hk, axis=1)
    s = scale * np.einsum("bhid,bhjd->bhij", q, kk)
    if bias is not None:
        s = s + bias
    keep = sdpa_keep(st, lens_q, lens_kv, q.shape[2], k.shape[2])
    return np.where(keep, s, -np.inf), kk


def sdpa_fwd(q, k, v, st, scale, lens_q, lens_kv, bias):
    s, _ = sdpa_scores(q, k, st, scale, lens_q, lens_kv, bias)
    with np.errstate(invalid="ignore", divide="ignore"):
        m = np.max(s, axis=-1, keepdims=True)
        finite = np.isfinite(m)
        m0 = np.where(finite, m, 0.0)
        lse = np.where(finite, m0 + np.log(np.sum(np.exp(s - m0), axis=-1, keepdims=True)), -np.inf)
        p = np.where(finite, np.exp(s - np.where(finite, lse, 0.0)), 0.0)
    vv = np.repeat(v, q.shape[1] // v.shape[1], axis=1)
    return np.einsum("bhij,bhjd->bhid", p, vv), lse


def sdpa_bwd(q, k, v, o, do, lse, st, scale, lens_q, lens_kv, bias):
    s, kk = sdpa_scores(q, k, st, scale, lens_q, lens_kv, bias)
    g_k, g_v = q.shape[1] // k.shape[1], q.shape[1] // v.shape[1]
    vv = np.repeat(v, g_v, axis=1)
    with np.errstate(invalid="ignore"):
        p = np.where(np.isfinite(s) & np.isfinite(lse), np.exp(s - np.where(np.isfinite(lse), lse, 0)), 0.0)
    dv_h = np.einsum("bhij,bhid->bhjd", p, do)
    dp = np.einsum("bhid,bhjd->bhij", do, vv)
    delta = np.sum(do * o, axis=-1, keepdims=True)
    ds = p * (dp - delta)
    dq = scale * np.einsum("bhij,bhjd->bhid", ds, kk)
    dk_h = scale * np.einsum("bhij,bhid->bhjd", ds, q)
    b, _, skv, _ = dk_h.shape
    dk = dk_h.reshape(b, k.shape[1], g_k, skv, -1).sum(axis=2)
    dv = dv_h.reshape(b, v.shape[1], g_v, skv, -1).sum(axis=2)
    return dq, dk, dv


# ---- graph evaluation ---------------------------------------------------------------------

SUPPORTED = {
    "ConvolutionFwdAttributes", "ConvolutionBwdAttributes", "ConvolutionWrwAttributes", "MatmulAttributes",
    "PointwiseAttributes", "BatchnormInferenceAttributes", "BatchnormInferenceAttributesVarianceExt",
    "LayernormAttributes", "RMSNormAttributes", "ReductionAttributes", "ResampleFwdAttributes",
    "BatchnormAttributes", "BatchnormBackwardAttributes",
    "SdpaAttributes", "SdpaBackwardAttributes",
}
POINTWISE_OPS = {
    "add", "sub", "mul", "div", "max", "min", "relu_fwd", "gelu_fwd", "gelu_approx_tanh_fwd", "sigmoid_fwd",
    "tanh_fwd", "swish_fwd", "elu_fwd", "exp", "log", "sqrt", "identity",
}


def unsupported_ops(graph):
    bad = []
    for node in graph.get("nodes", []):
        t = node.get("type")
        if t not in SUPPORTED:
            bad.append(str(t))
        elif t == "PointwiseAttributes" and node.get("inputs", {}).get("operation") not in POINTWISE_OPS:
            bad.append("PointwiseAttributes(%s)" % node.get("inputs", {}).get("operation"))
    return sorted(set(bad))


def shaped(v, dims):
    """v with the tensor's logical dims (reshape when sizes agree, else broadcast)."""
    dims = tuple(dims)
    if v.shape == dims:
        return v
    if v.size == int(np.prod(dims)):
        return v.reshape(dims)
    return np.broadcast_to(v, dims).copy()


def evaluate(graph, inputs):
    """Computes every tensor of the graph in float64. Returns (values by uid, longest reduction)."""
    tensors = {t["uid"]: t for t in graph["tensors"]}
    values = {}
    for uid, t in tensors.items():
        if "value" in t and t["value"] is not None and not isinstance(t["value"], (list, dict)):
            values[uid] = np.full(t.get("dims") or [1], float(t["value"]))
        elif uid in inputs:
            values[uid] = inputs[uid]
    longest = 1

    def get(ports, name, required=True):
        uid = role(ports, name)
        if uid is None:
            if required:
                raise ValueError("node lacks input %s" % name)
            return None
        if uid not in values:
            raise ValueError("tensor %s (uid %d) is neither an input nor computed yet" % (tensors[uid]["name"], uid))
        return values[uid]

    def scalar(ports, name):
        v = get(ports, name)
        return float(np.asarray(v).reshape(-1)[0])

    for node in graph["nodes"]:
        t, ins, outs, st = node["type"], node.get("inputs", {}), node.get("outputs", {}), settings_of(node)
        out_dims = lambda r: tensors[role(outs, r)]["dims"]  # noqa: E731
        results = {}
        length = 1
        if t == "ConvolutionFwdAttributes":
            results["y"], length = conv_fwd(get(ins, "x"), get(ins, "w"), out_dims("y"), st)
        elif t == "ConvolutionBwdAttributes":
            results["dx"], length = conv_bwd_data(get(ins, "dy"), get(ins, "w"), out_dims("dx"), st)
        elif t == "ConvolutionWrwAttributes":
            results["dw"], length = conv_bwd_weights(get(ins, "x"), get(ins, "dy"), out_dims("dw"), st)
        elif t == "MatmulAttributes":
            a, b = get(ins, "a"), get(ins, "b")
            results["c"], length = np.matmul(a, b), a.shape[-1]
        elif t == "PointwiseAttributes":
            a, b = get(ins, "in_0"), get(ins, "in_1", required=False)
            if role(ins, "in_2") is not None:
                raise Unsupported("PointwiseAttributes(%s) with in_2" % ins.get("operation"))
            results["out_0"] = pointwise(ins.get("operation"), a, b, ins)
        elif t in ("BatchnormInferenceAttributes", "BatchnormInferenceAttributesVarianceExt"):
            x, mean, scale, bias = get(ins, "x"), get(ins, "mean"), get(ins, "scale"), get(ins, "bias")
            if t == "BatchnormInferenceAttributes":
                inv_var = get(ins, "inv_variance")
            else:
                inv_var = 1.0 / np.sqrt(get(ins, "variance") + scalar(ins, "epsilon"))
            results["y"] = (x - mean) * inv_var * scale + bias
        elif t == "BatchnormAttributes":
            # Training: the batch's statistics over every dim but C (axis 1); biased variance for
            # y, unbiased for the running variance.
            x = get(ins, "x")
            axes = tuple(a for a in range(x.ndim) if a != 1)
            count = x.size // x.shape[1]
            mean = np.mean(x, axis=axes, keepdims=True)
            var = np.var(x, axis=axes, keepdims=True)
            inv = 1.0 / np.sqrt(var + scalar(ins, "epsilon"))
            results.update({"y": (x - mean) * inv * get(ins, "scale") + get(ins, "bias"), "mean": mean,
                            "inv_variance": inv})
            if role(ins, "prev_running_mean") is not None:
                f = scalar(ins, "momentum")
                results["next_running_mean"] = (1 - f) * get(ins, "prev_running_mean") + f * mean
                results["next_running_variance"] = ((1 - f) * get(ins, "prev_running_variance") +
                                                    f * var * count / max(count - 1, 1))
            length = count
        elif t == "BatchnormBackwardAttributes":
            dy, x = get(ins, "dy"), get(ins, "x")
            inv, scale = get(ins, "inv_variance"), get(ins, "scale")
            axes = tuple(a for a in range(x.ndim) if a != 1)
            count = x.size // x.shape[1]
            xhat = (x - get(ins, "mean")) * inv
            dbias = np.sum(dy, axis=axes, keepdims=True)
            dscale = np.sum(dy * xhat, axis=axes, keepdims=True)
            results.update({"dx": scale * inv * (dy - dbias / count - xhat * dscale / count), "dscale": dscale,
                            "dbias": dbias})
            length = count
        elif t == "LayernormAttributes":
            x = get(ins, "x")
            count = int(st.get("normalized_dim_count", 1))
            axes = tuple(range(x.ndim - count, x.ndim))
            mean = np.mean(x, axis=axes, keepdims=True)
            var = np.mean((x - mean) ** 2, axis=axes, keepdims=True)
            inv = 1.0 / np.sqrt(var + scalar(ins, "epsilon"))
            y = (x - mean) * inv
            if get(ins, "scale", required=False) is not None:
                y = y * get(ins, "scale")
            if get(ins, "bias", required=False) is not None:
                y = y + get(ins, "bias")
            results.update({"y": y, "mean": mean, "inv_variance": inv})
            length = int(np.prod([x.shape[a] for a in axes]))
        elif t == "RMSNormAttributes":
            x = get(ins, "x")
            inv_uid = role(outs, "inv_rms")
            if inv_uid is not None:
                stat_dims = tensors[inv_uid]["dims"]
                axes = tuple(a for a in range(x.ndim) if stat_dims[a] == 1 and x.shape[a] != 1)
            else:
                axes = tuple(range(1, x.ndim))
            inv = 1.0 / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + scalar(ins, "epsilon"))
            y = x * inv * get(ins, "scale")
            if get(ins, "bias", required=False) is not None:
                y = y + get(ins, "bias")
            results.update({"y": y, "inv_rms": inv})
            length = int(np.prod([x.shape[a] for a in axes])) if axes else 1
        elif t == "ReductionAttributes":
            results["out"], length = reduction(get(ins, "in"), out_dims("out"), st.get("mode"))
        elif t == "ResampleFwdAttributes":
            results["y"], length = resample(get(ins, "x"), out_dims("y"), st)
        elif t in ("SdpaAttributes", "SdpaBackwardAttributes"):
            q, k, v = get(ins, "q"), get(ins, "k"), get(ins, "v")
            if st.get("attn_scale_value") is not None:
                scale = float(st["attn_scale_value"])
            elif role(ins, "scale") is not None:
                scale = scalar(ins, "scale")
            else:
                scale = 1.0
            b, sq, skv = q.shape[0], q.shape[2], k.shape[2]
            lens_q, lens_kv = [sq] * b, [skv] * b
            if st.get("padding_mask"):
                lens_q = [min(max(int(x), 0), sq) for x in np.asarray(get(ins, "seq_len_q")).reshape(-1)]
                lens_kv = [min(max(int(x), 0), skv) for x in np.asarray(get(ins, "seq_len_kv")).reshape(-1)]
            bias = get(ins, "attn_mask", required=False)
            if t == "SdpaAttributes":
                results["o"], results["stats"] = sdpa_fwd(q, k, v, st, scale, lens_q, lens_kv, bias)
                length = max(q.shape[3], skv)
            else:
                results["dq"], results["dk"], results["dv"] = sdpa_bwd(
                    q, k, v, get(ins, "o"), get(ins, "do"), get(ins, "stats"), st, scale, lens_q, lens_kv, bias)
                length = max(q.shape[3], sq, skv)
        else:
            raise Unsupported(t)
        for name, v in results.items():
            uid = role(outs, name)
            if uid is not None:
                values[uid] = shaped(np.asarray(v, dtype=np.float64), tensors[uid]["dims"])
        longest = max(longest, int(length))
    return values, longest


# ---- comparison ---------------------------------------------------------------------------


def compare(got, want, rtol, atol):
    """Returns (passed, max abs error, max rel error, mismatches)."""
    got = got.astype(np.float64)
    with np.errstate(all="ignore"):
        diff = np.abs(got - want)
        ok = diff <= atol + rtol * np.abs(want)
        same_special = (~np.isfinite(want)) & ((got == want) | (np.isnan(got) & np.isnan(want)))
        ok |= same_special
        finite = np.isfinite(diff)
        max_abs = float(np.max(np.where(finite, diff, 0.0))) if diff.size else 0.0
        nz = (want != 0) & finite
        max_rel = float(np.max(diff[nz] / np.abs(want[nz]))) if np.any(nz) else 0.0
        if np.any(~finite & ~same_special):
            max_abs = max_rel = math.inf
    bad = int(np.count_nonzero(~ok))
    return bad == 0, max_abs, max_rel, bad


def load(path):
    return np.load(path, allow_pickle=False)


def check_graph(dump_dir, graph_path, report):
    """Checks one graph; appends (status, line) to report. Returns False on failure."""
    try:
        with open(graph_path, encoding="utf-8") as f:
            graph = json.load(f)
        name = graph["name"]
        tensors = {t["uid"]: t for t in graph["tensors"]}
    except (OSError, ValueError, KeyError, TypeError) as e:
        report("FAIL", "%s: cannot read graph: %s" % (graph_path, e))
        return False
    bad_ops = unsupported_ops(graph)
    if bad_ops:
        report("SKIP", "%-40s SKIP unsupported op %s" % (name, ", ".join(bad_ops)))
        return True
    gdir = os.path.join(dump_dir, sanitize(name))
    if not os.path.isdir(gdir):
        report("FAIL", "%-40s %-36s FAIL no dump folder %s" % (name, "-", gdir))
        return False
    produced = {uid for n in graph["nodes"] for uid in n.get("outputs", {}).values() if isinstance(uid, int)}
    outputs = [u for u, t in tensors.items() if u in produced and not t.get("virtual", False)]
    input_uids = [u for u, t in tensors.items()
                  if u not in produced and not t.get("virtual", False) and t.get("value") is None]
    inputs = {}
    try:
        for uid in input_uids:
            path = os.path.join(gdir, "inputs", sanitize(tensors[uid]["name"]) + ".npy")
            if not os.path.exists(path):
                # Optional inputs that no node reads are allowed to be missing.
                if any(uid in n.get("inputs", {}).values() for n in graph["nodes"]):
                    raise ValueError("missing dumped input " + path)
                continue
            v = load(path).astype(np.float64)
            if list(v.shape) != list(tensors[uid]["dims"]):
                raise ValueError("input %s has shape %s, graph says %s" % (path, v.shape, tensors[uid]["dims"]))
            inputs[uid] = v
        values, longest = evaluate(graph, inputs)
    except Unsupported as e:
        report("SKIP", "%-40s SKIP unsupported %s" % (name, e))
        return True
    except (ValueError, OSError, KeyError, IndexError) as e:
        report("FAIL", "%-40s %-36s FAIL %s" % (name, "-", e))
        return False

    scale = max(1.0, math.sqrt(longest / 64.0))
    sources = [("reference", os.path.join(gdir, "reference"))]
    for provider in sorted(os.listdir(gdir)):
        pdir = os.path.join(gdir, provider)
        if provider in ("inputs", "reference") or not os.path.isdir(pdir):
            continue
        for engine in sorted(os.listdir(pdir)):
            if os.path.isdir(os.path.join(pdir, engine)):
                sources.append((provider + "/" + engine, os.path.join(pdir, engine)))

    all_ok = True
    for source, sdir in sources:
        ok, worst_abs, worst_rel, notes = True, 0.0, 0.0, []
        for uid in outputs:
            t = tensors[uid]
            dtype = t.get("data_type", graph.get("io_data_type", "float"))
            if dtype in ("unset", None):
                dtype = graph.get("io_data_type", "float")
            if dtype not in ENGINE_TOL:
                notes.append("%s: output type %s not checked" % (t["name"], dtype))
                continue
            if source == "reference":
                rtol = max(EPS[dtype], 1e-9)
                atol = 1e-9 * scale + SUBNORMAL[dtype]
            else:
                rtol, atol = ENGINE_TOL[dtype], ENGINE_TOL[dtype] * scale
            path = os.path.join(sdir, sanitize(t["name"]) + ".npy")
            if not os.path.exists(path):
                ok = False
                notes.append("%s missing" % t["name"])
                continue
            got = load(path)
            want = values[uid]
            if list(got.shape) != list(want.shape):
                ok = False
                notes.append("%s shape %s != %s" % (t["name"], list(got.shape), list(want.shape)))
                continue
            passed, max_abs, max_rel, bad = compare(got, want, rtol, atol)
            worst_abs, worst_rel = max(worst_abs, max_abs), max(worst_rel, max_rel)
            if not passed:
                ok = False
                idx = np.unravel_index(int(np.argmax(~(np.abs(got.astype(np.float64) - want)
                                                       <= atol + rtol * np.abs(want)))), want.shape)
                notes.append("%s: %d mismatches (rtol %.3g atol %.3g), first at %s: got %r numpy %r" % (
                    t["name"], bad, rtol, atol, list(map(int, idx)), float(got[idx]), float(want[idx])))
        status = "PASS" if ok else "FAIL"
        all_ok &= ok
        line = "%-40s %-36s %s max_abs=%.3e max_rel=%.3e" % (name, source, status, worst_abs, worst_rel)
        if notes:
            line += "  [" + "; ".join(notes) + "]"
        report(status, line)
    return all_ok


def graph_files(args):
    files = []
    for a in args:
        if os.path.isdir(a):
            files += [os.path.join(a, f) for f in sorted(os.listdir(a)) if f.endswith(".json")]
        elif os.path.isfile(a):
            files.append(a)
        else:
            return None, a
    return files, None


def main(argv):
    if len(argv) < 3 or argv[1] in ("-h", "--help"):
        sys.stderr.write(__doc__.split("\n\n")[1] + "\n")
        return 2
    dump_dir = argv[1]
    if not os.path.isdir(dump_dir):
        sys.stderr.write("check_dump.py: %s is not a folder\n" % dump_dir)
        return 2
    files, missing = graph_files(argv[2:])
    if files is None:
        sys.stderr.write("check_dump.py: no such graph file or folder: %s\n" % missing)
        return 2
    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}

    def report(status, line):
        counts[status] += 1
        print(line, flush=True)

    ok = True
    for path in files:
        ok &= check_graph(dump_dir, path, report)
    print("check_dump: %d graphs; %d sources passed, %d failed, %d graphs skipped" % (
        len(files), counts["PASS"], counts["FAIL"], counts["SKIP"]))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
