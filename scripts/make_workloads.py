#!/usr/bin/env python3
"""Build the real-workload collection (graphs/workloads, docs/import.md) from the ONNX files that
scripts/export_workloads.py wrote: `dnnbench import` each model variant in each data type, then
merge every import into one folder of distinct graphs with one manifest. Driven by
scripts/make_workloads.sh; standard library only.

    python3 scripts/make_workloads.py ONNX_DIR OUT_DIR --dnnbench BIN [--work DIR]

Identical graphs (the same JSON once the graph's name is removed: the rule `dnnbench run` uses
for duplicates) are one file. The manifest is a dnnbench import manifest (`run -g OUT_DIR` reads
it) whose graphs also say, under `models`, which model variants each graph comes from, how many
times it occurs in each (the import's count times the variant's `repeat`: a BERT-base layer 12
times) and at which layers (ONNX nodes; `#dgrad`, `#wgrad`, `#sdpa_bwd` for backward passes).
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

DTYPE_TAGS = {"half": "fp16", "bfloat16": "bf16", "float": "fp32"}


def file_name_for(index, name):
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)[:80]
    return f"{index:04}_{safe}.json"


def canonical(graph):
    g = dict(graph)
    g.pop("name", None)
    return json.dumps(g, sort_keys=True, separators=(",", ":"))


def import_variant(binary, onnx_path, variant, dtype, out):
    cmd = [binary, "import", onnx_path, "-o", out, "-q", "--dtype", dtype, "--layout", variant.get("layout", "nchw")]
    if variant.get("training"):
        cmd.append("--backward")
    for name, value in sorted(variant.get("dims", {}).items()):
        cmd += ["--dim", f"{name}={value}"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    with open(os.path.join(out, "manifest.json")) as f:
        return json.load(f)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("onnx_dir")
    parser.add_argument("out_dir")
    parser.add_argument("--dnnbench", required=True, help="the dnnbench binary (built with the ONNX importer)")
    parser.add_argument("--work", help="folder for the per-variant imports (default: a temporary one)")
    parser.add_argument("--only", default="", help="comma-separated variant names (or prefixes)")
    a = parser.parse_args()
    with open(os.path.join(a.onnx_dir, "workloads.json")) as f:
        catalog = json.load(f)
    only = [s for s in a.only.split(",") if s]
    work = a.work or tempfile.mkdtemp(prefix="dnnbench-workloads-")
    graphs = collections.OrderedDict()  # canonical content -> entry
    models, failures = [], []
    for variant in catalog["variants"]:
        if only and not any(variant["name"].startswith(o) for o in only):
            continue
        onnx_path = os.path.join(a.onnx_dir, variant["file"])
        if not os.path.isfile(onnx_path):
            failures.append(f"{variant['name']}: {onnx_path} is missing")
            continue
        for dtype in variant.get("dtypes", ["half", "bfloat16"]):
            name = f"{variant['name']}_{DTYPE_TAGS.get(dtype, dtype)}"
            folder = os.path.join(work, name)
            try:
                manifest = import_variant(a.dnnbench, onnx_path, variant, dtype, folder)
            except Exception as e:
                failures.append(f"{name}: {e}")
                print(f"FAILED {name}: {e}", flush=True)
                continue
            repeat = int(variant.get("repeat", 1))
            prefix = manifest["inputs"][0] + ":"
            layers, distinct = 0, 0
            for entry in manifest["graphs"]:
                with open(os.path.join(folder, entry["file"])) as f:
                    graph = json.load(f)
                key = canonical(graph)
                nodes = [s[len(prefix):] if s.startswith(prefix) else s for s in entry["sources"]]
                count = entry["count"] * repeat
                layers += count
                merged = graphs.get(key)
                if merged is None:
                    distinct += 1
                    merged = graphs[key] = {"graph": graph, "name": graph["name"], "flops": entry["flops"],
                                            "ops": entry["ops"], "source": f"{name}:{nodes[0]}",
                                            "models": collections.OrderedDict()}
                model = merged["models"].setdefault(name, {"count": 0, "layers": []})
                model["count"] += count
                model["layers"] += nodes
            skipped = collections.Counter(s["op"] for s in manifest["not_imported"])
            info = {k: variant[k] for k in variant if k not in ("name", "file", "dtypes")}
            models.append(dict(name=name, onnx=variant["file"], dtype=dtype, **info, graphs=len(manifest["graphs"]),
                               new_graphs=distinct, layers=layers, not_imported=dict(sorted(skipped.items()))))
            print(f"imported {name}: {len(manifest['graphs'])} graphs ({distinct} new), {layers} layers", flush=True)
    if not graphs:
        print("nothing imported", file=sys.stderr)
        return 1
    os.makedirs(a.out_dir, exist_ok=True)
    for old in os.listdir(a.out_dir):  # the previous collection's files only
        if re.fullmatch(r"\d{4,}_.*\.json|manifest\.json", old):
            os.remove(os.path.join(a.out_dir, old))
    entries, total_layers, total_flops = [], 0, 0.0
    for index, merged in enumerate(graphs.values(), start=1):
        file = file_name_for(index, merged["name"])
        with open(os.path.join(a.out_dir, file), "w") as f:
            json.dump(merged["graph"], f, separators=(",", ":"))
            f.write("\n")
        count = sum(m["count"] for m in merged["models"].values())
        total_layers += count
        total_flops += merged["flops"] * count
        entries.append({"file": file, "name": merged["name"], "count": count, "flops": merged["flops"],
                        "total_flops": merged["flops"] * count, "ops": merged["ops"], "sources": [merged["source"]],
                        "models": merged["models"]})
    manifest = {
        "format": "dnnbench-import-manifest", "version": 1,
        "collection": "real workloads: scripts/export_workloads.py, then scripts/make_workloads.sh (docs/import.md)",
        "exported_with": {"torch": catalog.get("torch")},
        "inputs": [m["name"] for m in models],
        "models": models,
        "totals": {"graphs": len(entries), "layers": total_layers, "flops": total_flops, "models": len(models),
                   "base_models": len({m.get("model", m["name"]) for m in models}),
                   "not_imported": sum(sum(m["not_imported"].values()) for m in models)},
        "graphs": entries,
        "not_imported": [],
        "failures": failures,
    }
    with open(os.path.join(a.out_dir, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)
    bases = sorted({m.get("model", m["name"]) for m in models})
    print(f"{len(entries)} distinct graphs ({total_layers} layers) from {len(models)} model variants of {len(bases)} "
          f"models ({', '.join(bases)}) into {a.out_dir}; {len(failures)} failed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
