#!/usr/bin/env bash
# demo.sh: vantage's main job on one machine. Three agents at three emulated
# vantage points (ec2, fiber, mobile: each behind its own link emulator) run
# campaigns/demo.cfg against the local Ceph RGW and the AIS emulator, over
# CURVE to a coordinator, which stores every sample and writes the report.
#
#   tests/demo.sh [path-to-vantage]      (default: ./build/vantage)
#
# Settings (environment):
#   DEMO_CAMPAIGN  campaign file (default campaigns/demo.cfg)
#   DEMO_RESULTS   where runs and keys go (default ./results); each run gets
#                  DEMO_RESULTS/demo-YYYYmmdd-HHMMSS, and DEMO_RESULTS/demo-latest
#                  points at the newest. Keys, servers and objects are reused.
#   DEMO_OUT       exact output directory instead (an existing one is resumed)
#   DEMO_PORT      coordinator port on 127.0.0.1 (default 7600)
#   DEMO_DROP      "SITE:AFTER:SECONDS": drop that site's link AFTER seconds into
#                  the run, for SECONDS (the tests use it)
#   DEMO_NETNS     1: every agent in its own network namespace (needs root; the
#                  default when root can create one), 0: all on this host's loopback
#   LINKEMU_BASE_PORT, LINKEMU_STATE, LINKEMU_NETNS_BASE: see tests/linkemu/sites.sh
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
VANTAGE=${1:-$repo/build/vantage}
[ -x "$VANTAGE" ] || { echo "demo: no vantage binary at $VANTAGE (build first, or pass its path)" >&2; exit 2; }
VANTAGE=$(cd "$(dirname "$VANTAGE")" && pwd)/$(basename "$VANTAGE")
export LINKEMU=${LINKEMU:-$(dirname "$VANTAGE")/tests/linkemu}
[ -x "$LINKEMU" ] || { echo "demo: no link emulator at $LINKEMU (build with tests enabled)" >&2; exit 2; }

CAMPAIGN=${DEMO_CAMPAIGN:-$repo/campaigns/demo.cfg}
RESULTS=${DEMO_RESULTS:-$repo/results}
PORT=${DEMO_PORT:-7600}
SITES=(ec2 fiber mobile)
declare -A SITE_LABEL=([ec2]="EC2 same region" [fiber]="Home fiber" [mobile]="Mobile")

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "local servers: Ceph RGW on 127.0.0.1:7480 and the AIS emulator on 127.0.0.1:51080"
"$here/servers.sh" start
server_env=$("$here/servers.sh" env)

step "emulated vantage points: one link emulator per site (profiles in tests/linkemu/profiles/)"
# Everything an agent sends crosses its site's link: RGW, the AIS proxy and
# target, and the coordinator itself, as on a real mobile or fiber line.
export LINKEMU_UPSTREAMS="127.0.0.1:7480 127.0.0.1:51080 127.0.0.1:51081 127.0.0.1:$PORT"
"$here/linkemu/sites.sh" stop >/dev/null 2>&1 || true
if [ -z "${DEMO_NETNS:-}" ]; then
  # Where root allows, each agent gets its own network namespace: it then has
  # its own network stack, and even absolute URLs (AIS redirects) cross its link.
  DEMO_NETNS=0
  probe_ns=vantage-probe-$$
  if [ "$(id -u)" = 0 ] && ip netns add "$probe_ns" 2>/dev/null; then
    ip netns del "$probe_ns"
    DEMO_NETNS=1
  fi
fi
export LINKEMU_NETNS=$DEMO_NETNS
if [ "$DEMO_NETNS" = 1 ]; then
  echo "  each agent in its own network namespace, reaching everything through its link"
else
  echo "  all agents on this host's loopback, each through its own link emulator ports"
fi
"$here/linkemu/sites.sh" start
for s in "${SITES[@]}"; do
  printf '  %-7s %s\n' "$s" "$(grep -h '^#' "$here/linkemu/profiles/$s.cfg" | sed -n '1s/^# *//p')"
done

mkdir -p "$RESULTS"
RESULTS=$(cd "$RESULTS" && pwd)
keys=$RESULTS/keys
step "CURVE keys in $keys (made once, reused)"
mkdir -p "$keys/allow"
for n in coordinator "${SITES[@]}"; do
  [ -f "$keys/$n.key_secret" ] || "$VANTAGE" keygen "$keys" --name "$n" >/dev/null
done
for s in "${SITES[@]}"; do cp -f "$keys/$s.key" "$keys/allow/$s.key"; done
echo "  coordinator and ${SITES[*]}: the coordinator admits only these three agents"

if [ -n "${DEMO_OUT:-}" ]; then
  out=$DEMO_OUT
else
  out=$RESULTS/demo-$(date -u +%Y%m%d-%H%M%S)
fi
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
[ -n "${DEMO_OUT:-}" ] || ln -sfn "$(basename "$out")" "$RESULTS/demo-latest"

pids=()
stop_agents() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  pids=()
}
trap stop_agents EXIT

step "agents: one process per site, each reaching the servers through its own link"
for s in "${SITES[@]}"; do
  (
    eval "$server_env"                      # test-only RGW keys, region
    eval "$("$here/linkemu/sites.sh" env "$s")"  # this site's endpoints (through its link)
    read -r -a ports <<<"$("$here/linkemu/sites.sh" ports "$s")"
    exec "$here/linkemu/sites.sh" exec "$s" -- "$VANTAGE" agent --connect "tcp://127.0.0.1:${ports[3]}" --name "$s" --site "${SITE_LABEL[$s]}" \
      --keys "$keys" --coordinator-key "$keys/coordinator.key" \
      --spool "$RESULTS/spool" --work "$out/work-$s"
  ) >"$out/logs/agent-$s.log" 2>&1 &
  pids+=($!)
  echo "  $s (${SITE_LABEL[$s]}): pid $!, log $out/logs/agent-$s.log"
done

if [ -n "${DEMO_DROP:-}" ]; then
  IFS=: read -r drop_site drop_after drop_secs <<<"$DEMO_DROP"
  (
    # wait until the coordinator has stored samples from that agent, then drop its link
    db=$out/results.db
    end=$((SECONDS + 300))
    until [ -f "$db" ] && [ "$(sqlite3 "file:$db?mode=ro" "select count(*) from samples_v where agent='$drop_site'" 2>/dev/null || echo 0)" -gt 0 ]; do
      [ $SECONDS -lt $end ] || exit 0
      sleep 0.2
    done
    sleep "$drop_after"
    echo "demo: dropping the $drop_site link for ${drop_secs}s" >&2
    "$here/linkemu/sites.sh" drop "$drop_site" "$drop_secs" reset >&2
  ) &
fi

step "coordinator: $(basename "$CAMPAIGN") -> $out"
rc=0
"$VANTAGE" coordinator "$CAMPAIGN" --bind "tcp://127.0.0.1:$PORT" --out "$out" --keys "$keys" || rc=$?
stop_agents

"$here/linkemu/sites.sh" stop >/dev/null 2>&1 || true

step "done"
echo "results:     $out/results.db  (every sample; docs/results-schema.md)"
echo "report:      $out/report.txt"
echo "HTML report: $out/report.html   (open it in a browser)"
echo "again:       vantage report $out [--format html|csv|json]"
exit $rc
