#!/usr/bin/env bash
# populate.sh: how fast and how cheaply vantage's populate workload writes
# many small objects, against boto3 doing the same, on the local RGW, in one
# run. Each writes N one-byte objects (aisloader-style names) under its own
# fresh prefix with W parallel workers:
#   vantage   the populate workload (16 workers, one keep-alive connection each),
#             run in-process by bench/populate_driver.c
#   boto3     put_object from a ThreadPoolExecutor of W threads, one client per
#             thread (/usr/bin/python3)
# and prints objects/s and client CPU (user+system) per object for each, and
# the ratios vantage/boto3 (targets: objects/s >= 1.0x, CPU per object <= 0.2x).
# Both prefixes are deleted afterwards. Not part of the test suite.
#   bench/populate.sh [release-build-dir]   (default: build-bench/, configured here
#   as a release build without sanitizers: it measures the program, not ASan)
# Settings: N (10000), W (16), SIZE (1), ROUNDS (1: vantage then boto3; more
# alternate the order).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
BUILD=${1:-$src/build-bench}
N=${N:-10000}
W=${W:-16}
SIZE=${SIZE:-1}
ROUNDS=${ROUNDS:-1}

if [ ! -f "$BUILD/libvantage_agent.a" ]; then
  cmake -S "$src" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DVANTAGE_SANITIZE=OFF -DVANTAGE_TESTS=OFF >/dev/null
fi
cmake --build "$BUILD" -j2 --target vantage_agent >/dev/null
DRIVER=$BUILD/populate_driver
# shellcheck disable=SC2046
cc -std=c17 -O2 -D_GNU_SOURCE -o "$DRIVER" "$here/populate_driver.c" \
  -I"$src/agent" -I"$src/common" -I"$src/proto" \
  "$BUILD/libvantage_agent.a" "$BUILD/libvantage_proto.a" "$BUILD/libvantage_common.a" \
  $(pkg-config --libs libcurl libcrypto expat msgpack jansson libconfig) -lpthread -lm

eval "$("$src/tests/servers.sh" env)"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION AWS_ENDPOINT_URL VANTAGE_TEST_BUCKET
export N W SIZE ROUNDS DRIVER
export RUN_PREFIX="bench-populate/$$/"

exec /usr/bin/python3 - <<'PY'
import json, os, random, resource, string, subprocess, threading, time
from concurrent.futures import ThreadPoolExecutor
import boto3

ep, bucket = os.environ["AWS_ENDPOINT_URL"], os.environ["VANTAGE_TEST_BUCKET"]
n, w, size, rounds = (int(os.environ[k]) for k in ("N", "W", "SIZE", "ROUNDS"))
driver, base = os.environ["DRIVER"], os.environ["RUN_PREFIX"]
admin = boto3.client("s3", endpoint_url=ep)

def count(prefix):
    return sum(p.get("KeyCount", 0) for p in
               admin.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix))

def wipe(prefix):
    for page in admin.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix):
        keys = [{"Key": o["Key"]} for o in page.get("Contents", [])]
        if keys:
            admin.delete_objects(Bucket=bucket, Delete={"Objects": keys, "Quiet": True})

def run_vantage(prefix):
    p = subprocess.run([driver, bucket, prefix, str(n), str(w), str(size)],
                       capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"vantage populate failed: {p.stderr.strip()}")
    r = json.loads(p.stdout)
    assert r["objects"] == n and r["errors"] == 0, r
    return r["wall_s"], r["cpu_s"]

def run_boto3(prefix):
    local, body = threading.local(), b"x" * size
    letters = string.ascii_letters
    def put(_):
        c = getattr(local, "c", None)
        if c is None:
            c = local.c = boto3.client("s3", endpoint_url=ep)
        c.put_object(Bucket=bucket, Key=prefix + "".join(random.choices(letters, k=32)), Body=body)
    ru0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    with ThreadPoolExecutor(w) as ex:
        list(ex.map(put, range(n)))
    ru1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    return t1 - t0, cpu

res = {"vantage": [], "boto3": []}
try:
    for r in range(rounds):
        order = ("vantage", "boto3") if r % 2 == 0 else ("boto3", "vantage")
        for who in order:
            prefix = f"{base}{who}-{r}/"
            wall, cpu = (run_vantage if who == "vantage" else run_boto3)(prefix)
            got = count(prefix)
            assert got == n, f"{who} left {got} objects under {prefix}, expected {n}"
            res[who].append((wall, cpu))
            print(f"  {who:8s} round {r}: {n} objects in {wall:.2f} s, {cpu:.2f} s CPU", flush=True)
finally:
    wipe(base)

def summary(v):
    wall, cpu = sum(x[0] for x in v), sum(x[1] for x in v)
    return len(v) * n / wall, cpu / (len(v) * n)
(vr, vc), (br, bc) = summary(res["vantage"]), summary(res["boto3"])
print(f"populate of {n} objects of {size} B with {w} workers, {rounds} round(s), local RGW:")
print(f"  vantage  {vr:8.0f} objects/s   {vc*1e6:7.1f} us CPU per object")
print(f"  boto3    {br:8.0f} objects/s   {bc*1e6:7.1f} us CPU per object")
print(f"objects/s        vantage / boto3 = {vr/br:.2f}  (target >= 1.0)")
print(f"CPU per object   vantage / boto3 = {vc/bc:.3f}  (target <= 0.2)")
PY
