#!/usr/bin/env bash
# vantage's own overhead per request, on this machine, in one run: GET of a
# 1-byte object over CONNECTIONS (8) keep-alive connections for SECONDS (10)
# each, served by nginx (started here on a loopback port with its own
# temporary config, the object a static file at /BUCKET/KEY), by
#   wrk                          (Debian's HTTP load generator, the ceiling)
#   bench/curl_loop.c            (bare libcurl multi, 8 easy handles, 1 thread)
#   bench/curl_loop.c + headers  (the same, sending header lines shaped like
#                                 vantage's signed ones as fixed strings: what
#                                 libcurl itself spends on those bytes)
#   bench/s3_get_loop.c          (vantage: va_s3 GETs on 8 connections driven
#                                 by one thread (va_http_loop, as the ops
#                                 workload runs), SigV4 signing and a
#                                 vc_sample_t per request; nginx ignores the
#                                 signature)
# and prints ops/s and client CPU per request for each, and the ratios
# vantage/bare-libcurl (the issue's target: >= 0.9), vantage/libcurl-with-
# the-same-headers (what vantage adds to its HTTP library for the same
# request) and bare-libcurl/wrk.
# nginx is pinned to CPU 0 and the clients to the other CPUs (taskset) so the
# client's cost shows; VANTAGE_BENCH_PIN=0 lets the clients use every CPU.
# Needs nginx and wrk (apt-get install nginx-light wrk). Not a test.
#   bench/overhead.sh [SECONDS [CONNECTIONS]]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-10}
conns=${2:-8}
for tool in nginx wrk taskset; do
  command -v "$tool" >/dev/null || [ -x "/usr/sbin/$tool" ] ||
    { echo "overhead.sh: $tool not found: apt-get install nginx-light wrk" >&2; exit 2; }
done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
bdir="$src/build-bench"
cmake -S "$src" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DVANTAGE_TESTS=OFF >/dev/null
cmake --build "$bdir" -j2 --target vantage >/dev/null
# shellcheck source=bench/bench_lib.sh
. "$src/bench/bench_lib.sh"
bench_cc "$src" "$bdir" "$src/bench/s3_get_loop.c" "$bdir/s3_get_loop"
read -ra curl_flags <<<"$(pkg-config --cflags --libs libcurl)"
cc -O2 -std=c17 -D_POSIX_C_SOURCE=200809L "$src/bench/curl_loop.c" "${curl_flags[@]}" \
  -o "$bdir/curl_loop"

tmp=$(mktemp -d /tmp/vantage-bench-overhead-XXXXXX)
chmod 755 "$tmp"
cleanup() {
  if [ -f "$tmp/nginx.pid" ]; then kill "$(cat "$tmp/nginx.pid")" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
bucket=bench-bucket key=obj
mkdir -p "$tmp/www/$bucket"
printf 'x' >"$tmp/www/$bucket/$key"
port=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
cat >"$tmp/nginx.conf" <<CONF
daemon on;
worker_processes 1;
worker_cpu_affinity 1;
pid $tmp/nginx.pid;
error_log $tmp/error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 100000000;
  keepalive_timeout 120s;
  client_body_temp_path $tmp/body;
  proxy_temp_path $tmp/proxy;
  fastcgi_temp_path $tmp/fastcgi;
  uwsgi_temp_path $tmp/uwsgi;
  scgi_temp_path $tmp/scgi;
  server {
    listen 127.0.0.1:$port;
    root $tmp/www;
    location / { }
  }
}
CONF
"$NGINX" -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/error.log"
url="http://127.0.0.1:$port/$bucket/$key"
for _ in $(seq 50); do
  curl -fs -o /dev/null "$url" && break
  sleep 0.1
done
curl -fs -o /dev/null "$url" || { echo "overhead.sh: nginx does not serve $url" >&2; cat "$tmp/error.log" >&2; exit 1; }

