#!/usr/bin/env python3
"""A framework's captured step against dnnbench's run of its imported graphs (bench/capture-check.sh).

    capture_compare.py IMPORT_DIR RUN.json KERNELS.json [--also RUN2.json ...] [--json OUT.json]
    capture_compare.py --self-test

IMPORT_DIR: `dnnbench import LOG -o IMPORT_DIR` (its manifest.json counts each graph's executions and
names the engine the framework ran); RUN.json: `dnnbench run -g IMPORT_DIR --provider cudnn
--max-engines 1 -o RUN.json` (the heuristic pick of each graph, with its kernels from CUPTI);
KERNELS.json: the framework's own kernels of one step (tests/data/cudnn-log/torch_step.py MODEL
profile: name, count, total_us). --also: runs of the engine the framework ran where it is not the
heuristic's (PyTorch's batch norm calls cuDNN's legacy API: `--engine legacy_bn`); a graph's row from
them is taken where its engine is the one the framework ran.

Per graph: whether the pick ran the engine the framework ran (where the log says), whether every
kernel it ran is one the framework ran (by name), and its time times the graph's executions. Over
the step: the executions that map to a graph which ran and passed (weighted by count), and the
summed time of the matched kernels on both sides (dnnbench's per-execution kernel time x executions
against the framework's total for the same kernel names).
"""
import argparse
import json
import re
import shutil
import subprocess
import sys


def load(path, what):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"capture_compare: {path}: cannot read {what}: {e}")


def engine_ran(sources):
    for s in sources:
        m = re.search(r"ran (eng\d+|legacy_bn)", s)
        if m:
            return m.group(1)
    return None


def demangled(names):
    """{name: demangled}: CUPTI names a C++ kernel by its mangled symbol (_ZN5cudnn6fusion...),
    torch.profiler by its demangled signature; c++filt turns one into the other (names unchanged
    where it is missing)."""
    mangled = sorted({n for n in names if n.startswith("_Z")})
    if not mangled or not shutil.which("c++filt"):
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(mangled), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(mangled, out)) if len(out) == len(mangled) else {}


def kernel_key(name):
    """The name both sides agree on: a demangled signature less its return type and parameters
    ("cudnn::fusion::convert_dq_to_16bits<false>"), a plain name as it is, and every memset as one
    (dnnbench: "[memset 4 bytes]", torch.profiler: "Memset (Device)")."""
    if name.startswith("[memset") or name.startswith("Memset"):
        return "memset"
    if "(" not in name:
        return name
    depth = 0
    for i, c in enumerate(name):
        if c == "<":
            depth += 1
        elif c == ">":
            depth -= 1
        elif c == "(" and depth == 0:
            name = name[:i]
            break
    return name[len("void "):] if name.startswith("void ") else name


def row_engine(row):
    return row.get("engine_id") or row.get("engine_name")


def base_name(key):
    """A kernel key less its template arguments ("cudnn::batchnorm_bwtr_nhwc_semiPersist")."""
    return key.split("<", 1)[0]


