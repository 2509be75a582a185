#!/usr/bin/env python3
"""Writes the hostile part of tests/data/malformed/ (the files named `hostile_*.json`): inputs
that attack the reader itself rather than the graph rules — deep nesting, huge numbers, NaN and
Infinity, very long strings, bytes that are not UTF-8, byte-order marks, NUL bytes, duplicate
keys, control characters in names. Their expected messages are in EXPECTED.txt (checked by
tests/graph/malformed_test.cpp). Deterministic; re-run after changing it.
"""
import copy
import json
import os

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "malformed")

BASE = {
    "name": "relu",
    "io_data_type": "float",
    "compute_data_type": "float",
    "tensors": [
        {"uid": 1, "name": "x", "dims": [2, 3], "strides": [3, 1], "data_type": "float"},
        {"uid": 2, "name": "y", "dims": [2, 3], "strides": [3, 1], "data_type": "float"},
    ],
    "nodes": [
        {"name": "relu", "type": "PointwiseAttributes",
         "inputs": {"operation": "relu_fwd", "in_0_tensor_uid": 1},
         "outputs": {"out_0_tensor_uid": 2}},
    ],
}


def graph(change=None):
    g = copy.deepcopy(BASE)
    if change:
        change(g)
    return json.dumps(g, indent=1, ensure_ascii=False).encode()


def write(name, data):
    with open(os.path.join(OUT, "hostile_" + name + ".json"), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def set_in(path, value):
    def change(g):
        target = g
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def main():
    text = graph().decode()
    # 100,000 nested arrays under an unknown key: refused before parsing (a recursive dump of it
    # would overflow the stack).
    write("deep_arrays", text[:-2] + ',\n "junk": ' + "[" * 100000 + "]" * 100000 + "\n}\n")
    # 1,000 nested objects, closed properly.
    write("deep_objects", '{"name": "deep", "a": ' + '{"a": ' * 1000 + "1" + "}" * 1000 + "}\n")
    write("nan_literal", text.replace('"dims": [\n    2,', '"dims": [\n    NaN,', 1))
    write("infinity_literal", graph(set_in(["tensors", 0, "uid"], 0)).decode().replace('"uid": 0', '"uid": Infinity', 1))
    write("huge_integer", graph(set_in(["tensors", 0, "uid"], 0)).decode().replace(
        '"uid": 0', '"uid": 123456789012345678901234567890', 1))
    write("uint64_dim", graph(set_in(["tensors", 0, "dims"], [18446744073709551615, 3])))
    write("exponent_overflow", graph(set_in(["tensors", 0, "uid"], 0)).decode().replace('"uid": 0', '"uid": 1e999', 1))
    write("float_uid", graph(set_in(["tensors", 0, "uid"], 1.5)))
    write("long_string", graph(set_in(["tensors", 0, "data_type"], "f" * 200000)))
    # A 100,000-character top-level key (the file's own, ignored), beside a real error. (In a
    # tensor it would be the error: unknown key, see long_unknown_key.)
    write("long_key", graph(lambda g: (g.update({"k" * 100000: 1}), g["tensors"][0].update({"dims": [0, 3]}))))
    # A 100,000-character unknown key in a tensor: a one-line error, cut, and no slow suggestion.
    write("long_unknown_key", graph(lambda g: g["tensors"][0].update({"k" * 100000: 1})))
    write("invalid_utf8", text.encode().replace(b'"name": "x"', b'"name": "x\xff\xfe"', 1))
    write("utf16_bom", b"\xff\xfe" + text.encode("utf-16-le"))
    write("nul_byte", text.encode().replace(b'"name": "x"', b'"name": "x"\x00', 1))
    write("bare_nul_in_string", text.encode().replace(b'"name": "x"', b'"name": "x\x00y"', 1))
    # Duplicate keys: the last one wins (as in most JSON readers); here it is not an array.
    write("duplicate_keys", text[:-2] + ',\n "tensors": 5\n}\n')
    write("control_chars_in_name", graph(lambda g: (g["tensors"][0].update({"name": "x\n\x1b[2Jboom"}),
                                                    g["tensors"][1].update({"uid": 1}))))
    write("negative_dim", graph(set_in(["tensors", 1, "dims"], [2, -3])))
    write("empty_dims", graph(set_in(["tensors", 0, "dims"], [])))
    write("stride_overflow", graph(set_in(["tensors", 0, "strides"], [9223372036854775807, 1])))
    write("stride_zero", graph(set_in(["tensors", 0, "strides"], [0, 1])))
    write("name_not_string", graph(set_in(["name"], 42)))
    write("tensor_name_empty", graph(set_in(["tensors", 0, "name"], "")))
    write("tensor_not_object", graph(set_in(["tensors", 0], "x")))
    write("node_not_object", graph(set_in(["nodes", 0], 5)))
    write("missing_nodes", graph(lambda g: g.pop("nodes")))
    write("port_string_uid", graph(set_in(["nodes", 0, "inputs", "in_0_tensor_uid"], "1")))
    write("port_list_mixed", graph(set_in(["nodes", 0, "inputs", "in_0_tensor_uid"], [1, "a"])))
    write("virtual_not_bool", graph(set_in(["tensors", 0, "virtual"], "yes")))
    write("self_loop", graph(set_in(["nodes", 0, "inputs", "in_0_tensor_uid"], 2)))
    write("trailing_garbage", text + "\n{}\n")
    write("top_level_number", "42\n")
    write("whitespace_only", " \n\t\r\n ")
    write("unknown_node_compute_type", graph(set_in(["nodes", 0, "compute_data_type"], "float7")))
    write("by_value_with_dims", graph(lambda g: g["tensors"].append(
        {"uid": 3, "name": "eps", "dims": [2], "value_type": "Float64Value", "value": 1e-5})))


if __name__ == "__main__":
    main()
