#!/usr/bin/env bash
# `vantage ais` end to end against a private AIS emulator instance (its own
# ports and directory, so its inventories and settings touch no other test),
# fronting the local RGW. Objects go under t-aisclient/cli-<pid>/ of
# $VANTAGE_TEST_BUCKET and are deleted at the end.
set -euo pipefail
: "${VANTAGE:?run through ctest}" "${VANTAGE_SRC:?}" "${VANTAGE_TEST_BUCKET:?}"

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
export VANTAGE_AISEMU_PORT=$(free_port) VANTAGE_AISEMU_TARGET_PORT=$(free_port)
export VANTAGE_AISEMU_DIR=$(mktemp -d /tmp/vantage-aisclient-cli.XXXXXX)
ctl="$VANTAGE_SRC/tests/ais_emulator/ctl.sh"
export AIS_ENDPOINT=http://127.0.0.1:$VANTAGE_AISEMU_PORT
unset AIS_AUTHN_TOKEN
B=s3://$VANTAGE_TEST_BUCKET
P=t-aisclient/cli-$$/
work=$(mktemp -d /tmp/vantage-aisclient-cli-work.XXXXXX)

cleanup() {
  set +e
  "$VANTAGE" ais ls "$B/$P" 2>/dev/null | sed '$d' | while read -r k; do
    "$VANTAGE" ais rm "$B/$k" >/dev/null
  done
  bash "$ctl" stop
  rm -rf "$VANTAGE_AISEMU_DIR" "$work"
}
trap cleanup EXIT
bash "$ctl" start

fail() { echo "FAIL: $*" >&2; exit 1; }
# run EXPECTED_RC CMD...: stdout in $work/out, stderr in $work/err
run() {
  local want=$1; shift
  local rc=0
  "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" = "$want" ] || { cat "$work/out" "$work/err" >&2; fail "exit $rc (want $want): $*"; }
}
has() { grep -q -- "$2" "$work/$1" || { cat "$work/out" "$work/err" >&2; fail "$1 lacks '$2'"; }; }
hasnt() { ! grep -q -- "$2" "$work/$1" || fail "$1 shows '$2'"; }

echo "-- usage"
run 0 "$VANTAGE" ais --help; has out "nbi create"; has out "AIS_ENDPOINT"
run 0 "$VANTAGE" ais ls --help; has out "usage: vantage ais"
run 0 "$VANTAGE" ais nbi create --help
run 2 "$VANTAGE" ais; has err "usage"
run 2 "$VANTAGE" ais frobnicate; has err "unknown command 'frobnicate'"
run 2 "$VANTAGE" ais ls; has err "s3://BUCKET"
run 2 "$VANTAGE" ais ls my-bucket; has err "s3://"
run 2 "$VANTAGE" ais ls --page-size x "$B"; has err "integer"
run 2 "$VANTAGE" ais ls --inv-name x "$B"; has err "--inventory"
run 2 env -u AIS_ENDPOINT "$VANTAGE" ais ls "$B"; has err "AIS_ENDPOINT"

echo "-- health"
run 0 "$VANTAGE" ais health; has out "ready, version 5.0"; has out "NBI: available"

echo "-- put with aisloader names, list"
for i in $(seq 12); do
  run 0 "$VANTAGE" ais put --size 1 "$B/$P"
  awk '{print $2}' "$work/out" >>"$work/put"
done
sed "s|^$B/||" "$work/put" | LC_ALL=C sort >"$work/want"
[ "$(wc -l <"$work/want")" = 12 ] || fail "12 puts"
grep -Eq "^${P}[A-Za-z]{32}$" "$work/want" || fail "names are not PREFIX + 32 letters"
run 0 "$VANTAGE" ais ls "$B/$P"
[ "$(tail -n1 "$work/out")" = "12 objects" ] || fail "count line: $(tail -n1 "$work/out")"
sed '$d' "$work/out" | diff - "$work/want" || fail "listed names differ"
run 0 "$VANTAGE" ais ls --json --page-size 5 --timing "$B/$P"
[ "$(tail -n1 "$work/out")" = "12 objects" ] || fail "json count"
has err "op=ais-regular"; has err "page 3:"; has err "pages=3 keys=12"

