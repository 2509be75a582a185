"""The problems of dnnbench graph files as PyTorch calls, shared by the bench/ scripts that time
PyTorch beside dnnbench (torch_compare.py, gemm_compare.py, matched_conditions.py).

A graph with one convolution, matmul or SDPA node becomes a `spec` (plain data, no torch needed:
shapes, strides, dtypes, padding, masks), and a spec becomes a zero-argument callable that runs
the same problem through PyTorch's own call: torch.matmul, the cuDNN convolution PyTorch's
F.conv2d/F.conv3d reach (aten.convolution and its backward), and
F.scaled_dot_product_attention under one SDPA backend. Tensors keep the graph's strides, so an
NHWC graph runs channels_last.

Also here: the fills (`uniform` on [-1, 1), the old scripts' data; `normal`, N(0, 1) drawn in
fp32 and rounded to the dtype, like torch.randn(...).to(dtype)), the kernels a call ran by
torch.profiler, kernel-name normalisation (so a mangled CUPTI name from dnnbench and the
profiler's demangled one compare equal), and small statistics helpers.
"""
import ctypes
import ctypes.util
import functools
import json
import math
import re
import shutil
import subprocess

DTYPES = {"half": "float16", "float16": "float16", "bfloat16": "bfloat16", "bf16": "bfloat16",
          "float": "float32", "float32": "float32", "double": "float64"}

CONV_KINDS = {"ConvolutionFwdAttributes": "fwd", "ConvolutionBwdAttributes": "bwd_data",
              "ConvolutionWrwAttributes": "bwd_weights"}
ATTENTION_KINDS = ("SdpaAttributes", "SdpaBackwardAttributes")


# ---------------------------------------------------------------------------------------------
# Graph files -> specs (no torch)

def load_graph(path):
    with open(path) as f:
        g = json.load(f)
    tensors = {t["uid"]: t for t in g["tensors"]}
    if len(g["nodes"]) != 1:
        raise ValueError("only single-node graphs are compared")
    return g, tensors, g["nodes"][0]


def settings(node):
    return node.get("parameters") or node.get("attributes") or {}


def port(node, tensors, side, role):
    return tensors[node[side][role + "_tensor_uid"]]


def is_attention(path):
    return load_graph(path)[2]["type"] in ATTENTION_KINDS


def _tensor(t):
    return {"dims": list(t["dims"]), "strides": list(t["strides"]), "data_type": t["data_type"]}


def is_channels_last(t):
    """True when the tensor's strides put C innermost (NHWC / NDHWC) with more than one channel."""
    dims, strides = t["dims"], t["strides"]
    return len(dims) >= 4 and dims[1] > 1 and strides[1] == 1


