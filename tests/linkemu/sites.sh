#!/usr/bin/env bash
# sites.sh: the demo's three emulated vantage points, one linkemu each.
#
#   sites.sh start [SITE...]     start ec2, fiber, mobile (default: all); idempotent
#   sites.sh stop [SITE...]      stop them
#   sites.sh status [SITE...]    each emulator's status line
#   sites.sh env SITE            the agent's endpoints: export lines for the shell
#   sites.sh drop SITE SECONDS [reset|stall]   drop one site's link, back after SECONDS
#   sites.sh ports SITE          the listen ports, in LINKEMU_UPSTREAMS order
#   sites.sh exec SITE -- CMD... run CMD as that site's agent (inside its namespace
#                                in the namespace form)
#
# Loopback form: site k (ec2 = 1, fiber = 2, mobile = 3) listens on
# 127.0.0.1:BASE+10k+j for upstream j of LINKEMU_UPSTREAMS. With the defaults:
#   ec2    17410 -> RGW 7480, 17411 -> AIS proxy 51080, 17412 -> AIS target 51081
#   fiber  17420 ...          mobile 17430 ...
# All connections of one site share its link (profiles/SITE.cfg), as one access
# line does. AIS redirects name the target's real address and so bypass the
# emulator in this form; use netns.sh and linkemu --netns for AIS object ops.
#
# Namespace form (LINKEMU_NETNS=1, needs root): each site gets its own network
# namespace (netns.sh, vantage-vpN with N = LINKEMU_NETNS_BASE + k) and its
# emulator listens inside it on the upstreams' own addresses (127.0.0.1:7480
# ...), so the agent, run with `sites.sh exec SITE -- ...`, uses the usual
# endpoints and every byte it sends, AIS redirects included, crosses its link.
#
# Environment: LINKEMU (binary; default <repo>/build/tests/linkemu),
# LINKEMU_UPSTREAMS (default "127.0.0.1:7480 127.0.0.1:51080 127.0.0.1:51081"),
# LINKEMU_BASE_PORT (default 17400), LINKEMU_STATE (pid, log, control socket;
# default /tmp/vantage-linkemu).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
bin=${LINKEMU:-$repo/build/tests/linkemu}
upstreams=(${LINKEMU_UPSTREAMS:-127.0.0.1:7480 127.0.0.1:51080 127.0.0.1:51081})
base=${LINKEMU_BASE_PORT:-17400}
state=${LINKEMU_STATE:-/tmp/vantage-linkemu}
all_sites=(ec2 fiber mobile)
netns=${LINKEMU_NETNS:-0}
nsbase=${LINKEMU_NETNS_BASE:-0}

die() { echo "sites.sh: $*" >&2; exit 1; }
usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; }

site_index() {
    case "$1" in ec2) echo 1 ;; fiber) echo 2 ;; mobile) echo 3 ;;
        *) die "unknown site '$1' (ec2, fiber, mobile)" ;; esac
}

ns_n() { echo $((nsbase + $(site_index "$1"))); }

# In the namespace form a listener takes its upstream's own port.
port_of() {
    if [[ "$netns" == 1 ]]; then local up=${upstreams[$2]}; echo "${up##*:}"
    else echo $((base + 10 * $(site_index "$1") + $2)); fi
}

alive() {
    local pid
    [[ -f "$state/$1.pid" ]] && pid=$(cat "$state/$1.pid") && kill -0 "$pid" 2>/dev/null
}

start_site() {
    local s=$1 args=() j=0
    if alive "$s"; then echo "$s: running ($(cat "$state/$s.ready" 2>/dev/null))"; return; fi
    [[ -x "$bin" ]] || die "linkemu not built at $bin (cmake --build build, or set LINKEMU)"
    for up in "${upstreams[@]}"; do
        args+=(--listen "127.0.0.1:$(port_of "$s" $j)" --upstream "$up")
        j=$((j + 1))
    done
    rm -f "$state/$s.netns"
    if [[ "$netns" == 1 ]]; then
        "$here/netns.sh" del "$(ns_n "$s")" >/dev/null 2>&1 || true
        "$here/netns.sh" add "$(ns_n "$s")" >/dev/null
        echo "$(ns_n "$s")" >"$state/$s.netns"
        args+=(--netns "vantage-vp$(ns_n "$s")")
    fi
    rm -f "$state/$s.ready"
    "$bin" "${args[@]}" --profile "$here/profiles/$s.cfg" --control "$state/$s.sock" \
        --ready-file "$state/$s.ready" >/dev/null 2>"$state/$s.log" &
    echo $! >"$state/$s.pid"
    # the ready file appears once every listener is bound; a dead process ends the wait
    for _ in $(seq 100); do
        [[ -f "$state/$s.ready" ]] && { echo "$s: $(cat "$state/$s.ready")"; return; }
        alive "$s" || die "$s: linkemu exited: $(tail -3 "$state/$s.log")"
        sleep 0.1
    done
    die "$s: linkemu not ready after 10 s (see $state/$s.log)"
}

stop_site() {
    local s=$1
    if alive "$s"; then
        kill "$(cat "$state/$s.pid")"
        echo "$s: stopped"
    fi
    rm -f "$state/$s.pid"
    if [[ -f "$state/$s.netns" ]]; then
        "$here/netns.sh" del "$(cat "$state/$s.netns")" >/dev/null 2>&1 || true
        rm -f "$state/$s.netns"
    fi
}

[[ $# -ge 1 ]] || { usage; exit 2; }
cmd=$1; shift
mkdir -p "$state"
sites=("$@")
case "$cmd" in
start|stop|status) [[ ${#sites[@]} -gt 0 ]] || sites=("${all_sites[@]}") ;;
esac
case "$cmd" in
start) for s in "${sites[@]}"; do site_index "$s" >/dev/null; start_site "$s"; done ;;
stop) for s in "${sites[@]}"; do site_index "$s" >/dev/null; stop_site "$s"; done ;;
status)
    for s in "${sites[@]}"; do
        if alive "$s"; then echo "$s: $("$bin" --ctl "$state/$s.sock" status)"; else echo "$s: not running"; fi
    done ;;
env)
    [[ ${#sites[@]} -eq 1 ]] || die "env SITE"
    echo "export AWS_ENDPOINT_URL=http://127.0.0.1:$(port_of "${sites[0]}" 0)"
    [[ ${#upstreams[@]} -ge 2 ]] && echo "export AIS_ENDPOINT=http://127.0.0.1:$(port_of "${sites[0]}" 1)"
    ;;
ports)
    [[ ${#sites[@]} -eq 1 ]] || die "ports SITE"
    for j in "${!upstreams[@]}"; do printf '%s ' "$(port_of "${sites[0]}" "$j")"; done; echo ;;
drop)
    [[ ${#sites[@]} -ge 2 ]] || die "drop SITE SECONDS [reset|stall]"
    alive "${sites[0]}" || die "${sites[0]}: not running (sites.sh start ${sites[0]})"
    "$bin" --ctl "$state/${sites[0]}.sock" down "${sites[2]:-reset}" "${sites[1]}" ;;
exec)
    [[ ${#sites[@]} -ge 3 && "${sites[1]}" == "--" ]] || die "exec SITE -- CMD..."
    site_index "${sites[0]}" >/dev/null
    if [[ -f "$state/${sites[0]}.netns" ]]; then
        exec "$here/netns.sh" exec "$(cat "$state/${sites[0]}.netns")" -- "${sites[@]:2}"
    fi
    exec "${sites[@]:2}" ;;
-h|--help|help) usage ;;
*) usage; exit 2 ;;
esac
