#!/usr/bin/env bash
# s3_list.sh: how much a full ListObjectsV2 listing through vantage costs
# compared with the bare page fetches and with boto3, on the local RGW.
# Puts 10,000 one-byte keys under bench-s3list/10000/ when they are missing,
# then, RUNS times each, in one run:
#   vantage   `vantage s3 ls` (its own timing record: first request to last page)
#   boto3     list_objects_v2 loop, MaxKeys 1000, warm client (/usr/bin/python3)
#   curl      each page fetched by its own `curl --aws-sigv4`, time_total summed
# and prints medians and the ratios vantage/curl (target <= 1.15) and
# vantage/boto3 (target <= 0.2). Not part of the test suite.
#   bench/s3_list.sh [path-to-vantage]   (a release build measures the program, not the sanitizers)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
VANTAGE=${1:-$here/../build/vantage}
RUNS=${RUNS:-5}
N=${N:-10000}
PREFIX="bench-s3list/$N/"
eval "$("$here/../tests/servers.sh" env)"
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION AWS_ENDPOINT_URL VANTAGE_TEST_BUCKET
export PREFIX N RUNS VANTAGE

exec /usr/bin/python3 - <<'PY'
import os, re, statistics, subprocess, sys, time, urllib.parse, xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
import boto3

ep, bucket, prefix = os.environ["AWS_ENDPOINT_URL"], os.environ["VANTAGE_TEST_BUCKET"], os.environ["PREFIX"]
n, runs, vantage = int(os.environ["N"]), int(os.environ["RUNS"]), os.environ["VANTAGE"]
s3 = boto3.client("s3", endpoint_url=ep)

def boto_list():
    keys, token = [], None
    while True:
        kw = dict(Bucket=bucket, Prefix=prefix, MaxKeys=1000)
        if token:
            kw["ContinuationToken"] = token
        r = s3.list_objects_v2(**kw)
        keys += [o["Key"] for o in r.get("Contents", [])]
        if not r.get("IsTruncated"):
            return keys
        token = r["NextContinuationToken"]

have = set(boto_list())
want = [f"{prefix}{i:06d}" for i in range(n)]
missing = [k for k in want if k not in have]
if missing:
    print(f"putting {len(missing)} missing keys under {prefix} ...", flush=True)
    def put(k):
        boto3_local.put_object(Bucket=bucket, Key=k, Body=b"x")
    boto3_local = boto3.client("s3", endpoint_url=ep)
    with ThreadPoolExecutor(16) as ex:
        list(ex.map(put, missing))
assert len(boto_list()) == n, "the bench prefix does not hold exactly N keys"

def time_vantage():
    p = subprocess.run([vantage, "s3", "ls", f"s3://{bucket}/{prefix}", "--timing"],
                       capture_output=True, text=True, check=True)
    assert p.stdout.splitlines()[-1] == f"{n} keys", p.stdout[-200:]
    m = re.search(r"op=s3-direct .* total=([0-9.]+)ms", p.stderr)
    return float(m.group(1)) / 1000

def time_boto():
    t0 = time.perf_counter()
    keys = boto_list()
    dt = time.perf_counter() - t0
    assert len(keys) == n
    return dt

enc = lambda v: urllib.parse.quote(v, safe="-_.~")
def time_curl():
    total, token, pages = 0.0, None, 0
    user = f"{os.environ['AWS_ACCESS_KEY_ID']}:{os.environ['AWS_SECRET_ACCESS_KEY']}"
    while True:
        q = {"list-type": "2", "max-keys": "1000", "prefix": prefix}
        if token:
            q["continuation-token"] = token
        url = f"{ep}/{bucket}?" + "&".join(f"{k}={enc(v)}" for k, v in sorted(q.items()))
        p = subprocess.run(["curl", "-sS", "--fail", "--aws-sigv4", f"aws:amz:{os.environ['AWS_REGION']}:s3",
                            "--user", user, "-H", "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
                            "-w", "\n%{time_total}", url], capture_output=True, text=True, check=True)
        body, t = p.stdout.rsplit("\n", 1)
        total += float(t)
        pages += 1
        root = ET.fromstring(body)
        ns = {"s3": root.tag[1:].split("}")[0]} if root.tag.startswith("{") else {}
        f = (lambda tag: root.find(f"s3:{tag}", ns)) if ns else (lambda tag: root.find(tag))
        if f("IsTruncated").text != "true":
            return total
        token = f("NextContinuationToken").text

boto_list()  # warm the client: connection, endpoint resolution, imports
res = {"vantage": [], "boto3": [], "curl": []}
for i in range(runs):
    res["vantage"].append(time_vantage())
    res["boto3"].append(time_boto())
    res["curl"].append(time_curl())
med = {k: statistics.median(v) for k, v in res.items()}
print(f"full listing of {n} keys, MaxKeys 1000, {runs} runs each, medians:")
for k in ("vantage", "curl", "boto3"):
    print(f"  {k:8s} {med[k]*1000:8.1f} ms   (runs: {', '.join(f'{x*1000:.1f}' for x in res[k])})")
print(f"vantage / sum of raw curl page fetches = {med['vantage']/med['curl']:.3f}  (target <= 1.15)")
print(f"vantage / boto3 loop                   = {med['vantage']/med['boto3']:.3f}  (target <= 0.20)")
PY
