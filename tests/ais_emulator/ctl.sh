#!/usr/bin/env bash
# ctl.sh: the AIS emulator (tests/ais_emulator/aisemu.py) as a background service
# for vantage's tests and demo. It is an emulator of AIStore's HTTP API backed by
# the local Ceph RGW, not AIStore.
#
#   tests/ais_emulator/ctl.sh start    start if not running, wait until /v1/health answers
#   tests/ais_emulator/ctl.sh stop     stop the process started by `start` (by PID)
#   tests/ais_emulator/ctl.sh status   exit 0 when our process runs and answers
#   tests/ais_emulator/ctl.sh env      print the AIS_ENDPOINT for clients
#
# Settings (environment): VANTAGE_AISEMU_DIR (/var/tmp/vantage-aisemu: pid file, log),
# VANTAGE_AISEMU_PORT (51080, proxy), VANTAGE_AISEMU_TARGET_PORT (51081, targets),
# VANTAGE_AISEMU_HOST (127.0.0.1), VANTAGE_AISEMU_TARGETS (3), VANTAGE_AISEMU_VERSION (5.0),
# VANTAGE_AISEMU_S3_LIST_DELAY_MS (0), VANTAGE_AISEMU_STARTUP_DELAY (0 s),
# VANTAGE_AISEMU_TIME_OFFSET_MIN (0), VANTAGE_AISEMU_ACCESS_LOG (1 = log every request).
# The S3 backend comes from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
# AWS_REGION, or from `tests/rgw.sh env` when AWS_ENDPOINT_URL is unset.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
DIR=${VANTAGE_AISEMU_DIR:-/var/tmp/vantage-aisemu}
HOST=${VANTAGE_AISEMU_HOST:-127.0.0.1}
PORT=${VANTAGE_AISEMU_PORT:-51080}
TPORT=${VANTAGE_AISEMU_TARGET_PORT:-51081}
PIDF=$DIR/aisemu.pid
LOG=$DIR/aisemu.log
PY=/usr/bin/python3

say() { printf 'aisemu: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

alive() { [ -f "$PIDF" ] && kill -0 "$(cat "$PIDF")" 2>/dev/null; }

answers() {
  "$PY" - "$HOST" "$PORT" <<'EOF'
import http.client, sys
try:
    c = http.client.HTTPConnection(sys.argv[1], int(sys.argv[2]), timeout=2)
    c.request("GET", "/v1/health")
    sys.exit(0 if c.getresponse().status == 200 else 1)
except OSError:
    sys.exit(1)
EOF
}

start() {
  if alive; then
    answers || die "process $(cat "$PIDF") runs but http://$HOST:$PORT/v1/health does not answer 200 (log: $LOG)"
    return 0
  fi
  if answers; then
    die "something not started from $DIR already answers on http://$HOST:$PORT; stop it, or set VANTAGE_AISEMU_PORT (and VANTAGE_AISEMU_DIR) for a second instance"
  fi
  mkdir -p "$DIR"
  if [ -z "${AWS_ENDPOINT_URL:-}" ]; then
    eval "$("$here/../rgw.sh" env)"
    export AWS_ENDPOINT_URL AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION
  fi
  say "starting on http://$HOST:$PORT (targets :$TPORT), S3 backend $AWS_ENDPOINT_URL, log $LOG"
  setsid "$PY" "$here/aisemu.py" --host "$HOST" --port "$PORT" --target-port "$TPORT" \
    >>"$LOG" 2>&1 </dev/null &
  local pid=$!
  echo "$pid" >"$PIDF"
  local end=$((SECONDS + ${VANTAGE_AISEMU_START_TIMEOUT:-30}))
  # readiness: /v1/health answers 200 (after any configured startup window)
  until answers && kill -0 "$pid" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PIDF"
      tail -n 20 "$LOG" >&2 || true
      die "emulator exited during start (log: $LOG)"
    fi
    if [ $SECONDS -ge "$end" ]; then
      tail -n 20 "$LOG" >&2 || true
      die "timed out waiting for http://$HOST:$PORT/v1/health (pid $pid still running; log: $LOG)"
    fi
    sleep 0.2
  done
  say "ready (pid $pid)"
}

stop() {
  if ! alive; then
    rm -f "$PIDF"
    return 0
  fi
  local pid
  pid=$(cat "$PIDF")
  kill "$pid"
  for _ in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$PIDF"; say "stopped (pid $pid)"; return 0; }
    sleep 0.1
  done
  say "pid $pid did not exit on SIGTERM within 5 s; sending SIGKILL"
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$PIDF"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  status) alive && answers ;;
  env) echo "export AIS_ENDPOINT=http://$HOST:$PORT" ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
