#!/usr/bin/env bash
# rgw.sh: a single-node Ceph RADOS Gateway on 127.0.0.1 for vantage's tests
# and demo. One data directory holds the whole cluster (config, BlueStore file,
# logs, pids), so data survives restarts and `stop` kills exactly what `start`
# started.
#
#   tests/rgw.sh start    install if missing, start if not running, create user and bucket, wait
#   tests/rgw.sh stop     stop gateway, OSD, monitor by PID (reverse order)
#   tests/rgw.sh status   exit 0 when the gateway answers
#   tests/rgw.sh env      print the shell variables that point an S3 client at it
#   tests/rgw.sh wipe     stop and delete the data directory
#
# Settings (environment): VANTAGE_RGW_DIR (/var/tmp/vantage-rgw), VANTAGE_RGW_PORT (7480),
# VANTAGE_RGW_MON_PORT (3300; v1 port is +3489), VANTAGE_RGW_BUCKET (vantage-test).
set -euo pipefail

DIR=${VANTAGE_RGW_DIR:-/var/tmp/vantage-rgw}
PORT=${VANTAGE_RGW_PORT:-7480}
MON2=${VANTAGE_RGW_MON_PORT:-3300}
MON1=$((MON2 + 3489))
BUCKET=${VANTAGE_RGW_BUCKET:-vantage-test}
RGW_USER=vantage
# Test-only keys for a loopback server; not secrets of anything real.
ACCESS_KEY=VANTAGETESTACCESSKEY
SECRET_KEY=vantageTestSecretKey0123456789abcdefghij
CONF=$DIR/ceph.conf
CEPH=(ceph -c "$CONF" --connect-timeout 10)

