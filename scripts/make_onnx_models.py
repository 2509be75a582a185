#!/usr/bin/python3
"""Writes ONNX models shaped like real networks, for measuring the ONNX importer (docs/import.md).

Uses only Debian's python3-onnx (run with /usr/bin/python3). Weights are zeros: the importer
reads shapes only. Written as `torch.onnx.export` writes torchvision's ResNet-50 in eval mode
(batch norm folded into the convolutions' biases), with a symbolic batch dimension `N`, and a
BERT-base encoder layer (hidden 768, 12 heads, MLP 3072, GELU as Erf) over [B, S, 768].

    /usr/bin/python3 scripts/make_onnx_models.py OUT_DIR
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


class Model:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, shape):
        n = self.name("w")
        self.inits.append(numpy_helper.from_array(np.zeros(shape, dtype=np.float32), n))
        return n

    def node(self, op, inputs, name=None, **attrs):
        out = self.name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [out], name=name or out, **attrs))
        return out


def conv(m, x, cin, cout, k, stride=1, pad=0, name=None):
    return m.node("Conv", [x, m.weight([cout, cin, k, k]), m.weight([cout])], name=name,
                  kernel_shape=[k, k], strides=[stride, stride], pads=[pad] * 4)


def resnet50():
    m = Model()
    x = m.node("Relu", [conv(m, "input", 3, 64, 7, 2, 3, "conv1")])
    x = m.node("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for stage, (width, blocks, stride) in enumerate([(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]):
        for b in range(blocks):
            s = stride if b == 0 else 1
            tag = f"layer{stage + 1}.{b}"
            y = m.node("Relu", [conv(m, x, cin, width, 1, 1, 0, tag + ".conv1")])
            y = m.node("Relu", [conv(m, y, width, width, 3, s, 1, tag + ".conv2")])
            y = conv(m, y, width, width * 4, 1, 1, 0, tag + ".conv3")
            identity = conv(m, x, cin, width * 4, 1, s, 0, tag + ".downsample") if b == 0 else x
            x = m.node("Relu", [m.node("Add", [y, identity])])
            cin = width * 4
    x = m.node("GlobalAveragePool", [x])
    x = m.node("Flatten", [x], axis=1)
    x = m.node("Gemm", [x, m.weight([1000, 2048]), m.weight([1000])], name="fc", transB=1)
    graph = helper.make_graph(m.nodes, "resnet50",
                              [helper.make_tensor_value_info("input", TensorProto.FLOAT, ["N", 3, 224, 224])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, None)], m.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def bert_layer():
    m = Model()
    hidden, heads, mlp = 768, 12, 3072
    x = "hidden_states"
    shape_heads = numpy_helper.from_array(np.array([0, 0, heads, hidden // heads], dtype=np.int64), "heads")
    shape_merge = numpy_helper.from_array(np.array([0, 0, hidden], dtype=np.int64), "merge")
    scale = numpy_helper.from_array(np.array(1 / np.sqrt(hidden // heads), dtype=np.float32), "scale")
    half = numpy_helper.from_array(np.array(0.5, dtype=np.float32), "half")
    one = numpy_helper.from_array(np.array(1.0, dtype=np.float32), "one")
    sqrt2 = numpy_helper.from_array(np.array(np.sqrt(2.0), dtype=np.float32), "sqrt2")
    m.inits += [shape_heads, shape_merge, scale, half, one, sqrt2]

    def linear(v, n_in, n_out, name):
        return m.node("Add", [m.node("MatMul", [v, m.weight([n_in, n_out])], name=name), m.weight([n_out])])

    proj = {}
    for p in "qkv":
        proj[p] = m.node("Reshape", [linear(x, hidden, hidden, f"attention.self.{p}"), "heads"])
    q = m.node("Transpose", [proj["q"]], perm=[0, 2, 1, 3])
    k = m.node("Transpose", [proj["k"]], perm=[0, 2, 3, 1])
    v = m.node("Transpose", [proj["v"]], perm=[0, 2, 1, 3])
    s = m.node("Mul", [m.node("MatMul", [q, k], name="attention.scores"), "scale"])
    ctx = m.node("MatMul", [m.node("Softmax", [s], axis=-1), v])
    ctx = m.node("Reshape", [m.node("Transpose", [ctx], perm=[0, 2, 1, 3]), "merge"])
    attn = linear(ctx, hidden, hidden, "attention.output.dense")
    x1 = m.node("LayerNormalization", [m.node("Add", [attn, x]), m.weight([hidden]), m.weight([hidden])],
                name="attention.output.LayerNorm", epsilon=1e-12)
    h = linear(x1, hidden, mlp, "intermediate.dense")
    gelu = m.node("Mul", [m.node("Mul", [h, "half"]), m.node("Add", [m.node("Erf", [m.node("Div", [h, "sqrt2"])]), "one"])])
    out = linear(gelu, mlp, hidden, "output.dense")
    y = m.node("LayerNormalization", [m.node("Add", [out, x1]), m.weight([hidden]), m.weight([hidden])],
               name="output.LayerNorm", epsilon=1e-12)
    graph = helper.make_graph(m.nodes, "bert_base_layer",
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, ["B", "S", hidden])],
                              [helper.make_tensor_value_info(y, TensorProto.FLOAT, None)], m.inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


if __name__ == "__main__":
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    os.makedirs(out, exist_ok=True)
    onnx.save(resnet50(), os.path.join(out, "resnet50.onnx"))
    onnx.save(bert_layer(), os.path.join(out, "bert_base_layer.onnx"))