def problem_spec(path):
    """The graph's problem as plain data: {name, path, family (gemm|conv|attention), kind, dtype,
    tensors {role: {dims, strides, data_type}}, flops, desc, ...kind-specific settings}. Raises
    ValueError for a graph PyTorch cannot run as the same problem."""
    g, tensors, node = load_graph(path)
    kind = node["type"]
    spec = {"name": g["name"], "path": path}
    if kind == "MatmulAttributes":
        a, b = port(node, tensors, "inputs", "a"), port(node, tensors, "inputs", "b")
        c = port(node, tensors, "outputs", "c")
        m, k, n = a["dims"][-2], a["dims"][-1], b["dims"][-1]
        batch = math.prod(c["dims"][:-2]) if len(c["dims"]) > 2 else 1
        spec.update(family="gemm", kind="matmul", dtype=a["data_type"],
                    tensors={"a": _tensor(a), "b": _tensor(b), "c": _tensor(c)},
                    flops=2.0 * batch * m * n * k,
                    desc=f"matmul {a['dims']} x {b['dims']} {a['data_type']}")
        return spec
    if kind in CONV_KINDS:
        p = settings(node)
        pre, post = p.get("pre_padding", []), p.get("post_padding", [])
        if pre != post:
            raise ValueError("asymmetric padding has no PyTorch equivalent")
        if p.get("conv_mode", "CROSS_CORRELATION") != "CROSS_CORRELATION":
            raise ValueError("conv_mode CONVOLUTION (flipped kernel) has no PyTorch equivalent")
        direction = CONV_KINDS[kind]
        roles = {"fwd": (("x", "w"), "y"), "bwd_data": (("dy", "w"), "dx"), "bwd_weights": (("x", "dy"), "dw")}
        (r0, r1), out_role = roles[direction]
        t0, t1 = port(node, tensors, "inputs", r0), port(node, tensors, "inputs", r1)
        out = port(node, tensors, "outputs", out_role)
        x_t = {"fwd": t0, "bwd_data": out, "bwd_weights": t0}[direction]
        w_t = {"fwd": t1, "bwd_data": t1, "bwd_weights": out}[direction]
        y_t = {"fwd": out, "bwd_data": t0, "bwd_weights": t1}[direction]
        spatial = len(x_t["dims"]) - 2
        groups = x_t["dims"][1] // w_t["dims"][1]
        stride = p.get("stride") or [1] * spatial
        dilation = p.get("dilation") or [1] * spatial
        padding = pre or [0] * spatial
        # Each direction does the forward's multiply-adds: N*K*out_spatial*(C/groups)*kernel.
        flops = 2.0 * y_t["dims"][0] * y_t["dims"][1] * math.prod(y_t["dims"][2:]) \
            * w_t["dims"][1] * math.prod(w_t["dims"][2:])
        spec.update(family="conv", kind="conv", direction=direction, dtype=t0["data_type"],
                    tensors={r0: _tensor(t0), r1: _tensor(t1), out_role: _tensor(out)},
                    roles=[r0, r1, out_role], x=_tensor(x_t), w=_tensor(w_t), y=_tensor(y_t),
                    stride=list(stride), padding=list(padding), dilation=list(dilation), groups=groups,
                    channels_last=is_channels_last(x_t), flops=flops,
                    desc=(f"conv {direction} x{x_t['dims']} w{w_t['dims']} pad{list(padding)} stride{list(stride)} "
                          f"dil{list(dilation)} groups{groups} {t0['data_type']}"
                          + (" channels_last" if is_channels_last(x_t) else "")))
        return spec
    if kind in ATTENTION_KINDS:
        p = settings(node)
        if p.get("padding_mask") or p.get("left_bound") not in (None, -1) or p.get("causal_mask_bottom_right"):
            raise ValueError("padding, windows and bottom-right masks are not compared")
        q, k, v = (port(node, tensors, "inputs", r) for r in ("q", "k", "v"))
        b, hq, sq, d = q["dims"]
        skv = k["dims"][2]
        causal = bool(p.get("causal_mask"))
        pairs = sq * skv
        if causal:  # top-left causal: row i keeps keys 0..i (those that exist)
            pairs = sum(min(i + 1, skv) for i in range(sq))
        fwd_flops = 4.0 * b * hq * pairs * d  # QK^T and PV, 2 flops per multiply-add
        backward = kind == "SdpaBackwardAttributes"
        spec.update(family="attention", kind="sdpa_bwd" if backward else "sdpa_fwd", dtype=q["data_type"],
                    tensors={"q": _tensor(q), "k": _tensor(k), "v": _tensor(v)},
                    causal=causal, scale=p.get("attn_scale_value"), gqa=hq != k["dims"][1],
                    flops=fwd_flops * (2.5 if backward else 1.0),
                    desc=(f"sdpa {'bwd' if backward else 'fwd'} q{q['dims']} k{k['dims']}"
                          f"{' causal' if causal else ''}{' gqa' if hq != k['dims'][1] else ''} {q['data_type']}"))
        return spec
    raise ValueError(f"op {kind} is not compared")


# ---------------------------------------------------------------------------------------------
# Specs -> PyTorch calls

def make_tensor(torch, t, gen, fill="uniform", sigma=1.0):
    """A device tensor with the graph tensor's dims, strides and dtype. `uniform`: U(-1, 1) drawn
    in fp32 by `gen` (the old scripts' CPU generator); `normal`: N(0, 1) drawn in fp32 on `gen`'s
    device and rounded to the dtype, as torch.randn(...).to(dtype) gives (`sigma` scales it: 0.5 is
    dnnbench's default `--fill normal`, N(0, 0.5^2))."""
    dtype = getattr(torch, DTYPES[t["data_type"]])
    x = torch.empty_strided(t["dims"], t["strides"], dtype=dtype, device="cuda")
    if fill == "normal":
        src = sigma * torch.randn(t["dims"], dtype=torch.float32, generator=gen, device=gen.device)
    elif fill == "uniform":
        src = torch.empty(t["dims"], dtype=torch.float32, device=gen.device).uniform_(-1, 1, generator=gen)
    else:
        raise ValueError(f"fill {fill} is not known (normal, uniform)")
    x.copy_(src.to(dtype))
    return x