def compare(manifest, run, kernels, also=()):
    runs = [run, *also]
    names = [k["name"] for k in kernels.get("kernels", [])]
    names += [k["name"] for rn in runs for g in rn.get("graphs", []) for r in g.get("results", [])
              for k in r.get("kernels") or []]
    plain = demangled(names)
    key = lambda n: kernel_key(plain.get(n, n))  # noqa: E731
    torch = {}
    for k in kernels.get("kernels", []):  # one entry per key: memsets of every size are one
        t = torch.setdefault(key(k["name"]), {"count": 0, "total_us": 0.0})
        t["count"] += k["count"]
        t["total_us"] += k["total_us"]
    # A run names each imported graph's path by where the log holds it (the manifest's source), a run
    # of plain files by the file's path; names only where neither is known (an import before its
    # graphs had names of their own named every call of one function alike).
    def index(rn):
        by_name, by_file = {}, {}
        for g in rn.get("graphs", []):
            path = g.get("graph_path") or ""
            by_file[path] = g
            by_file[path.rsplit("/", 1)[-1]] = g
            if g.get("graph_name"):
                by_name.setdefault(g["graph_name"], g)
        return by_name, by_file

    def find(by_name, by_file, entry):
        for source in entry.get("sources", []):
            if source in by_file:
                return by_file[source]
        return by_file.get(entry["file"]) or by_name.get(entry["name"])

    rows_by_name, rows_by_file = index(run)
    also_rows = [index(rn) for rn in also]
    graphs = []
    dnn_by_name = {}  # kernel name -> [expected launches a step, us a step]
    executions = passed_executions = 0
    for entry in manifest.get("graphs", []):
        count = entry.get("count", 1)
        executions += count
        g = find(rows_by_name, rows_by_file, entry)
        row = (g or {}).get("results", [None])[0] if g and g.get("results") else None
        framework_engine = engine_ran(entry.get("sources", []))
        for by_name, by_file in also_rows:
            other = find(by_name, by_file, entry)
            for r in (other or {}).get("results", []):
                if framework_engine and row_engine(r) == framework_engine and r.get("status") == "success":
                    row, g = r, other
        rec = {"graph": entry["name"], "file": entry["file"], "count": count,
               "ops": entry.get("ops", []), "framework_engine": framework_engine}
        if row is None:
            rec["status"] = (g or {}).get("status", "not run")
            graphs.append(rec)
            continue
        rec["status"] = row.get("status")
        rec["engine"] = row_engine(row)
        rec["passed"] = bool(row.get("passed"))
        if rec["passed"]:
            passed_executions += count
        names = []
        us = 0.0
        for k in row.get("kernels") or []:
            launches = k.get("launches", 1)
            k_us = (k.get("median_ms") or 0) * 1000 * launches
            us += k_us
            names.append(key(k["name"]))
            acc = dnn_by_name.setdefault(key(k["name"]), [0, 0.0])
            acc[0] += launches * count
            acc[1] += k_us * count
        rec["kernels"] = names
        rec["kernels_in_framework"] = all(n in torch for n in names) if names else None
        rec["kernel_us"] = us
        rec["step_us"] = us * count
        graphs.append(rec)
    # A kernel both launched is counted over the launches both account for: the framework's step
    # launches some kernels beyond the captured graphs (PyTorch zeroes gradients with memsets of
    # its own: 9 memsets in a BERT layer's step against the SDPA graphs' 2), and each side's time
    # is taken pro rata to its launches (memsets of every size are one key, so theirs is a mean).
    def shared(d_launches, d_us, f_launches, f_us):
        m = min(d_launches, f_launches)
        return (d_us * m / d_launches if d_launches else d_us, f_us * m / f_launches if f_launches else f_us, m)

    matched = {n: v for n, v in dnn_by_name.items() if n in torch}
    counted = {n: shared(v[0], v[1], torch[n]["count"], torch[n]["total_us"]) for n, v in matched.items()}
    dnn_us = sum(c[0] for c in counted.values())
    fw_us = sum(c[1] for c in counted.values())
    # By kernel family (the name less its template arguments): a library may pick another
    # instance of the same kernel for some calls (PyTorch's step ran 12 of its 53 batch-norm
    # backward calls on batchnorm_bwtr_nhwc_semiPersist<..., 1, 0, ...>, dnnbench all 53 on
    # <..., 1, 1, ...>), which the exact name leaves out of both sums.
    dnn_family, fw_family = {}, {}  # family -> [launches, us]
    for n, v in dnn_by_name.items():
        acc = dnn_family.setdefault(base_name(n), [0, 0.0])
        acc[0] += v[0]
        acc[1] += v[1]
    for n, v in torch.items():
        acc = fw_family.setdefault(base_name(n), [0, 0.0])
        acc[0] += v["count"]
        acc[1] += v["total_us"]
    families = {}
    for f, (d_launches, d_us) in dnn_family.items():
        if f in fw_family:
            d, w, m = shared(d_launches, d_us, *fw_family[f])
            families[f] = {"dnnbench_us": d, "framework_us": w, "launches": m}
    dnn_family_us = sum(v["dnnbench_us"] for v in families.values())
    fw_family_us = sum(v["framework_us"] for v in families.values())
    summary = {
        "graphs": len(graphs),
        "executions": executions,
        "executions_run_and_passed": passed_executions,
        "executions_share": passed_executions / executions if executions else None,
        "graphs_same_kernels": sum(1 for g in graphs if g.get("kernels_in_framework")),
        "graphs_with_kernels": sum(1 for g in graphs if g.get("kernels")),
        "graphs_same_engine": sum(1 for g in graphs if g.get("framework_engine") and g.get("engine") == g["framework_engine"]),
        "graphs_engine_known": sum(1 for g in graphs if g.get("framework_engine") and g.get("engine")),
        "kernel_names_matched": len(matched),
        "kernel_names_not_in_framework": sorted(n for n in dnn_by_name if n not in torch),
        # Launches a step on each side, and each side's time over the launches both account for.
        "launches_matched": {n: {"dnnbench": v[0], "framework": torch[n]["count"], "counted": counted[n][2],
                                 "dnnbench_us": counted[n][0], "framework_us": counted[n][1]}
                             for n, v in matched.items()},
        "matched_us_dnnbench": dnn_us,
        "matched_us_framework": fw_us,
        "ratio": dnn_us / fw_us if fw_us else None,
        "families_matched": families,
        "family_us_dnnbench": dnn_family_us,
        "family_us_framework": fw_family_us,
        "family_ratio": dnn_family_us / fw_family_us if fw_family_us else None,
        "framework_step_ms": kernels.get("step_ms_events"),
        "framework_kernel_sum_us": kernels.get("kernel_sum_us"),
    }
    return {"summary": summary, "graphs": graphs}


