#!/usr/bin/env bash
# Issue 13 check on the GPU machine, in one device call: builds dnnbench and the gpu tests, then
# runs `ctest -L gpu` and the smoke over graphs/samples on the cudnn provider side by side (both
# are correctness checks; their timings are not results), each under a time limit so that the
# summary always comes back.
#
#   bench/issue13-final.sh OUT_DIR      (device tool: carry .debs; OUT_DIR=$OUT)
#
# Smoke settings: --warmup 1 --warmup-max-ms 0 --iters 2 --batch 1 --no-kernel-activity
# --isolate none (gpu-run.sh's smoke uses --warmup 2 --iters 10 in child processes; the counts
# of passed / skipped / failed rows do not depend on the sample count).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:-${OUT:-out/issue13}}
PREFIX=/tmp/dnnbench-prefix
BUILD=/tmp/h13b-build
LIMIT=${FINAL_LIMIT_S:-50}
mkdir -p "$OUT_DIR/final" "$PREFIX"
for f in .debs/*.deb; do dpkg -x "$f" "$PREFIX"; done
for pair in libnettle8:libnettle.so.8 libxml2:libxml2.so.2 libicu72:libicuuc.so.72; do
  pkg=${pair%%:*} soname=${pair#*:}
  ldconfig -p | grep -q "$soname" || for f in .debs/fallback/${pkg}_*.deb; do dpkg -x "$f" "$PREFIX"; done
done
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
t0=$(date +%s)
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDNNBENCH_WERROR=ON -DDNNBENCH_WITH_CUDNN=ON \
  -DDNNBENCH_WITH_ONEDNN=OFF -DCMAKE_PREFIX_PATH="$PREFIX/usr" > "$OUT_DIR/final/configure.log" 2>&1
cmake --build "$BUILD" --target dnnbench dnnbench_gpu_tests -j "$(nproc)" -- -k 0 > "$OUT_DIR/final/build.log" 2>&1 || {
  grep -E "error" -A3 "$OUT_DIR/final/build.log" | head -30; echo "final: build failed"; }
echo "final: built in $(( $(date +%s) - t0 )) s (warnings: $(grep -c 'warning:' "$OUT_DIR/final/build.log"))"
"$BUILD/dnnbench" list-providers 2>&1 | grep -i cudnn | head -2
( cd "$BUILD" && timeout "$LIMIT" ctest -L gpu --output-on-failure --timeout "$LIMIT" \
    > "$OUT_DIR/final/ctest-gpu.log" 2>&1; echo "ctest rc=$?" >> "$OUT_DIR/final/ctest-gpu.log" ) &
timeout "$LIMIT" "$BUILD/dnnbench" run -g graphs/samples --provider cudnn --warmup 1 --warmup-max-ms 0 --iters 2 \
  --batch 1 --no-kernel-activity --isolate none -o "$OUT_DIR/final/smoke.json" > "$OUT_DIR/final/smoke.log" 2>&1
echo "final: smoke exit code $? ($(( $(date +%s) - t0 )) s)"
wait
grep -E "tests passed|Failed|\*\*\*|Total Test|ctest rc" "$OUT_DIR/final/ctest-gpu.log" | tail -20
python3 - "$OUT_DIR/final/smoke.json.journal.jsonl" <<'PY'
# The journal (one line per finished row) holds every row even when the smoke was cut short.
import json, sys, collections
rows = []
for line in open(sys.argv[1]):
    d = json.loads(line)
    if "row" in d: rows.append((d["graph_path"].split("/")[-1][:-5], d["row"]))
count, best = collections.Counter(), {}
for g, r in rows:
    st = r.get("status")
    key = st if st != "success" else ("passed" if r.get("passed") else "failed")
    count[key] += 1
    if best.get(g) != "passed": best[g] = key
    if key not in ("passed", "skipped"):
        print("  NOT OK %s %s %s %s" % (g, r.get("engine_id"), key, (r.get("error_message") or "")[:200]))
print("smoke rows %d: %s" % (len(rows), dict(count)))
nopass = sorted(g for g, v in best.items() if v != "passed")
print("graphs %d, without a passing row %d: %s" % (len(best), len(nopass), " ".join(nopass)))
PY
tail -12 "$OUT_DIR/final/smoke.log"
tar czf "$OUT_DIR/final.tgz" -C "$OUT_DIR" final && rm -rf "$OUT_DIR/final"
echo "final: done in $(( $(date +%s) - t0 )) s"
