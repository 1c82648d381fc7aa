#!/usr/bin/env bash
# bench/pipeline.sh: throughput of the sample pipeline, end to end.
#
# A coordinator and AGENTS local agents (separate processes, CURVE over
# tcp://127.0.0.1, spools fsync'd as in production) run the null workload,
# which emits samples as fast as the pipeline takes them. Prints:
#   - samples/s stored end to end (first sample taken -> last one committed),
#   - the coordinator's peak RSS, for three campaign sizes (it must not grow
#     with the number of samples),
#   - agent CPU time per sample.
# Not a test: numbers depend on the machine. Uses an optimised build in
# build-bench/ unless VANTAGE points at a binary.
#
#   bench/pipeline.sh [SAMPLES_PER_AGENT (500000)] [AGENTS (4)] [BATCH (1000)]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
per_agent=${1:-500000}
nagents=${2:-4}
batch=${3:-1000}

if [ -z "${VANTAGE:-}" ]; then
  cmake -S "$here" -B "$here/build-bench" -DCMAKE_BUILD_TYPE=Release -DVANTAGE_TESTS=OFF >/dev/null
  cmake --build "$here/build-bench" -j2 --target vantage >/dev/null
  VANTAGE=$here/build-bench/vantage
fi
work=$(mktemp -d /tmp/vantage-bench-XXXXXX)
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
keys=$work/keys
mkdir -p "$keys/agents" "$keys/allow"
"$VANTAGE" keygen "$keys" --name coordinator >/dev/null
agents=()
for i in $(seq 1 "$nagents"); do
  agents+=("b$i")
  "$VANTAGE" keygen "$keys/agents" --name "b$i" >/dev/null
  cp "$keys/agents/b$i.key" "$keys/allow/"
done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')

run() { # run COUNT TAG -> prints "samples seconds coord_rss_kb agent_cpu_s"
  local count=$1 tag=$2 out=$work/out-$2 cfg=$work/$2.cfg
  local list
  list=$(printf '{ name = "%s"; },' "${agents[@]}")
  cat >"$cfg" <<EOF
name = "bench-$tag";
start_lead = "100ms";
agents = ( ${list%,} );
jobs = ( { name = "null"; kind = "null"; count = $count; schedule = "parallel"; } );
EOF
  /usr/bin/time -f "%M %U %S" -o "$work/coord-$tag.rss" "$VANTAGE" coordinator "$cfg" \
    --bind "tcp://127.0.0.1:$port" --out "$out" --keys "$keys" --progress log --log warn --no-report \
    >/dev/null 2>"$work/coord-$tag.log" &
  local cpid=$! pids=()
  for a in "${agents[@]}"; do
    "$VANTAGE" agent \
      --connect "tcp://127.0.0.1:$port" --name "$a" --keys "$keys/agents" \
      --coordinator-key "$keys/coordinator.key" --spool "$work/spool-$tag" --batch "$batch" ${AGENT_OPTS:-} \
      --log warn 2>"$work/agent-$tag-$a.log" &
    pids+=($!)
  done
  if ! wait $cpid; then
    echo "coordinator failed:" >&2; tail -20 "$work/coord-$tag.log" >&2; exit 1
  fi
  local end_ns ticks=0 p
  end_ns=$(date +%s%N)
  # Agents' CPU (utime + stime, fields 14 and 15) before they are stopped.
  for p in "${pids[@]}"; do
    ticks=$((ticks + $(awk '{print $14 + $15}' "/proc/$p/stat")))
  done
  kill -TERM "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
  local n t0
  read -r n t0 < <(sqlite3 -separator ' ' "$out/results.db" "SELECT count(*), min(start_ns) FROM samples")
  local cpu rss ccpu
  cpu=$(awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", t / hz}')
  read -r rss ccpu < <(awk '{printf "%d %.2f\n", $1, $2 + $3}' "$work/coord-$tag.rss")
  echo "$n $(awk -v a="$end_ns" -v b="$t0" 'BEGIN {printf "%.3f", (a-b)/1e9}') $rss $cpu $ccpu"
}

echo "vantage pipeline bench: $nagents agents, null workload, batch $batch, spool fsync on"
read -r n1 s1 rss1 cpu1 ccpu1 < <(run $((per_agent / 4)) small)
read -r n2 s2 rss2 cpu2 ccpu2 < <(run "$per_agent" large)
read -r n3 s3 rss3 cpu3 ccpu3 < <(run $((per_agent * 3)) huge)
awk -v n="$n2" -v s="$s2" -v cpu="$cpu2" -v ccpu="$ccpu2" -v rss1="$rss1" -v rss2="$rss2" -v n1="$n1" \
    -v rss3="$rss3" -v n3="$n3" -v s3="$s3" '
BEGIN {
  printf "samples stored:            %d in %.2f s\n", n, s
  printf "stored end to end:         %.0f samples/s\n", n / s
  printf "stored end to end (%dx):   %.0f samples/s\n", n3 / n, n3 / s3
  printf "coordinator peak RSS:      %.1f MiB at %d samples, %.1f MiB at %d, %.1f MiB at %d\n", rss1/1024, n1, rss2/1024, n, rss3/1024, n3
  printf "                           (bounded: SQLite page cache 64 MiB, at most 32 batches in flight per agent)\n"
  printf "agent CPU per sample:      %.2f us (user+system, all agents)\n", cpu / n * 1e6
  printf "coordinator CPU per sample: %.2f us\n", ccpu / n * 1e6
}'