def version_note(manifest, run):
    """A line when the run's cuDNN is not the one the capture was made with (its log's name says
    cudnnX.Y): the heuristic's picks and the kernels' names follow the version, so the same-kernel
    counts then say little."""
    captured = {m.group(1) for i in manifest.get("inputs", []) for m in [re.search(r"cudnn(\d+\.\d+)", i)] if m}
    device = ((run.get("metadata", {}).get("providers", {}).get("cudnn") or {}).get("device") or {})
    ran = ".".join(str(device.get("cudnn_version", "")).split(".")[:2])
    if not captured or not ran or ran in captured:
        return ""
    return (f"run on cuDNN {ran}, captured on cuDNN {', '.join(sorted(captured))}: its picks and kernel names "
            "follow the version (run the build against the framework's cuDNN to compare kernels)")


def self_test():
    """The comparison on a made-up capture: two graphs, one run twice by the framework."""
    manifest = {"graphs": [
        {"name": "g1", "file": "0001_g1.json", "count": 2, "ops": ["ConvolutionFwdAttributes"],
         "sources": ["log:10 (process 1, thread 1, handle none; 2 executions; ran eng3 KERNEL_CFG=1)"]},
        {"name": "g2", "file": "0002_g2.json", "count": 1, "ops": ["MatmulAttributes"], "sources": ["log:20"]},
        {"name": "g3", "file": "0003_g3.json", "count": 1, "ops": ["PointwiseAttributes"], "sources": []},
        # Two calls of one legacy function, named alike (as imports before numbered names did): each
        # is its own graph, found by where the log holds it.
        {"name": "bn", "file": "0004_bn.json", "count": 1, "ops": ["BatchnormAttributes"],
         "sources": ["log:30 (process 1, thread 1, handle h; 1 executions; ran legacy_bn mode=persistent)"]},
        {"name": "bn", "file": "0005_bn.json", "count": 1, "ops": ["BatchnormAttributes"],
         "sources": ["log:40 (process 1, thread 1, handle h; 1 executions; ran legacy_bn mode=persistent)"]}]}
    run = {"graphs": [
        {"graph_path": "cap/0001_g1.json", "results": [{"status": "success", "passed": True, "engine_name": "eng3",
                                                        "kernels": [{"name": "conv_k", "launches": 1, "median_ms": 0.010},
                                                                    {"name": "[memset 4 bytes]", "launches": 1, "median_ms": 0.001}]}]},
        # A run of the import folder: the graph by the manifest's name, its path where the log holds it.
        {"graph_name": "g2", "graph_path": "log:20 (process 1, thread 1)",
         "results": [{"status": "success", "passed": True, "engine_name": "eng0",
                                                        "kernels": [{"name": "gemm_k", "launches": 2, "median_ms": 0.005},
                                                                    {"name": "other_k", "launches": 1, "median_ms": 0.001}]}]},
        {"graph_path": "cap/0003_g3.json", "status": "error", "results": []},
        # The heuristic's pick of a batch norm: a graph-API engine, not what the framework ran.
        {"graph_path": "cap/0004_bn.json", "results": [{"status": "success", "passed": True, "engine_id": "eng1",
                                                        "kernels": [{"name": "graph_bn_k", "launches": 1, "median_ms": 0.5}]}]}]}
    legacy = {"graphs": [
        {"graph_path": "cap/0001_g1.json", "results": [{"status": "skipped", "engine_id": "legacy_bn"}]},
        {"graph_name": "bn", "graph_path": "log:40 (process 1, thread 1, handle h; 1 executions; ran legacy_bn mode=persistent)",
         "results": [{"status": "success", "passed": True, "engine_id": "legacy_bn",
                      "kernels": [{"name": "bn_fw_k", "launches": 1, "median_ms": 0.008}]}]},
        {"graph_name": "bn", "graph_path": "log:30 (process 1, thread 1, handle h; 1 executions; ran legacy_bn mode=persistent)",
         "results": [{"status": "success", "passed": True, "engine_id": "legacy_bn",
                      "kernels": [{"name": "bn_fw_k", "launches": 1, "median_ms": 0.004}]}]}]}
    kernels = {"kernels": [{"name": "conv_k", "count": 2, "total_us": 21.0},
                           # Five memsets: two are g1's (twice one), three the framework's own.
                           {"name": "Memset (Device)", "count": 5, "total_us": 10.0},
                           {"name": "gemm_k", "count": 1, "total_us": 5.0},
                           {"name": "elementwise", "count": 5, "total_us": 3.0},
                           {"name": "bn_fw_k", "count": 2, "total_us": 12.0},
                           {"name": "void gemm_k<1>(int)", "count": 1, "total_us": 6.0}]}
    both = compare(manifest, run, kernels, [legacy])
    s = both["summary"]
    alone = compare(manifest, run, kernels)["summary"]
    checks = [
        (s["executions"], 6), (s["executions_run_and_passed"], 5),
        (s["graphs_same_kernels"], 3), (s["graphs_with_kernels"], 4),
        (s["graphs_same_engine"], 3), (s["graphs_engine_known"], 3),
        ([round(g.get("kernel_us", 0), 6) for g in both["graphs"] if g["graph"] == "bn"], [4.0, 8.0]),
        (s["kernel_names_not_in_framework"], ["other_k"]),
        # conv_k 20 | 21, gemm_k over the framework's one launch 5 | 5, bn_fw_k 12 | 12, the memsets
        # over g1's two launches 2 | 4 (the framework's other three left out).
        (round(s["matched_us_dnnbench"], 6), 39.0), (round(s["matched_us_framework"], 6), 42.0),
        # gemm_k<1> is gemm_k's family: counted there (two launches a side: 10 | 11), not by its name.
        (round(s["family_us_dnnbench"], 6), 44.0), (round(s["family_us_framework"], 6), 48.0),
        ({k: round(v, 6) for k, v in s["launches_matched"]["memset"].items()},
         {"dnnbench": 2, "framework": 5, "counted": 2, "dnnbench_us": 2.0, "framework_us": 4.0}),
        # Without the legacy run, the batch norm is held to the heuristic's kernels.
        (alone["graphs_same_kernels"], 1), (alone["graphs_same_engine"], 1),
        (alone["kernel_names_not_in_framework"], ["graph_bn_k", "other_k"]),
        ({k: round(v, 6) for k, v in s["launches_matched"]["conv_k"].items()},
         {"dnnbench": 2, "framework": 2, "counted": 2, "dnnbench_us": 20.0, "framework_us": 21.0}),
        (kernel_key("[memset 4 bytes]"), kernel_key("Memset (Device)")),
        (kernel_key("void cudnn::fusion::convert_dq_to_16bits<false>(void const*, void*, bool)"),
         "cudnn::fusion::convert_dq_to_16bits<false>"),
        (kernel_key("void at::native::k<8, std::array<char*, 3ul> >(int, float)"), "at::native::k<8, std::array<char*, 3ul> >"),
    ]
    if shutil.which("c++filt"):
        checks.append((kernel_key(demangled(["_ZN5cudnn6fusion20convert_dq_to_16bitsILb0EEEvPKvPvb"])
                                  ["_ZN5cudnn6fusion20convert_dq_to_16bitsILb0EEEvPKvPvb"]),
                       "cudnn::fusion::convert_dq_to_16bits<false>"))
    checks += [
        (version_note({"inputs": ["x-cudnn9.19.log.xz"]},
                      {"metadata": {"providers": {"cudnn": {"device": {"cudnn_version": "9.14.0"}}}}})[:38],
         "run on cuDNN 9.14, captured on cuDNN 9"),
        (version_note({"inputs": ["x-cudnn9.19.log.xz"]},
                      {"metadata": {"providers": {"cudnn": {"device": {"cudnn_version": "9.19.1"}}}}}), ""),
    ]
    bad = [(got, want) for got, want in checks if got != want]
    for got, want in bad:
        print(f"capture_compare self-test: got {got!r}, want {want!r}")
    print("capture_compare self-test:", "FAILED" if bad else "passed")
    return 1 if bad else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        sys.exit(self_test())
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("import_dir")
    ap.add_argument("run_json")
    ap.add_argument("kernels_json")
    ap.add_argument("--also", action="append", default=[], metavar="RUN.json",
                    help="a run of the engines the framework ran (its rows are taken where their engine is)")
    ap.add_argument("--json", help="write the comparison here")
    a = ap.parse_args()
    manifest = load(f"{a.import_dir}/manifest.json", "the import manifest")
    result = compare(manifest, load(a.run_json, "the run"), load(a.kernels_json, "the framework's kernels"),
                     [load(p, "a run of the framework's engines") for p in a.also])
    s = result["summary"]
    note = version_note(manifest, load(a.run_json, "the run"))
    if note:
        print(f"{a.import_dir}: {note}")
    share = s["executions_share"]
    print(f"{a.import_dir}: {s['graphs']} graphs, {s['executions']} executions; run and passed: "
          f"{s['executions_run_and_passed']} ({share:.1%})" if share is not None else f"{a.import_dir}: empty")
    print(f"  same kernels as the framework (by name): {s['graphs_same_kernels']} of {s['graphs_with_kernels']} graphs; "
          f"same engine: {s['graphs_same_engine']} of {s['graphs_engine_known']}")
    if s["family_ratio"] is not None:
        print(f"  by kernel family (template arguments aside): dnnbench {s['family_us_dnnbench']:.1f} us, framework "
              f"{s['family_us_framework']:.1f} us, ratio {s['family_ratio']:.3f}")
    if s["ratio"] is not None:
        print(f"  matched kernels' time a step: dnnbench {s['matched_us_dnnbench']:.1f} us, framework "
              f"{s['matched_us_framework']:.1f} us, ratio {s['ratio']:.3f}")
    for n in s["kernel_names_not_in_framework"][:10]:
        print(f"  not in the framework's step: {n[:120]}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