# Header lines of the length and shape vantage sends with a signed GET
# (fixed values: no signing happens in curl_loop).
version=$(sed -n 's/^project(vantage VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
zeros=e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
sig_headers=(
  "User-Agent: vantage/$version"
  "Host: 127.0.0.1:$port"
  "x-amz-date: 20260101T000000Z"
  "x-amz-content-sha256: $zeros"
  "Authorization: AWS4-HMAC-SHA256 Credential=VANTAGEBENCHACCESSKEY/20260101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=$zeros"
)
ncpu=$(nproc)
clients=$([ "$ncpu" -gt 1 ] && echo "1-$((ncpu - 1))" || echo 0)
[ "${VANTAGE_BENCH_PIN:-1}" = 0 ] && clients="0-$((ncpu - 1))"
# Runs a client pinned to the client CPUs; prints "requests user_s sys_s".
measure() { # name parse-mode command...
  local mode=$1; shift
  /usr/bin/python3 - "$mode" taskset -c "$clients" "$@" <<'PY'
import re, resource, subprocess, sys
mode, cmd = sys.argv[1], sys.argv[2:]
out = subprocess.run(cmd, capture_output=True, text=True)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
text = out.stdout + out.stderr
if mode == "wrk":
    m = re.search(r"(\d+) requests in", text)
    bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    n = int(m.group(1)) - (int(bad.group(1)) if bad else 0) if m else -1
else:
    m = re.search(r"requests (\d+) errors (\d+)", text)
    n = int(m.group(1)) if m and out.returncode == 0 else -1
if n <= 0:
    sys.stderr.write(f"overhead.sh: {cmd[3]} failed:\n{text}\n")
    sys.exit(1)
print(n, ru.ru_utime, ru.ru_stime)
PY
}

declare -A ops cpu
report() { # label requests user sys text
  ops[$1]=$(awk -v n="$2" -v s="$secs" 'BEGIN { printf "%.0f", n / s }')
  cpu[$1]=$(awk -v n="$2" -v u="$3" -v y="$4" 'BEGIN { printf "%.2f", (u + y) * 1e6 / n }')
  printf '%-38s %10s ops/s %8s us CPU/request\n' "$5" "${ops[$1]}" "${cpu[$1]}"
}
run_set() { # connections
  local c=$1 n u s
  echo "GET of 1 byte from nginx at $url, $c connection(s), ${secs}s each; nginx on CPU 0, clients on CPU $clients"
  read -r n u s < <(measure wrk wrk -t1 -c"$c" -d"${secs}s" "$url")
  report wrk "$n" "$u" "$s" "wrk (1 thread)"
  read -r n u s < <(measure loop "$bdir/curl_loop" "$url" "$c" "$secs")
  report curl "$n" "$u" "$s" "bare libcurl multi (1 thread)"
  read -r n u s < <(measure loop "$bdir/curl_loop" "$url" "$c" "$secs" "${sig_headers[@]}")
  report curlh "$n" "$u" "$s" "bare libcurl + vantage's header lines"
  read -r n u s < <(measure loop "$bdir/s3_get_loop" "http://127.0.0.1:$port" "$bucket" "$key" "$c" "$secs")
  report vantage "$n" "$u" "$s" "vantage va_s3 + sample (1 thread)"
  awk -v v="${ops[vantage]}" -v c="${ops[curl]}" -v h="${ops[curlh]}" -v w="${ops[wrk]}" \
      -v vc="${cpu[vantage]}" -v cc="${cpu[curl]}" -v hc="${cpu[curlh]}" 'BEGIN {
    printf "vantage / bare libcurl:            %.2f of the ops/s (target >= 0.9), %.2fx the CPU per request\n", v / c, vc / cc
    printf "vantage / libcurl + same headers:  %.2f of the ops/s, %.2fx the CPU per request\n", v / h, vc / hc
    printf "libcurl + headers / bare libcurl:  %.2f of the ops/s (libcurl formatting the signed headers)\n", h / c
    printf "bare libcurl / wrk:                %.2f of the ops/s\n", c / w
  }'
}
run_set "$conns"
# One connection: no thread switching on either side, so the difference is
# what vantage does per request (signing, sample, CPU accounting).
[ "$conns" = 1 ] || { echo; run_set 1; }
