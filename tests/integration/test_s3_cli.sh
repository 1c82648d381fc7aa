#!/usr/bin/env bash
# `vantage s3` end to end against the local RGW: what a person sees. Checks
# output, exit status and error messages, and that no secret is ever printed.
# Needs VANTAGE, AWS_* and VANTAGE_TEST_BUCKET (the test runner sets them).
set -uo pipefail
: "${VANTAGE:?path of the vantage binary}" "${VANTAGE_TEST_BUCKET:?}" "${AWS_SECRET_ACCESS_KEY:?}"
B=$VANTAGE_TEST_BUCKET
P="t-s3-cli-$$"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
# run NAME EXPECTED_STATUS CMD...: runs, keeps stdout/stderr in $tmp/NAME.{out,err}
run() {
  local name=$1 want=$2; shift 2
  "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local got=$?
  [ "$got" = "$want" ] || fail "$name: exit $got, want $want: $(head -c 400 "$tmp/$name.err")"
  if grep -qF -- "$AWS_SECRET_ACCESS_KEY" "$tmp/$name.out" "$tmp/$name.err"; then fail "$name printed the secret key"; fi
}
has() { grep -qF -- "$3" "$tmp/$1.$2" || fail "$1: $2 lacks '$3': $(head -c 400 "$tmp/$1.$2")"; }

# --help everywhere
run help 0 "$VANTAGE" s3 --help; has help out "commands:"
for c in ls put get head rm mb; do
  run "help-$c" 0 "$VANTAGE" s3 "$c" --help; has "help-$c" out "usage: vantage s3 $c"; has "help-$c" out "--timing"
done
run usage 2 "$VANTAGE" s3 get "s3://$B/x"; has usage err "expected"
run badurl 2 "$VANTAGE" s3 ls "http://$B"; has badurl err "is not s3://BUCKET"

# creating the bucket that exists and is ours is fine
run mb 0 "$VANTAGE" s3 mb "s3://$B" --timing; has mb err "op=create-bucket status=200"

# round trip of a ~5 MiB file with timing, content checked
head -c 5000000 /dev/urandom >"$tmp/in.bin"
run put 0 "$VANTAGE" s3 put "$tmp/in.bin" "s3://$B/$P/file one+é.bin" --timing
has put err "timing: op=put status=200"; has put err "bytes_sent=5000000"
run head 0 "$VANTAGE" s3 head "s3://$B/$P/file one+é.bin"; has head out "size: 5000000"
run get 0 "$VANTAGE" s3 get "s3://$B/$P/file one+é.bin" "$tmp/back.bin" --timing
has get err "bytes_recv=5000000"; has get err "ttfb="
cmp -s "$tmp/in.bin" "$tmp/back.bin" || fail "get: content differs"
run getdash 0 "$VANTAGE" s3 get "s3://$B/$P/file one+é.bin" -
cmp -s "$tmp/in.bin" "$tmp/getdash.out" || fail "get -: stdout differs from the object"
run discard 0 "$VANTAGE" s3 get "s3://$B/$P/file one+é.bin" --discard --timing; has discard err "bytes_recv=5000000"
run putsize 0 "$VANTAGE" s3 put --size 1KiB "s3://$B/$P/zeros" --unsigned-payload
run headsize 0 "$VANTAGE" s3 head "s3://$B/$P/zeros"; has headsize out "size: 1024"

# ls: keys in order, then the count
run ls 0 "$VANTAGE" s3 ls "s3://$B/$P/" --max-keys 1 --timing
printf '%s\n' "$P/file one+é.bin" "$P/zeros" "2 keys" >"$tmp/ls.want"
cmp -s "$tmp/ls.want" "$tmp/ls.out" || fail "ls output: $(cat "$tmp/ls.out")"
has ls err "pages=2 keys=2"
run lsdelim 0 "$VANTAGE" s3 ls "s3://$B/" --delimiter / --start-after "$P"
has lsdelim out "PRE $P/"

# rm, then the object is gone
run rm 0 "$VANTAGE" s3 rm "s3://$B/$P/file one+é.bin"
run rm2 0 "$VANTAGE" s3 rm "s3://$B/$P/zeros"
run gone 1 "$VANTAGE" s3 get "s3://$B/$P/zeros" "$tmp/gone.bin"; has gone err "NoSuchKey"
[ ! -e "$tmp/gone.bin" ] || fail "a failed get left $tmp/gone.bin behind"

# failures a person must be able to read
AWS_SECRET_ACCESS_KEY=wrong-secret-abcdefghijklmnopqrstuvwxyz run wrong 1 "$VANTAGE" s3 ls "s3://$B/"
has wrong err "SignatureDoesNotMatch"; has wrong err "HTTP 403"
grep -qF "wrong-secret" "$tmp/wrong.err" && fail "wrong: printed the (wrong) secret"
run nobucket 1 "$VANTAGE" s3 ls "s3://vantage-no-such-bucket-cli/"; has nobucket err "NoSuchBucket"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run closed 1 "$VANTAGE" s3 ls "s3://$B/" --endpoint "http://127.0.0.1:$port"
has closed err "127.0.0.1:$port"; has closed err "connection failed"
run vhip 2 "$VANTAGE" s3 ls "s3://$B/" --endpoint http://127.0.0.1:7480 --virtual-hosted; has vhip err "IP address"
run noprofile 2 "$VANTAGE" s3 ls "s3://$B/" --profile vantage-no-such-profile; has noprofile err "not found"

# TLS: verification is on by default, --ca-bundle trusts a private CA, --insecure skips the check.
# The TLS peer is `openssl s_server -www` with a self-signed certificate for 127.0.0.1: it
# answers with an HTML page, which the listing must refuse clearly.
if command -v openssl >/dev/null; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=127.0.0.1 \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$tmp/key.pem" -out "$tmp/cert.pem" 2>/dev/null
  tport=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  openssl s_server -quiet -www -accept "127.0.0.1:$tport" -cert "$tmp/cert.pem" -key "$tmp/key.pem" \
    </dev/null >/dev/null 2>&1 &
  tls_pid=$!
  for _ in $(seq 100); do
    curl -sk -o /dev/null --max-time 1 "https://127.0.0.1:$tport/" && break
    kill -0 "$tls_pid" 2>/dev/null || break
    sleep 0.1
  done
  run tlsverify 1 "$VANTAGE" s3 ls "s3://$B/" --endpoint "https://127.0.0.1:$tport"
  has tlsverify err "127.0.0.1:$tport"; has tlsverify err "certificate"
  run tlsca 1 "$VANTAGE" s3 ls "s3://$B/" --endpoint "https://127.0.0.1:$tport" --ca-bundle "$tmp/cert.pem" --timing
  has tlsca err "malformed reply"
  grep -q "tls=[0-9]" "$tmp/tlsca.err" || fail "tlsca: no TLS phase in the timing: $(cat "$tmp/tlsca.err")"
  run tlsinsecure 1 "$VANTAGE" s3 ls "s3://$B/" --endpoint "https://127.0.0.1:$tport" --insecure
  has tlsinsecure err "malformed reply"
  kill "$tls_pid" 2>/dev/null; wait "$tls_pid" 2>/dev/null
else
  echo "openssl not installed: TLS checks skipped" >&2
fi

if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed" >&2; exit 1; fi
echo "vantage s3 CLI: all checks passed"
