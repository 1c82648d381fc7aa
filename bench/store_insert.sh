#!/usr/bin/env bash
# Insert rate of the results store: builds an optimised, sanitizer-free
# vantage in build-bench/, then stores SAMPLES (default 1,000,000) synthetic
# samples in batches of 1000 into a fresh temporary store and prints samples/s.
# The target is >= 300,000 samples/s. Not a test.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
samples=${1:-1000000}
bdir="$src/build-bench"
cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DVANTAGE_TESTS=OFF >/dev/null
cmake --build "$bdir" -j2 --target vantage >/dev/null
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_cc "$src" "$bdir" "$src/bench/store_insert.c" "$bdir/store_insert"
tmp=$(mktemp -d /tmp/vantage-bench-store-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$bdir/store_insert" "$tmp" "$samples" 1000 3
bench_size "$tmp/results.db"
