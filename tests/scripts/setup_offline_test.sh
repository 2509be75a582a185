#!/usr/bin/env bash
# scripts/setup without a registry (DNNBENCH_DEBS): a missing package found in the folder is
# unpacked into .deps/ (never installed), a missing optional one is named with what its absence
# costs, and a missing required one that the folder lacks stops it, naming the package. Runs a
# copy of the script in a temporary checkout so that the real .deps/ and packages.txt are untouched.
set -euo pipefail
source_dir=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/scripts" "$tmp/debs" "$tmp/pkg/DEBIAN" "$tmp/pkg/usr/include"
cp "$source_dir/scripts/setup" "$tmp/scripts/setup"
printf 'Package: dnnbench-fake-dev\nVersion: 1.0\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n' \
  > "$tmp/pkg/DEBIAN/control"
echo "// fake" > "$tmp/pkg/usr/include/dnnbench_fake.h"
dpkg-deb --build "$tmp/pkg" "$tmp/debs/dnnbench-fake-dev_1.0_all.deb" >/dev/null
fail() { echo "FAIL: $*"; exit 1; }

# 1. Found in the folder: unpacked; an optional package (chromium, when absent here) is named.
printf 'dnnbench-fake-dev   # a header\nchromium\n' > "$tmp/scripts/packages.txt"
out=$(cd /tmp && PATH="/usr/bin:/bin" DNNBENCH_DEBS="$tmp/debs" "$tmp/scripts/setup" 2>&1) || fail "exit $?: $out"
[ -f "$tmp/.deps/usr/include/dnnbench_fake.h" ] || fail "not unpacked into .deps/: $out"
grep -q "unpacked from .*: dnnbench-fake-dev" <<<"$out" || fail "unpacking not reported: $out"
if ! command -v chromium >/dev/null; then
  grep -q "not available here: chromium (without it: the HTML report's rendering test)" <<<"$out" || fail "$out"
fi

# 2. A required package neither installed nor in the folder: exit 1, named.
printf 'dnnbench-fake-dev\ndnnbench-absent-dev\n' > "$tmp/scripts/packages.txt"
if out=$(DNNBENCH_DEBS="$tmp/debs" "$tmp/scripts/setup" 2>&1); then fail "exit 0 with a required package missing: $out"; fi
grep -q "missing and not in .*: dnnbench-absent-dev" <<<"$out" || fail "the missing package is not named: $out"

# 3. A folder that does not exist: one clear line, exit 1.
if out=$(DNNBENCH_DEBS="$tmp/nowhere" "$tmp/scripts/setup" 2>&1); then fail "exit 0 without the folder"; fi
grep -q "DNNBENCH_DEBS=$tmp/nowhere: no such folder" <<<"$out" || fail "$out"
echo "setup offline: ok"
