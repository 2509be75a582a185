#!/usr/bin/env bash
# Where a suite's time goes outside its timed regions (issue 12). Runs dnnbench over the ResNet-50
# fp16 forward set with every engine at default settings and prints the suite's wall time, the
# sum of the timed regions, their ratio, rows per minute, and the rest split into build, warm-up,
# checks and the time outside any row:
#
#   bench/overhead.sh [OUT_DIR]
#
# The suite is bench/recipes/overhead-rn50.toml. Environment: DNNBENCH (default build/gpu/dnnbench),
# GRAPHS (other graph files, space-separated, instead of the recipe's), EXTRA (more flags, e.g.
# --max-engines 4), LABEL (names the output files; default "after").
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out}/overhead}
mkdir -p "$OUT_DIR"
DNNBENCH=${DNNBENCH:-build/gpu/dnnbench}
LABEL=${LABEL:-after}
. bench/lib/gpu-env.sh  # the loader path: GPU_RUN_PREFIX
graph_args=()
if [ -n "${GRAPHS:-}" ]; then
  read -r -a graphs <<< "$GRAPHS"
  for g in "${graphs[@]}"; do graph_args+=(-g "$g"); done
fi
start=$(date +%s.%N)
# shellcheck disable=SC2086
"$DNNBENCH" run --config bench/recipes/overhead-rn50.toml "${graph_args[@]}" -q ${EXTRA:-} -o "$OUT_DIR/$LABEL.json" \
  > "$OUT_DIR/$LABEL.log" 2>&1
rc=$?
end=$(date +%s.%N)
python3 - "$OUT_DIR/$LABEL.json" "$start" "$end" "$rc" "$LABEL" <<'PY'
import json, sys
path, start, end, rc, label = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5]
doc = json.load(open(path))
wall = end - start
rows = [r for g in doc["graphs"] for r in g["results"]]
timed_rows = [r for r in rows if r.get("timing")]
# Time inside timed regions; older binaries wrote it as elapsed_ms (before issue 12).
timed = sum(r["timing"].get("timed_ms", r["timing"]["elapsed_ms"]) for r in timed_rows) / 1e3
# From the rows' stages where they have them: timing.warmup_ms holds the steady warm-up samples
# that the measurement reused (in its timed regions and its `measure` stage), and timing.wall_ms
# leaves them out; the stages count each second once.
def stage_sum(name, fallback):
    if all("stage_ms" in r for r in timed_rows):
        return sum(r["stage_ms"].get(name, 0) for r in timed_rows) / 1e3
    return sum(fallback(r) for r in timed_rows) / 1e3
warm = stage_sum("warm-up", lambda r: r["timing"]["warmup_ms"])
sampling = stage_sum("measure", lambda r: r["timing"]["wall_ms"])
build = sum(r.get("cpu_build_time_ms") or 0 for r in rows) / 1e3
row_time = [r.get("row_time_ms") for r in rows if r.get("row_time_ms") is not None]
in_rows = sum(row_time) / 1e3 if row_time else float("nan")
print(f"overhead ({label}): {len(doc['graphs'])} graphs, {len(rows)} rows ({len(timed_rows)} timed), exit {rc}")
print(f"  wall {wall:.1f} s, timed regions {timed:.1f} s, wall/timed {wall / timed if timed else float('nan'):.2f}x, "
      f"{60 * len(rows) / wall:.1f} rows/min ({60 * len(timed_rows) / wall:.1f} timed rows/min)")
print(f"  sampling loops {sampling:.1f} s (timed {timed:.1f} + host waits {sampling - timed:.1f}), warm-up {warm:.1f} s "
      f"(net of the samples the measurement reused), "
      f"builds {build:.1f} s")
if row_time:
    print(f"  inside rows {in_rows:.1f} s (of which other than build/warm-up/sampling: {in_rows - build - warm - sampling:.1f} s: "
          f"heuristic, bind, checked run, reference, re-check), outside rows {wall - in_rows:.1f} s "
          f"(process and library start, enumeration, fills, children)")
stages = {}
for r in rows:
    for k, v in (r.get("stage_ms") or {}).items():
        stages[k] = stages.get(k, 0) + v / 1e3
if stages:
    print("  per row stage (s): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(stages.items(), key=lambda kv: -kv[1])))
gstages = {}
for g in doc["graphs"]:
    for k, v in (g.get("stage_ms") or {}).items():
        gstages[k] = gstages.get(k, 0) + v / 1e3
if gstages:
    rest = wall - in_rows - sum(gstages.values()) if row_time else float("nan")
    print("  per graph stage (s): " + ", ".join(f"{k} {v:.1f}" for k, v in sorted(gstages.items(), key=lambda kv: -kv[1]))
          + f"; the rest outside rows {rest:.1f} s (process and child start, loading, results)")
meta = doc.get("metadata") or {}
if meta.get("isolation"):
    print(f"  isolation: {meta['isolation']}")
idle = sum(r["timing"].get("pacing_idle_ms", 0) for r in timed_rows) / 1e3
paced = sum(1 for r in timed_rows if r["timing"].get("pacing", "off").startswith("duty"))
print(f"  pacing: {paced} of {len(timed_rows)} rows paced, {idle:.1f} s idle "
      f"(wall/timed without it {(wall - idle) / timed if timed else float('nan'):.2f}x)")
stops = {}
for r in timed_rows:
    stops[r["timing"].get("stop_reason", "?")] = stops.get(r["timing"].get("stop_reason", "?"), 0) + 1
print(f"  stop reasons {stops}; methods {sorted({r['timing']['method'].split('(')[0] for r in timed_rows})}")
PY