def build_call(torch, spec, fill="normal", seed=42, sdpa_backend="cudnn", gen=None, sigma=1.0):
    """A zero-argument callable running the spec's problem through PyTorch's own call."""
    if gen is None:
        gen = torch.Generator(device="cuda" if fill == "normal" else "cpu").manual_seed(seed)
    ts = spec["tensors"]
    if spec["kind"] == "matmul":
        a, b = make_tensor(torch, ts["a"], gen, fill, sigma), make_tensor(torch, ts["b"], gen, fill, sigma)
        return lambda: torch.matmul(a, b)
    if spec["kind"] == "conv":
        r0, r1, _ = spec["roles"]
        t0, t1 = make_tensor(torch, ts[r0], gen, fill, sigma), make_tensor(torch, ts[r1], gen, fill, sigma)
        stride, padding, dilation, groups = spec["stride"], spec["padding"], spec["dilation"], spec["groups"]
        zeros = [0] * len(stride)
        if spec["direction"] == "fwd":
            # F.conv2d / F.conv3d are this aten call with the graph's settings (no bias).
            conv = {2: torch.nn.functional.conv2d, 3: torch.nn.functional.conv3d}.get(len(stride))
            if conv is None:
                return lambda: torch.ops.aten.convolution(t0, t1, None, stride, padding, dilation, False, zeros, groups)
            return lambda: conv(t0, t1, None, stride, padding, dilation, groups)
        back = torch.ops.aten.convolution_backward
        if spec["direction"] == "bwd_data":
            x_like = make_tensor(torch, spec["x"], gen, fill, sigma)  # only its shape and layout matter
            return lambda: back(t0, x_like, t1, None, stride, padding, dilation, False, zeros, groups,
                                [True, False, False])
        w_like = make_tensor(torch, spec["w"], gen, fill, sigma)
        return lambda: back(t1, t0, w_like, None, stride, padding, dilation, False, zeros, groups,
                            [False, True, False])
    if spec["kind"] in ("sdpa_fwd", "sdpa_bwd"):
        from torch.nn.attention import SDPBackend, sdpa_kernel
        q, k, v = (make_tensor(torch, ts[r], gen, fill, sigma) for r in ("q", "k", "v"))
        kwargs = {"is_causal": spec["causal"], "scale": spec["scale"], "enable_gqa": spec["gqa"]}
        chosen = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION}[sdpa_backend]
        sdpa = torch.nn.functional.scaled_dot_product_attention
        if spec["kind"] == "sdpa_fwd":
            def forward():
                with sdpa_kernel(chosen):
                    return sdpa(q, k, v, **kwargs)
            return forward
        for t in (q, k, v):
            t.requires_grad_(True)
        with sdpa_kernel(chosen):
            out = sdpa(q, k, v, **kwargs)
        grad = torch.empty_like(out).uniform_(-1, 1) if fill == "uniform" else torch.randn_like(out)
        return lambda: torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
    raise ValueError(f"kind {spec['kind']} has no PyTorch call")


def build_problem(torch, path):
    """Convolution or matmul graph: (callable, description), on U(-1, 1) data (the old scripts')."""
    spec = problem_spec(path)
    if spec["family"] == "attention":
        raise ValueError("attention graphs: build_attention")
    return build_call(torch, spec, fill="uniform", gen=torch.Generator().manual_seed(42)), spec["desc"]


def build_attention(torch, path, backend):
    """Attention graph: a callable running it with one SDPA backend, on U(-1, 1) data."""
    spec = problem_spec(path)
    return build_call(torch, spec, fill="uniform", sdpa_backend=backend, gen=torch.Generator().manual_seed(42))


# ---------------------------------------------------------------------------------------------
# Kernels

def profile_kernels(torch, run, executions_per_run=1, runs=3):
    """The kernels `run` launches, by torch.profiler (CUPTI, ProfilerActivity.CUDA):
    [{name, launches (per execution), mean_us (device time per launch), total_us (per execution)}],
    memsets and copies included under the profiler's names, longest first."""
    from torch.profiler import ProfilerActivity, profile
    run()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(runs):
            run()
        torch.cuda.synchronize()
    executions = runs * executions_per_run
    out = []
    for e in prof.key_averages():
        if e.device_type.name != "CUDA" or not e.count:
            continue
        total = getattr(e, "device_time_total", None) or getattr(e, "cuda_time_total", 0)
        out.append({"name": e.key, "launches": e.count / executions, "mean_us": total / e.count,
                    "total_us": total / executions})
    out.sort(key=lambda k: -k["total_us"])
    return out


