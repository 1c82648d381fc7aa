#!/usr/bin/env bash
# `vantage agent --calibrate`: measures this host's timer and per-request floor
# against an in-process null server and prints them; bad counts are refused.
set -euo pipefail
out=$("$VANTAGE" agent --calibrate --calibrate-count 200)
echo "$out"
fail() { echo "FAIL: $*" >&2; exit 1; }
grep -Eq '^  resolution \(clock_getres\) +[1-9][0-9]* ns$' <<<"$out" || fail "no timer resolution"
grep -Eq '^  cost of one reading +[1-9][0-9]* ns$' <<<"$out" || fail "no timer cost"
for kind in "signed S3 HEAD" "bare HTTP GET" "signed S3 GET, 8 at once"; do
  line=$(grep -F "$kind" <<<"$out") || fail "no $kind line"
  grep -Eq 'p50 +[0-9]+\.[0-9] us .*\(n=200\)$' <<<"$line" || fail "$kind: $line"
  p50=$(sed -E 's/.*p50 +([0-9.]+) us.*/\1/' <<<"$line")
  awk -v v="$p50" 'BEGIN { exit !(v > 0 && v < 100000) }' || fail "$kind p50 $p50 us out of range"
done
grep -Eq '^  agent CPU per request +[0-9]+\.[0-9] us$' <<<"$out" || fail "no CPU per request"
if "$VANTAGE" agent --calibrate --calibrate-count 0 2>/dev/null; then fail "count 0 accepted"; fi
if "$VANTAGE" agent --calibrate --calibrate-count x 2>/dev/null; then fail "count x accepted"; fi
echo "1 passed, 0 failed"
