#!/usr/bin/env bash
# netns.sh: give an emulated vantage point its own network namespace and address.
#
#   netns.sh add N [NAME]     namespace NAME (default vantage-vpN) with a veth pair
#                             host 10.200.N.1/30 <-> namespace 10.200.N.2/30
#   netns.sh del N [NAME]     remove them (the namespace's veth end goes with it)
#   netns.sh exec N [NAME] -- CMD...   run CMD inside the namespace
#   netns.sh addr N           print "HOST_ADDR NS_ADDR" (10.200.N.1 10.200.N.2)
#
# Optional: the loopback form (linkemu on distinct 127.0.0.1 ports) needs none of
# this. With a namespace, run linkemu on the host listening on 10.200.N.1:PORT
# (upstream 127.0.0.1:7480 for RGW, etc.) and the agent inside the namespace
# with its endpoint at http://10.200.N.1:PORT: the agent then has its own
# address and cannot reach anything but the host side of its veth, so every
# byte it exchanges crosses the emulated link. The coordinator is reached the
# same way (bind it on 10.200.N.1 or 0.0.0.0, or put another linkemu pair in
# front of it).
#
# Needs root (or CAP_NET_ADMIN) and `ip` (iproute2). Everything it creates is
# named after N, and `del` removes exactly that; nothing else is touched.
set -euo pipefail

die() { echo "netns.sh: $*" >&2; exit 1; }
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }

[[ $# -ge 1 ]] || { usage; exit 2; }
cmd=$1; shift
case "$cmd" in -h|--help|help) usage; exit 0 ;; esac
[[ $# -ge 1 ]] || die "$cmd: needs N (1..254)"
n=$1; shift
[[ "$n" =~ ^[0-9]+$ ]] && (( n >= 1 && n <= 254 )) || die "N must be 1..254, got '$n'"
name="vantage-vp$n"
if [[ $# -ge 1 && "$1" != "--" ]]; then name=$1; shift; fi
[[ "$name" =~ ^[A-Za-z0-9_.-]{1,32}$ ]] || die "bad namespace name '$name'"
host_if="vp${n}h"
ns_if="vp${n}n"
host_addr="10.200.$n.1"
ns_addr="10.200.$n.2"

need_ip() {
    command -v ip >/dev/null || die "ip (iproute2) not found: apt-get install iproute2"
}

case "$cmd" in
add)
    need_ip
    ip netns list | grep -qw "^$name" && die "namespace $name exists (netns.sh del $n $name first)"
    ip link show "$host_if" >/dev/null 2>&1 && die "interface $host_if exists (netns.sh del $n)"
    ip netns add "$name" || die "cannot create namespace $name (root or CAP_NET_ADMIN needed)"
    # from here on, a failure removes what was made
    trap 'ip link del "$host_if" 2>/dev/null || true; ip netns del "$name" 2>/dev/null || true' ERR
    ip link add "$host_if" type veth peer name "$ns_if"
    ip link set "$ns_if" netns "$name"
    ip addr add "$host_addr/30" dev "$host_if"
    ip link set "$host_if" up
    ip -n "$name" addr add "$ns_addr/30" dev "$ns_if"
    ip -n "$name" link set "$ns_if" up
    ip -n "$name" link set lo up
    ip -n "$name" route add default via "$host_addr"
    trap - ERR
    echo "namespace $name: $ns_addr (dev $ns_if) <-> host $host_addr (dev $host_if)"
    ;;
del)
    need_ip
    ip link del "$host_if" 2>/dev/null || true
    if ip netns list | grep -qw "^$name"; then ip netns del "$name"; fi
    ;;
exec)
    need_ip
    [[ $# -ge 1 && "$1" == "--" ]] && shift
    [[ $# -ge 1 ]] || die "exec: needs a command"
    exec ip netns exec "$name" "$@"
    ;;
addr)
    echo "$host_addr $ns_addr"
    ;;
*)
    usage
    exit 2
    ;;
esac
