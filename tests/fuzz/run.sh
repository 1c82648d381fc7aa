#!/usr/bin/env bash
# Builds vantage's libFuzzer targets (clang, ASan + UBSan + libFuzzer) and
# runs each for a bounded time, starting from the committed seeds in
# tests/fuzz/corpus/<target>/. Fails on any crash, leak, timeout, sanitizer
# report or broken property (the targets trap on those); the input that
# failed is left in the build's artifacts directory and named in the output.
#
#   tests/fuzz/run.sh [SECONDS] [TARGET...]    default 18 s per target, all targets
#   tests/fuzz/run.sh 1800 fuzz_proto          a long run of one target
#
# Environment: VANTAGE_FUZZ_BUILD (build directory, default build-fuzz in the
# source tree), VANTAGE_FUZZ_JOBS (build parallelism, 2). New inputs the
# fuzzer finds go to BUILD/fuzz/corpus/<target>/, never into the source tree;
# to keep the good ones as seeds, merge them (see tests/fuzz/README.md).
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-18}
shift || true
case $secs in ''|*[!0-9]*) echo "run.sh: SECONDS must be a whole number, not '$secs'" >&2; exit 2 ;; esac
bdir=${VANTAGE_FUZZ_BUILD:-$src/build-fuzz}
command -v clang >/dev/null || { echo "run.sh: clang not found: apt-get install clang libclang-rt-14-dev" >&2; exit 2; }

echo "fuzz: building in $bdir" >&2
mkdir -p "$bdir"
CC=clang cmake -S "$src" -B "$bdir" -DVANTAGE_FUZZ=ON -DVANTAGE_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$bdir/cmake.log" 2>&1 ||
  { cat "$bdir/cmake.log" >&2; exit 1; }
cmake --build "$bdir" -j"${VANTAGE_FUZZ_JOBS:-2}" >"$bdir/build.log" 2>&1 ||
  { grep -E "error|Error" "$bdir/build.log" >&2; exit 1; }

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$src"/tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/tests/fuzz/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=()
for t in "${targets[@]}"; do
  bin=$bdir/fuzz/$t
  [ -x "$bin" ] || { echo "fuzz: no target $t (tests/fuzz/$t.c)" >&2; failed+=("$t"); continue; }
  seeds=$src/tests/fuzz/corpus/$t
  work=$bdir/fuzz/corpus/$t
  art=$bdir/fuzz/artifacts/$t
  log=$bdir/fuzz/$t.log
  mkdir -p "$work" "$art" "$seeds"
  # -timeout: one input taking over 10 s is a hang; -rss_limit_mb: a parser
  # that lets the input decide how much it allocates is a finding too.
  if "$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 -max_len=65536 \
      -print_final_stats=1 -artifact_prefix="$art/" "$work" "$seeds" >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1)
    printf 'fuzz: %-18s ok   %8s runs in %ss, %s\n' "$t" "${execs:-?}" "$secs" "${cov:-cov: ?}"
  else
    printf 'fuzz: %-18s FAILED (log %s)\n' "$t" "$log"
    # (vantage's own log lines, "ERROR [spool] ...", are expected noise)
    grep -E 'ERROR|SUMMARY|runtime error|Test unit written|deadly signal|^    #[0-9] ' "$log" |
      grep -Ev ' (ERROR|WARN) +\[' | head -30 | sed 's/^/  /'
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}; reproduce with: $bdir/fuzz/TARGET ARTIFACT" >&2
  exit 1
fi