@functools.lru_cache(maxsize=None)
def _cxa_demangle():
    path = ctypes.util.find_library("stdc++") or "libstdc++.so.6"
    try:
        lib = ctypes.CDLL(path)
        f = lib.__cxa_demangle
    except (OSError, AttributeError):
        return None
    f.restype = ctypes.c_void_p
    f.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.POINTER(ctypes.c_int)]
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.free.argtypes = [ctypes.c_void_p]
    return f, libc.free


@functools.lru_cache(maxsize=4096)
def demangle(name):
    """The Itanium-ABI demangled form of a mangled (`_Z...`) name, else the name itself."""
    if not name.startswith("_Z"):
        return name
    found = _cxa_demangle()
    if found is not None:
        f, free = found
        status = ctypes.c_int(1)
        p = f(name.encode(), None, None, ctypes.byref(status))
        if p and status.value == 0:
            try:
                return ctypes.string_at(p).decode(errors="replace")
            finally:
                free(p)
    if shutil.which("c++filt"):
        try:
            return subprocess.run(["c++filt", name], capture_output=True, text=True, timeout=5).stdout.strip() or name
        except (OSError, subprocess.SubprocessError):
            pass
    return name


def _drop_parameter_list(name):
    """'ns::k<T>(P, Q)' -> 'ns::k<T>': the trailing top-level parenthesised list, if any."""
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        c = name[i]
        if c == ")":
            depth += 1
        elif c == "(":
            depth -= 1
            if depth == 0:
                return name[:i].rstrip() if i > 0 else name
    return name


def normalise_kernel_name(name):
    """A kernel's name with the decorations that differ between tools removed: demangled, no
    return type (`void `), no parameter list, whitespace collapsed. Memsets and copies become
    `[memset]` / `[memcpy]` (dnnbench writes `[memset 4 bytes]`, the profiler `Memset (Device)`)."""
    n = name.strip()
    low = n.lower()
    if low.startswith("[memset") or low.startswith("memset"):
        return "[memset]"
    if low.startswith("[memcpy") or low.startswith("memcpy"):
        return "[memcpy]"
    n = demangle(n)
    if n.startswith("void "):
        n = n[5:]
    n = _drop_parameter_list(n)
    return re.sub(r"\s+", " ", n).strip()


def is_copy_or_memset(normalised):
    return normalised in ("[memset]", "[memcpy]")


def compare_kernels(ours, theirs):
    """Kernel lists (normalised names, one entry per launch kind) of two tools: `yes` when they
    run the same compute kernels (memsets and copies aside), `main` when only the longest kernel
    on each side is the same, else `no`; None when either side has no list."""
    if not ours or not theirs:
        return None
    a = sorted({n for n, _ in ours if not is_copy_or_memset(n)})
    b = sorted({n for n, _ in theirs if not is_copy_or_memset(n)})
    if a and a == b:
        return "yes"
    main_a = max(((t, n) for n, t in ours if not is_copy_or_memset(n)), default=(0, None))[1]
    main_b = max(((t, n) for n, t in theirs if not is_copy_or_memset(n)), default=(0, None))[1]
    if main_a is not None and main_a == main_b:
        return "main"
    return "no"


# ---------------------------------------------------------------------------------------------
# dnnbench results and statistics

def row_median(row):
    stats = row.get("gpu_kernel_stats") or {}
    return stats.get("median_ms")


def quantile(sorted_values, q):
    k = (len(sorted_values) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (k - lo)


def distribution(values, band=0.03):
    """{n, min, p5, median, p95, max, geomean, within (share with |v - 1| <= band)} or None."""
    v = sorted(x for x in values if x and x > 0)
    if not v:
        return None
    return {"n": len(v), "min": v[0], "p5": quantile(v, 0.05), "median": quantile(v, 0.5),
            "p95": quantile(v, 0.95), "max": v[-1],
            "geomean": math.exp(sum(math.log(x) for x in v) / len(v)),
            "within": sum(1 for x in v if abs(x - 1) <= band) / len(v), "band": band}
