#!/usr/bin/env bash
# `vantage report` on a large store: builds an optimised vantage in
# build-bench/, generates a store of SAMPLES (default 10,000,000) synthetic
# samples with bench/store_insert.c (three agents, list-scale, ops and probe
# jobs) and prints the wall time and peak RSS of the text, CSV, JSON and
# HTML reports, and the HTML page's size. The target is under 10 s and under
# 1 GiB for 10 million samples, and an HTML page of a few MB.
# Not a test. Needs ~1.1 GB free in TMPDIR (default /tmp); KEEP=1 keeps the store.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
samples=${1:-10000000}
bdir="$src/build-bench"
cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DVANTAGE_TESTS=OFF >/dev/null
cmake --build "$bdir" -j2 --target vantage >/dev/null
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_cc "$src" "$bdir" "$src/bench/store_insert.c" "$bdir/store_insert"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vantage-bench-report-XXXXXX")
if [ "${KEEP:-0}" != 1 ]; then trap 'rm -rf "$tmp"' EXIT; else echo "store kept in $tmp"; fi
echo "generating $samples samples ..."
"$bdir/store_insert" "$tmp" "$samples" 1000 3
bench_size "$tmp/results.db"
for fmt in text csv json html; do
  /usr/bin/time -f "report --format $fmt: %e s wall (%U s user, %S s sys), %M KiB peak RSS" \
    "$bdir/vantage" report "$tmp" --format "$fmt" >"$tmp/report.$fmt"
done
wc -l "$tmp/report.text" | awk '{print "text report lines:", $1}'
stat -c %s "$tmp/report.html" | awk '{printf "html report: %.2f MB\n", $1 / 1e6}'