say() { printf 'rgw: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

install_if_missing() {
  local need=()
  for cmd in ceph-mon:ceph-mon ceph-osd:ceph-osd radosgw:radosgw ceph:ceph-common uuidgen:uuid-runtime curl:curl; do
    command -v "${cmd%%:*}" >/dev/null 2>&1 || need+=("${cmd#*:}")
  done
  /usr/bin/python3 -c 'import boto3' 2>/dev/null || need+=(python3-boto3)
  if [ ${#need[@]} -gt 0 ]; then
    say "installing ${need[*]}"
    [ "$(id -u)" = 0 ] || die "need root to install ${need[*]} (apt-get install -y ${need[*]})"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${need[@]}" >/dev/null; } \
      || die "apt-get install ${need[*]} failed"
  fi
}

alive() { [ -f "$DIR/run/$1.pid" ] && kill -0 "$(cat "$DIR/run/$1.pid")" 2>/dev/null; }

gateway_answers() { curl -sf -o /dev/null --max-time 2 "http://127.0.0.1:$PORT/"; }

wait_for() { # seconds description command...
  local secs=$1 what=$2; shift 2
  local end=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    [ $SECONDS -lt $end ] || die "timed out after ${secs}s waiting for $what (logs in $DIR/log)"
    sleep 0.5
  done
}

write_conf() {
  local fsid=$1
  mkdir -p "$DIR"/{run,log,mon,osd}
  cat > "$CONF" <<CONF
[global]
fsid = $fsid
mon host = [v2:127.0.0.1:$MON2,v1:127.0.0.1:$MON1]
public addr = 127.0.0.1
cluster addr = 127.0.0.1
ms bind ipv6 = false
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
client mount timeout = 60
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
run dir = $DIR/run
log file = $DIR/log/\$name.log
pid file = $DIR/run/\$name.pid
admin socket = $DIR/run/\$name.asok
mon data = $DIR/mon/\$cluster-\$id
osd data = $DIR/osd/\$cluster-\$id
keyring = /dev/null

[osd]
osd objectstore = bluestore
bluestore block create = true
bluestore block size = 21474836480
osd max object name len = 256
osd max object namespace len = 64

[client.rgw.vantage]
rgw frontends = beast endpoint=127.0.0.1:$PORT tcp_nodelay=1
rgw dns name = localhost
rgw enable usage log = false
CONF
}

start_mon() {
  alive mon.a && return 0
  if [ ! -d "$DIR/mon/ceph-a" ]; then
    monmaptool --create --fsid "$(sed -n 's/^fsid = //p' "$CONF")" \
      --addv a "[v2:127.0.0.1:$MON2,v1:127.0.0.1:$MON1]" "$DIR/monmap" >/dev/null
    ceph-mon -c "$CONF" -i a --mkfs --monmap "$DIR/monmap" --keyring /dev/null
  fi
  ceph-mon -c "$CONF" -i a
  wait_for 60 "the monitor" "${CEPH[@]}" mon stat
}

start_osd() {
  alive osd.0 && return 0
  if [ ! -f "$DIR/osd/ceph-0/fsid" ]; then
    local uuid; uuid=$(uuidgen)
    mkdir -p "$DIR/osd/ceph-0"
    "${CEPH[@]}" osd new "$uuid" >/dev/null
    ceph-osd -c "$CONF" -i 0 --mkfs --osd-uuid "$uuid" >/dev/null 2>&1 || die "ceph-osd --mkfs failed (see $DIR/log)"
  fi
  ceph-osd -c "$CONF" -i 0
  wait_for 90 "osd.0 up" bash -c "${CEPH[*]} osd dump | grep -q '^osd.0 up'"
}

start_rgw() {
  if alive client.rgw.vantage; then wait_for 60 "the gateway" gateway_answers; return 0; fi
  radosgw -c "$CONF" -n client.rgw.vantage
  wait_for 120 "the gateway on 127.0.0.1:$PORT" gateway_answers
}

ensure_user_and_bucket() {
  if ! radosgw-admin -c "$CONF" -n client.rgw.vantage --admin-socket="" user info --uid="$RGW_USER" >/dev/null 2>&1; then
    radosgw-admin -c "$CONF" -n client.rgw.vantage --admin-socket="" user create --uid="$RGW_USER" --display-name="$RGW_USER" \
      --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >/dev/null
  fi
  AWS_ACCESS_KEY_ID=$ACCESS_KEY AWS_SECRET_ACCESS_KEY=$SECRET_KEY /usr/bin/python3 - "$PORT" "$BUCKET" <<'PY'
import sys, boto3, botocore
port, bucket = sys.argv[1], sys.argv[2]
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1")
try:
    s3.create_bucket(Bucket=bucket)
except botocore.exceptions.ClientError as e:
    if e.response["Error"]["Code"] not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
        raise
PY
}

do_start() {
  install_if_missing
  # the OSD needs its data; a stray monitor without it is restarted clean
  if [ ! -f "$CONF" ]; then write_conf "$(uuidgen)"; fi
  start_mon
  start_osd
  start_rgw
  ensure_user_and_bucket
  say "ready on http://127.0.0.1:$PORT (bucket $BUCKET, data in $DIR)"
}

stop_one() {
  local name=$1 pidf="$DIR/run/$1.pid"
  [ -f "$pidf" ] || return 0
  local pid; pid=$(cat "$pidf")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
  fi
  rm -f "$pidf"
}

do_stop() {
  stop_one client.rgw.vantage
  stop_one osd.0
  stop_one mon.a
  say "stopped"
}

case ${1:-} in
  start) do_start ;;
  stop) do_stop ;;
  status) gateway_answers ;;
  env)
    cat <<ENV
export AWS_ACCESS_KEY_ID=$ACCESS_KEY
export AWS_SECRET_ACCESS_KEY=$SECRET_KEY
export AWS_REGION=us-east-1
export AWS_ENDPOINT_URL=http://127.0.0.1:$PORT
export VANTAGE_TEST_BUCKET=$BUCKET
ENV
    ;;
  wipe) do_stop; rm -rf "$DIR" ;;
  *) echo "usage: $0 start|stop|status|env|wipe" >&2; exit 2 ;;
esac