echo "-- inventory"
run 0 "$VANTAGE" ais nbi create "$B/$P" --wait --poll-ms 50 --timing
has out "finished: server"; has out "12 names"; has err "op=nbi-create"
job=$(awk '{print $1}' "$work/out")
[[ $job == inv-* ]] || fail "job id '$job'"
run 0 "$VANTAGE" ais nbi show "$B"; has out "^$job"; has out "prefix=$P"; has out "names=12"
has out "1 inventories"
run 0 "$VANTAGE" ais put --size 1 "$B/$P"
run 0 "$VANTAGE" ais ls "$B/$P"; [ "$(tail -n1 "$work/out")" = "13 objects" ] || fail "13"
run 0 "$VANTAGE" ais ls --inventory "$B/$P"
[ "$(tail -n1 "$work/out")" = "12 objects" ] || fail "NBI sees the snapshot only"
sed '$d' "$work/out" | diff - "$work/want" || fail "NBI names differ"
run 0 "$VANTAGE" ais ls --inventory --inv-name "$job" --timing "$B/$P"; has err "op=ais-nbi"
run 1 "$VANTAGE" ais ls --inventory --inv-name nope "$B/$P"; has err "404"; has err "nope"
has err "127.0.0.1:$VANTAGE_AISEMU_PORT"
run 2 "$VANTAGE" ais ls --inventory --inv-name 'bad name' "$B/$P"
run 1 "$VANTAGE" ais nbi create "$B/$P"; has err "already exists"
run 0 "$VANTAGE" ais nbi show "$B/$P"; has out "^$job"; has out "1 inventories"
run 0 "$VANTAGE" ais nbi show "$B/${P}other/"; has out "0 inventories"
run 1 "$VANTAGE" ais nbi rm "$B/${P}other/"; has err "no inventory for prefix"
run 0 "$VANTAGE" ais nbi rm "$B/$P"; has out "destroyed $job"
run 0 "$VANTAGE" ais nbi show "$B"; has out "0 inventories"
run 1 "$VANTAGE" ais ls --inventory "$B/$P"; has err "no inventories"

echo "-- a creation that does not finish in time"
curl -sf -X POST -d '{"nbi_page_delay_ms": 3000}' "$AIS_ENDPOINT/emulator/config" >/dev/null
run 1 "$VANTAGE" ais nbi create "$B/$P" --force --page-size 5 --wait --poll-ms 50 --timeout-s 1 --timing
has err "has not finished after 1000 ms"; has err "job inv-"; has err "error=timeout"
curl -sf -X POST -d '{"nbi_page_delay_ms": 0}' "$AIS_ENDPOINT/emulator/config" >/dev/null
run 0 "$VANTAGE" ais nbi rm "$B"

echo "-- objects"
head -c 200000 /dev/urandom >"$work/f"
run 0 "$VANTAGE" ais put "$work/f" "$B/${P}file 1" --timing; has out "200000 bytes"; has err "sent=200000B"
run 0 "$VANTAGE" ais head "$B/${P}file 1"; has out "200000 bytes"
run 0 "$VANTAGE" ais get "$B/${P}file 1" "$work/g" --timing; has out "200000 bytes"; has err "recv=200000B"
cmp "$work/f" "$work/g" || fail "downloaded bytes differ"
run 0 "$VANTAGE" ais get "$B/${P}file 1"; has out "200000 bytes"
run 0 "$VANTAGE" ais rm "$B/${P}file 1"; has out "deleted"
run 1 "$VANTAGE" ais head "$B/${P}file 1"; has err "404"
run 1 "$VANTAGE" ais get "$B/${P}file 1" "$work/h"; has err "404"; has err "does not exist"
run 1 "$VANTAGE" ais put /nonexistent/file "$B/${P}x"; has err "/nonexistent/file"

echo "-- errors"
run 1 "$VANTAGE" ais ls "s3://vantage-no-such-bucket-$$/"; has err "404"; has err "does not exist"
port=$(free_port)
run 1 env AIS_AUTHN_TOKEN=SecretTok123 "$VANTAGE" ais --endpoint "http://127.0.0.1:$port" ls "$B/$P" --timing
has err "127.0.0.1:$port"; has err "error=connection"; hasnt err SecretTok123
run 1 env AIS_AUTHN_TOKEN=SecretTok123 "$VANTAGE" ais --endpoint "http://127.0.0.1:$port" health
has err "127.0.0.1:$port"; hasnt err SecretTok123
curl -sf -X POST -d '{"fault":"list-malformed","variant":"msgpack-truncated"}' "$AIS_ENDPOINT/emulator/fault" >/dev/null
run 1 "$VANTAGE" ais ls "$B/$P" --timing; has err "malformed reply"; has err "error=protocol"
curl -sf -X POST -d '{"version":"4.2"}' "$AIS_ENDPOINT/emulator/config" >/dev/null
run 0 "$VANTAGE" ais health; has out "NBI: not available"; has out "4.2"
run 1 "$VANTAGE" ais nbi create "$B/$P" --wait; has err "4.2"; has err "4.3"
curl -sf -X POST -d '{"version":"5.0"}' "$AIS_ENDPOINT/emulator/config" >/dev/null
echo "PASS"
