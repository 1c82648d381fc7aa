#!/usr/bin/env bash
# servers.sh: the local servers vantage's integration tests and demo talk to,
# started once per test run: Ceph RGW (tests/rgw.sh) and, when present, the
# AIS emulator in front of it (tests/ais_emulator/).
#   tests/servers.sh start|stop|status|env
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

ais() { [ -x "$here/ais_emulator/ctl.sh" ] && "$here/ais_emulator/ctl.sh" "$@"; }

case ${1:-} in
  start) "$here/rgw.sh" start; ais start || [ ! -x "$here/ais_emulator/ctl.sh" ] ;;
  stop) ais stop || true; "$here/rgw.sh" stop ;;
  status) "$here/rgw.sh" status && { [ ! -x "$here/ais_emulator/ctl.sh" ] || ais status; } ;;
  env) "$here/rgw.sh" env; if [ -x "$here/ais_emulator/ctl.sh" ]; then ais env; fi ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
