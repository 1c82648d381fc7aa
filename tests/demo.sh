#!/usr/bin/env bash
# demo.sh: vantage's first demonstration. Starts the local servers (Ceph RGW
# on 127.0.0.1), then makes one timed S3 round trip with `vantage s3`: put a
# 5 MiB object, get it back, check it with head, list it, delete it, printing
# each request's timing record (DNS, connect, TLS, first byte, total, bytes,
# status, CPU).
#   tests/demo.sh [path-to-vantage]     (default: ./build/vantage)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
VANTAGE=${1:-$here/../build/vantage}
[ -x "$VANTAGE" ] || { echo "demo: no vantage binary at $VANTAGE (build first, or pass its path)" >&2; exit 2; }
VANTAGE=$(cd "$(dirname "$VANTAGE")" && pwd)/$(basename "$VANTAGE")

step() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "starting the local servers (Ceph RGW on 127.0.0.1; the first start takes about 20 s)"
"$here/servers.sh" start
eval "$("$here/servers.sh" env)"
echo "endpoint $AWS_ENDPOINT_URL, bucket $VANTAGE_TEST_BUCKET (test-only keys)"

work=$(mktemp -d)
key="demo-$(hostname -s)-$$/object-5MiB.bin"
url="s3://$VANTAGE_TEST_BUCKET/$key"
cleanup() {
  "$VANTAGE" s3 rm "$url" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
head -c $((5 << 20)) /dev/urandom >"$work/upload.bin"

step "upload a 5 MiB object (streamed from a file)"
show "$VANTAGE" s3 put "$work/upload.bin" "$url" --timing

step "download it, streaming to a file"
show "$VANTAGE" s3 get "$url" "$work/download.bin" --timing
if cmp -s "$work/upload.bin" "$work/download.bin"; then
  echo "content check: the downloaded bytes equal the uploaded ones"
else
  echo "content check FAILED: the downloaded object differs" >&2
  exit 1
fi

step "check that it exists (HEAD)"
show "$VANTAGE" s3 head "$url" --timing

step "list its prefix"
show "$VANTAGE" s3 ls "s3://$VANTAGE_TEST_BUCKET/${key%/*}/" --timing

step "delete it"
show "$VANTAGE" s3 rm "$url" --timing

step "and it is gone (a 404 is the expected answer here)"
if "$VANTAGE" s3 head "$url"; then
  echo "the object still exists after delete" >&2
  exit 1
fi

printf '\ndemo done: put, get, head, ls and rm each timed above (timing: lines).\n'
