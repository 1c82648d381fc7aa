#!/usr/bin/python3
"""The AIS emulator (tests/ais_emulator) checked against the wire spec
docs/ais-rest-api.md, independently of vantage's own AIS client.

Needs the local RGW (AWS_* environment, else `tests/rgw.sh env`) and the emulator
at AIS_ENDPOINT (default http://127.0.0.1:51080; started with ctl.sh if it does
not answer). Uses its own RGW bucket `vantage-aisemu`: 1,200 one-byte objects under
t-aisemu/l1200/ are written once and reused; per-run objects are removed.
"""

import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import unittest
import urllib.parse
from datetime import datetime

import boto3
import msgpack
from botocore.config import Config

SRC = os.environ.get("VANTAGE_SRC") or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EMU_DIR = os.path.join(SRC, "tests", "ais_emulator")
sys.path.insert(0, EMU_DIR)
import aisemu  # noqa: E402  (private in-process instances for tests that change settings)
import codec  # noqa: E402  (the emulator's encoder, checked against the spec's worked example)

BUCKET = "vantage-aisemu"
PREFIX = "t-aisemu/l1200/"
N = 1200
RUN = f"t-aisemu/run-{os.getpid()}/"
SHORTID = re.compile(r"^[A-Za-z0-9_-]{9,}$")
ERR_KEYS = {"message", "method", "url_path", "remote_addr", "caller", "node", "status"}
NBI = str(1 << 15)


def rgw_env():
    if not os.environ.get("AWS_ENDPOINT_URL"):
        out = subprocess.run(["bash", os.path.join(SRC, "tests", "rgw.sh"), "env"], check=True,
                             capture_output=True, text=True).stdout
        for line in out.splitlines():
            k, _, v = line.replace("export ", "", 1).partition("=")
            os.environ[k] = v


def endpoint():
    return os.environ.get("AIS_ENDPOINT", "http://127.0.0.1:51080")


class Ais:
    """A minimal keep-alive HTTP client; nothing follows redirects behind our back."""

    def __init__(self, base):
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port or 80
        self.conn = None

    def req(self, method, path, body=None, headers=None, query=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body).encode()
        elif isinstance(body, str):
            body = body.encode()
        h = dict(headers or {})
        if body is not None and "Content-Type" not in h and method != "PUT":
            h["Content-Type"] = "application/json"
        if query:
            path += ("&" if "?" in path else "?") + urllib.parse.urlencode(query)
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=120)
            try:
                self.conn.request(method, path, body=body, headers=h)
                r = self.conn.getresponse()
                data = r.read()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        if r.will_close:
            self.conn.close()
            self.conn = None
        return r.status, r.headers, data

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None


def bpath(bucket=BUCKET):
    return f"/v1/buckets/{bucket}?provider=aws"


def lso(prefix, uuid="", token="", pagesize=0, flags="0", props="", **extra):
    v = {"prefix": prefix, "pagesize": pagesize, "uuid": uuid, "props": props,
         "continuation_token": token, "flags": flags, "target": ""}
    v.update(extra)
    return {"action": "list", "name": "", "value": v}


def decode_page(headers, data, msgpack_wanted):
    """(uuid, token, [(name, size, flags)]) from either encoding, checking the spec's shape."""
    if msgpack_wanted:
        assert headers["Content-Type"] == "application/msgpack", headers["Content-Type"]
        d = msgpack.unpackb(data, raw=False, strict_map_key=False)
        assert list(d.keys()) == ["UUID", "ContinuationToken", "Entries", "Flags"], list(d.keys())
        assert isinstance(d["Entries"], list)
        ents = [(e["n"], e.get("s", 0), e.get("f", 0)) for e in d["Entries"]]
        return d["UUID"], d["ContinuationToken"], ents
    assert headers["Content-Type"] == "application/json; charset=utf-8", headers["Content-Type"]
    assert data.endswith(b"\n")
    d = json.loads(data)
    assert list(d.keys()) == ["uuid", "continuation_token", "entries", "flags"], list(d.keys())
    ents = []
    for e in d["entries"] or []:
        if "size" in e:
            assert isinstance(e["size"], str), e
        ents.append((e["name"], int(e.get("size", "0")), e.get("flags", 0)))
    return d["uuid"], d["continuation_token"], ents


def s3_client():
    return boto3.client("s3", endpoint_url=os.environ["AWS_ENDPOINT_URL"],
                        aws_access_key_id=os.environ["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key=os.environ["AWS_SECRET_ACCESS_KEY"],
                        region_name=os.environ.get("AWS_REGION", "us-east-1"),
                        config=Config(max_pool_connections=16, retries={"max_attempts": 3}))


def s3_keys(s3, prefix):
    keys = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=BUCKET, Prefix=prefix):
        keys += [c["Key"] for c in page.get("Contents", [])]
    return keys


S3 = None
EXPECTED = []


def setUpModule():
    global S3, EXPECTED
    rgw_env()
    probe = Ais(endpoint())
    try:
        ok = probe.req("GET", "/v1/health")[0] == 200
    except OSError:
        ok = False
    probe.close()
    if not ok:
        if os.environ.get("AIS_ENDPOINT"):
            raise RuntimeError(f"AIS_ENDPOINT={endpoint()} does not answer /v1/health")
        subprocess.run([os.path.join(EMU_DIR, "ctl.sh"), "start"], check=True)
    S3 = s3_client()
    try:
        S3.create_bucket(Bucket=BUCKET)
    except S3.exceptions.BucketAlreadyOwnedByYou:
        pass
    want = [f"{PREFIX}o-{i:05d}" for i in range(N)]
    have = set(s3_keys(S3, PREFIX))
    # leftovers of an interrupted run would change the expected listing
    for k in have - set(want):
        S3.delete_object(Bucket=BUCKET, Key=k)
    missing = [k for k in want if k not in have]
    if missing:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(16) as ex:
            list(ex.map(lambda k: S3.put_object(Bucket=BUCKET, Key=k, Body=b"x"), missing))
    EXPECTED = want


def tearDownModule():
    for k in s3_keys(S3, RUN):
        S3.delete_object(Bucket=BUCKET, Key=k)


class PrivateEmu:
    """An emulator of this source tree in-process on free ports, for tests that change
    its settings or NBI state: other tests sharing the ctl.sh instance are unaffected."""

    def __init__(self, *argv):
        args = aisemu.parse_args(["--port", "0", "--target-port", "0", *argv])
        self.cluster, self.proxy, self.target = aisemu.build(args)
        for srv in (self.proxy, self.target):
            threading.Thread(target=srv.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.cluster.pport}"

    def close(self):
        for srv in (self.proxy, self.target):
            srv.shutdown()
            srv.server_close()


class Base(unittest.TestCase):
    private = None          # argv of a private emulator for the class, else the shared one

    @classmethod
    def setUpClass(cls):
        cls.emulator = PrivateEmu(*cls.private) if cls.private is not None else None
        cls.endpoint = cls.emulator.endpoint if cls.emulator else endpoint()

    @classmethod
    def tearDownClass(cls):
        if cls.emulator:
            cls.emulator.close()

    def setUp(self):
        self.ais = Ais(self.endpoint)

    def tearDown(self):
        self.ais.close()

    def check_error(self, resp, status, method, path_prefix, msg_re=None):
        st, h, data = resp
        self.assertEqual(st, status, data)
        self.assertEqual(h["Content-Type"], "application/json")
        self.assertEqual(h["X-Content-Type-Options"], "nosniff")
        if method == "HEAD":
            self.assertEqual(data, b"")
            raw = h["Hdr-Error"]
        else:
            self.assertTrue(data.endswith(b"\n"), data)
            raw = data.decode()
        e = json.loads(raw)
        self.assertTrue(ERR_KEYS <= set(e) <= ERR_KEYS | {"tcode"}, e)
        self.assertEqual(e["status"], status)
        self.assertEqual(e["method"], method)
        self.assertTrue(e["url_path"].startswith(path_prefix), e["url_path"])
        self.assertRegex(e["remote_addr"], r"^127\.0\.0\.1:\d+$")
        self.assertRegex(e["node"], r"^[pt]\[.+\]$")
        if msg_re:
            self.assertRegex(e["message"], msg_re)
        return e

    def list_all(self, prefix, pagesize=0, mp=True, flags="0", inv=None):
        """Full listing as every SDK loops it; returns (pages [(uuid, token, entries)])."""
        hdr = {"Accept": "application/msgpack"} if mp else {}
        if inv:
            hdr["Ais-Inv-Name"] = inv
        uuid, token, pages = "", "", []
        while True:
            st, h, data = self.ais.req("GET", bpath(), lso(prefix, uuid, token, pagesize, flags), hdr)
            self.assertEqual(st, 200, data)
            page = decode_page(h, data, mp)
            if uuid:
                self.assertEqual(page[0], uuid)
            uuid, token = page[0], page[1]
            pages.append(page)
            self.assertLess(len(pages), 10000)
            if not token:
                return pages

    def s3_list_calls(self, job):
        """ListObjectsV2 calls the emulator made for one list uuid or job id."""
        st, _, data = self.ais.req("GET", "/emulator/stats?job=" + urllib.parse.quote(job))
        self.assertEqual(st, 200)
        return json.loads(data)["ListObjectsV2"]

    def emu(self, method, what, body=None):
        st, _, data = self.ais.req(method, f"/emulator/{what}", body)
        self.assertEqual(st, 200, data)
        return json.loads(data)

    def put(self, key, body):
        st, h, _ = self.ais.req("PUT", f"/v1/objects/{BUCKET}/{urllib.parse.quote(key)}?provider=aws", body)
        self.assertEqual(st, 307)
        st, _, data = self.follow("PUT", h["Location"], body)
        self.assertEqual(st, 200, data)

    def follow(self, method, location, body=None):
        t = Ais(location)
        try:
            u = urllib.parse.urlsplit(location)
            return t.req(method, u.path + "?" + u.query, body)
        finally:
            t.close()

    def delete(self, key):
        st, h, _ = self.ais.req("DELETE", f"/v1/objects/{BUCKET}/{urllib.parse.quote(key)}?provider=aws")
        self.assertEqual(st, 307)
        return self.follow("DELETE", h["Location"])


class TestCluster(Base):
    def test_health(self):
        for q in ("", "?readiness=true", "?prr=true"):
            st, h, data = self.ais.req("GET", "/v1/health" + q)
            self.assertEqual((st, data), (200, b""))
            self.assertGreater(int(h["Ais-Cluster-Uptime"]), 0)
            self.assertGreater(int(h["Ais-Node-Uptime"]), 0)

    def test_version(self):
        st, h, data = self.ais.req("GET", "/v1/daemon?what=software_version")
        self.assertEqual(st, 200)
        v = data.decode()
        self.assertRegex(v, r"^\d+\.\d+")
        self.assertIn("aisemu", v)          # never mistaken for a real cluster
        major, minor = (int(x) for x in v.split(".")[:2])
        self.assertGreaterEqual((major, minor), (4, 3))

    def test_smap(self):
        for path in ("/v1/cluster?what=smap", "/v1/daemon?what=smap"):
            st, h, data = self.ais.req("GET", path)
            self.assertEqual(st, 200)
            self.assertEqual(h["Content-Type"], "application/json; charset=utf-8")
            sm = json.loads(data)
            self.assertIsInstance(sm["version"], str)
            self.assertGreaterEqual(len(sm["tmap"]), 1)
            self.assertEqual(len(sm["pmap"]), 1)
            self.assertIn(sm["proxy_si"]["daemon_id"], sm["pmap"])
            for tid, node in sm["tmap"].items():
                self.assertEqual(node["daemon_id"], tid)
                self.assertEqual(node["daemon_type"], "target")
                self.assertIsInstance(node["public_net"]["daemon_port"], str)
                self.assertIn("node_ip_addr", node["public_net"])
                self.assertEqual(node["flags"] & 0b1100, 0)
                self.assertIn("aisemu", tid)

    def test_keepalive_rate(self):
        """A few hundred requests/s over keep-alive connections from 8 clients."""
        n, errs = 60, []

        def worker():
            c = Ais(endpoint())
            try:
                for _ in range(n):
                    st, _, _ = c.req("GET", "/v1/daemon?what=software_version")
                    if st != 200:
                        errs.append(st)
            finally:
                c.close()
        t0 = time.monotonic()
        ts = [threading.Thread(target=worker) for _ in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        rate = 8 * n / (time.monotonic() - t0)
        self.assertEqual(errs, [])
        self.assertGreater(rate, 150, f"{rate:.0f} requests/s")


class TestRegularList(Base):
    def test_msgpack_full_listing_one_s3_call_per_page(self):
        pages = self.list_all(PREFIX, pagesize=0, mp=True)
        self.assertEqual([len(p[2]) for p in pages], [1000, 200])
        self.assertEqual(self.s3_list_calls(pages[0][0]), len(pages))
        names = [e[0] for p in pages for e in p[2]]
        self.assertEqual(names, EXPECTED)
        self.assertTrue(all(e[1] == 1 and e[2] == 0 for p in pages for e in p[2]))
        self.assertRegex(pages[0][0], SHORTID)
        # a second full listing re-walks S3 under a fresh uuid
        again = self.list_all(PREFIX, pagesize=0, mp=True)
        self.assertNotEqual(again[0][0], pages[0][0])
        self.assertEqual(self.s3_list_calls(again[0][0]), len(again))

    def test_json_listing_pagesize(self):
        pages = self.list_all(PREFIX, pagesize=500, mp=False)
        self.assertEqual([len(p[2]) for p in pages], [500, 500, 200])
        self.assertEqual([e[0] for p in pages for e in p[2]], EXPECTED)
        self.assertEqual(self.s3_list_calls(pages[0][0]), 3)

    def test_pagesize_above_aws_max(self):
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, pagesize=5000),
                                   {"Accept": "application/json, application/msgpack;q=0.9"})
        self.assertEqual(st, 200)
        self.assertEqual(len(decode_page(h, data, True)[2]), 1000)

    def test_token_is_s3s_own(self):
        """Tokens pass through opaquely: the same as S3's NextContinuationToken."""
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, pagesize=300))
        uuid, tok, ents = decode_page(h, data, False)
        r = S3.list_objects_v2(Bucket=BUCKET, Prefix=PREFIX, MaxKeys=300)
        self.assertEqual(tok, r["NextContinuationToken"])
        r2 = S3.list_objects_v2(Bucket=BUCKET, Prefix=PREFIX, MaxKeys=300, ContinuationToken=tok)
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, uuid, tok, 300))
        self.assertEqual([e[0] for e in decode_page(h, data, False)[2]], [c["Key"] for c in r2["Contents"]])

    def test_opaque_tokens_knob(self):
        emu = PrivateEmu()
        self.ais.close()
        self.ais = Ais(emu.endpoint)
        self.emu("POST", "config", {"opaque_tokens": 1})
        try:
            pages = self.list_all(PREFIX, pagesize=25, mp=False)
            self.assertEqual([e[0] for p in pages for e in p[2]], EXPECTED)
            # every wrapped token unwraps to itself, whatever its random part holds
            rnd = random.Random(7)
            for _ in range(5000):
                t = "".join(rnd.choice("ab/-_.~é\0 +=") for _ in range(rnd.randint(1, 40)))
                self.assertEqual(emu.cluster.unwrap_token(emu.cluster.wrap_token(t)), t)
            for _, tok, ents in pages[:-1]:
                self.assertTrue(tok.startswith("aisemu1."), tok)
                self.assertNotIn(ents[-1][0], tok)
            # a client that makes up a token from the last name is refused
            built = lso(PREFIX, pages[0][0], pages[0][2][-1][0], 25)
            self.check_error(self.ais.req("GET", bpath(), built), 400, "GET", "/v1/buckets/",
                             "continuation token")
        finally:
            emu.close()

    def test_repeated_request_served_without_s3(self):
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, pagesize=100))
        uuid, tok, first = decode_page(h, data, False)
        st, h, data2 = self.ais.req("GET", bpath(), lso(PREFIX, uuid, tok, 100))
        second = decode_page(h, data2, False)
        st, h, data3 = self.ais.req("GET", bpath(), lso(PREFIX, uuid, tok, 100))
        self.assertEqual(data3, data2)                      # same uuid + token: same page
        self.assertEqual(self.s3_list_calls(uuid), 2)       # ... without another S3 call
        self.assertEqual(second[2][0][0], EXPECTED[100])

    def test_msgpack_chunked_like_go(self):
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX), {"Accept": "application/msgpack"})
        self.assertEqual(h["Transfer-Encoding"], "chunked")           # > 2 KiB: streamed
        self.assertIsNone(h["Content-Length"])
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, pagesize=2), {"Accept": "application/msgpack"})
        self.assertEqual(int(h["Content-Length"]), len(data))         # small: Content-Length

    def test_empty_result_encodings(self):
        empty = RUN + "nothing-here/"
        st, h, data = self.ais.req("GET", bpath(), lso(empty))
        self.assertEqual(st, 200)
        self.assertEqual(json.loads(data)["entries"], None)
        self.assertEqual(json.loads(data)["continuation_token"], "")
        st, h, data = self.ais.req("GET", bpath(), lso(empty), {"Accept": "application/msgpack"})
        self.assertIn(b"\xa7Entries\x90\xa5Flags\x00", data)

    def test_msgpack_compact_ints(self):
        key = RUN + "sz/two-hundred"
        S3.put_object(Bucket=BUCKET, Key=key, Body=b"z" * 200)
        st, h, data = self.ais.req("GET", bpath(), lso(RUN + "sz/"), {"Accept": "application/msgpack"})
        self.assertEqual(st, 200)
        # s (int64) = 200: msgp writes int16 (0xd1), never uint8 (0xcc)
        self.assertIn(b"\xa1s\xd1\x00\xc8", data)
        self.assertTrue(data.startswith(b"\x84\xa4UUID"))

    def test_spec_worked_example(self):
        want = bytes.fromhex("84a4555549 44a3616263b1".replace(" ", "")) + b"ContinuationToken" + \
            bytes.fromhex("a0a7") + b"Entries" + bytes.fromhex("9182a16ea161a17301a5") + b"Flags" + b"\x00"
        self.assertEqual(codec.msgpack_lsores("abc", "", [("a", 1, "", 0)]), want)
        # NBI pages can exceed 65,535 entries: array32
        big = codec.msgpack_lsores("u", "", [("k", 0, "", 0)] * 70000)
        self.assertIn(b"\xa7Entries\xdd\x00\x01\x11\x70\x81\xa1n\xa1k", big)
        self.assertEqual(len(msgpack.unpackb(big)["Entries"]), 70000)

    def test_no_recursion(self):
        st, h, data = self.ais.req("GET", bpath(), lso("t-aisemu/", flags=str(2048)))
        self.assertEqual(st, 200, data)
        _, _, ents = decode_page(h, data, False)
        self.assertIn(("t-aisemu/l1200/", 0, 256), ents)


class TestObjects(Base):
    def test_put_get_head_delete_via_redirects(self):
        key = RUN + "obj/a b+c"
        qkey = urllib.parse.quote(key)
        body = os.urandom(300 * 1024)          # over the 256 KiB Go drains: proxy closes
        st, h, _ = self.ais.req("PUT", f"/v1/objects/{BUCKET}/{qkey}?provider=aws", body)
        self.assertEqual(st, 307)
        loc = urllib.parse.urlsplit(h["Location"])
        smap = json.loads(self.ais.req("GET", "/v1/cluster?what=smap")[2])
        tports = {int(n["public_net"]["daemon_port"]) for n in smap["tmap"].values()}
        self.assertIn(loc.port, tports)                          # to a target, not the proxy
        self.assertNotEqual(loc.port, urllib.parse.urlsplit(self.endpoint).port)
        self.assertEqual(loc.path, f"/v1/objects/{BUCKET}/{qkey}")
        self.assertIn("provider=aws", loc.query)
        self.assertEqual(self.follow("PUT", h["Location"], body)[0], 200)

        st, h, _ = self.ais.req("GET", f"/v1/objects/{BUCKET}/{qkey}?provider=aws")
        self.assertEqual(st, 301)
        st, gh, got = self.follow("GET", h["Location"])
        self.assertEqual((st, got), (200, body))
        self.assertEqual(int(gh["Content-Length"]), len(body))

        t = Ais(h["Location"])
        u = urllib.parse.urlsplit(h["Location"])
        st, rh, part = t.req("GET", u.path + "?" + u.query, headers={"Range": "bytes=10-19"})
        t.close()
        self.assertEqual((st, part), (206, body[10:20]))

        st, h, _ = self.ais.req("HEAD", f"/v1/objects/{BUCKET}/{qkey}?provider=aws")
        self.assertEqual(st, 307)
        st, hh, data = self.follow("HEAD", h["Location"])
        self.assertEqual((st, data), (200, b""))
        self.assertEqual(int(hh["Content-Length"]), len(body))
        self.assertEqual(hh["Ais-Checksum-Type"], "md5")

        st, _, _ = self.delete(key)
        self.assertEqual(st, 200)
        self.assertEqual(s3_keys(S3, key), [])

        st, h, _ = self.ais.req("HEAD", f"/v1/objects/{BUCKET}/{qkey}?provider=aws")
        self.assertEqual(st, 307)
        self.check_error(self.follow("HEAD", h["Location"]), 404, "HEAD", "/v1/objects/", "does not exist")
        st, h, _ = self.ais.req("GET", f"/v1/objects/{BUCKET}/{qkey}?provider=aws")
        self.check_error(self.follow("GET", h["Location"]), 404, "GET", "/v1/objects/", "does not exist")
        self.check_error(self.delete(key), 404, "DELETE", "/v1/objects/", "does not exist")

    def test_small_put_keeps_connection(self):
        st, h, _ = self.ais.req("PUT", f"/v1/objects/{BUCKET}/{RUN}small?provider=aws", b"x")
        self.assertEqual(st, 307)
        self.assertNotEqual((h.get("Connection") or "").lower(), "close")
        self.assertIsNotNone(self.ais.conn)

    def test_missing_bucket(self):
        st = self.ais.req("HEAD", "/v1/buckets/vantage-no-such-bucket?provider=aws")
        self.check_error(st, 404, "HEAD", "/v1/buckets/", "does not exist")
        self.check_error(self.ais.req("GET", bpath("vantage-no-such-bucket"), lso("")), 404, "GET",
                         "/v1/buckets/vantage-no-such-bucket", "does not exist")


class TestValidation(Base):
    def test_list_value_errors(self):
        cases = [
            (lso(PREFIX, inv_name="x"), "unknown field"),
            (lso(PREFIX, flags=0), "flags"),
            (lso(PREFIX, flags="abc"), "flags"),
            (lso(PREFIX, pagesize="10"), "pagesize"),
            (lso(PREFIX, pagesize=1.5), "pagesize"),
            ({"action": "list", "name": "", "value": "x"}, "object"),
            ({"action": "nonsense", "name": "", "value": None}, "invalid action"),
            ("{not json", "JSON"),
        ]
        for body, msg in cases:
            with self.subTest(body=body):
                self.check_error(self.ais.req("GET", bpath(), body), 400, "GET",
                                 f"/v1/buckets/{BUCKET}", msg)

    def test_nbi_list_errors(self):
        self.check_error(self.ais.req("GET", bpath(), lso(PREFIX, flags=NBI, start_after="x")),
                         400, "GET", "/v1/buckets/", "start_after")
        self.check_error(self.ais.req("GET", bpath(), lso(PREFIX, flags=str(32768 | 512))),
                         400, "GET", "/v1/buckets/", "flags")
        self.check_error(self.ais.req("GET", bpath(), lso(PREFIX, flags=NBI), {"Ais-Inv-Name": "a..b"}),
                         400, "GET", "/v1/buckets/", "invalid")

    def test_create_errors(self):
        def create(v):
            return self.ais.req("POST", bpath(), {"action": "create-inventory", "name": "", "value": v})
        for v, msg in [({"prefix": PREFIX, "bogus": 1}, "unknown field"),
                       ({"prefix": PREFIX, "flags": 0}, "flags"),
                       ({"prefix": PREFIX, "continuation_token": "x"}, "continuation_token"),
                       ({"prefix": PREFIX, "start_after": "x"}, "start_after"),
                       ({"prefix": PREFIX, "names_per_chunk": 1}, "names_per_chunk"),
                       ({"prefix": PREFIX, "names_per_chunk": 640001}, "names_per_chunk"),
                       ({"prefix": PREFIX, "flags": "1"}, "flags"),
                       ({"prefix": PREFIX, "force": "yes"}, "force"),
                       ({"prefix": PREFIX, "name": "bad name"}, "invalid")]:
            with self.subTest(value=v):
                self.check_error(create(v), 400, "POST", f"/v1/buckets/{BUCKET}", msg)

    def test_job_query_errors(self):
        self.check_error(self.ais.req("GET", "/v1/cluster?what=status", {"id": "", "kind": ""}),
                         400, "GET", "/v1/cluster")
        for what in ("status", "qryxstats"):
            self.check_error(self.ais.req("GET", f"/v1/cluster?what={what}",
                                          {"id": "inv-doesnotexist", "kind": "create-inventory"}),
                             404, "GET", "/v1/cluster")


def wait_job(t, xid, timeout=120):
    end = time.monotonic() + timeout
    while True:
        st, _, data = t.ais.req("GET", "/v1/cluster?what=status", {"id": xid, "kind": "create-inventory"})
        t.assertEqual(st, 200, data)
        s = json.loads(data)
        t.assertEqual(set(s), {"kind", "uuid", "err", "end_time", "aborted"})
        t.assertEqual((s["kind"], s["uuid"]), ("create-inventory", xid))
        if s["end_time"]:
            return s
        t.assertLess(time.monotonic(), end, f"job {xid} still running")
        time.sleep(0.1)     # polling the job's own status (the readiness check)


def parse_rfc3339(s):
    m = re.match(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$", s)
    assert m, s
    base = datetime.fromisoformat(m.group(1) + ("+00:00" if m.group(3) == "Z" else m.group(3)))
    return int(base.timestamp()) * 10**9 + int((m.group(2) or "0").ljust(9, "0"))


class TestNBI(Base):
    private = ()

    def create(self, value):
        return self.ais.req("POST", bpath(), {"action": "create-inventory", "name": "", "value": value})

    def show(self, name=""):
        st, h, data = self.ais.req("GET", bpath(), {"action": "show-inventory", "name": name, "value": None})
        self.assertEqual(st, 200, data)
        return json.loads(data)

    def destroy(self, name=""):
        st, _, data = self.ais.req("DELETE", bpath(), {"action": "destroy-inventory", "name": name, "value": None})
        self.assertEqual((st, data), (200, b""))

    def setUp(self):
        super().setUp()
        self.emu("POST", "config", {"nbi_page_delay_ms": 0})
        self.destroy()

    def tearDown(self):
        self.emu("POST", "config", {"nbi_page_delay_ms": 0})
        self.emu("DELETE", "fault")
        self.destroy()
        super().tearDown()

    def s3_calls(self):
        return self.emulator.cluster.backend.stats()["calls"].get("ListObjectsV2", 0)

    def test_lifecycle(self):
        self.assertEqual(self.show(), {})
        self.check_error(self.ais.req("GET", bpath(), lso(PREFIX, flags=NBI)), 400, "GET", "/v1/buckets/",
                         "no inventories")
        self.emu("POST", "config", {"nbi_page_delay_ms": 30})
        st, h, data = self.create({"prefix": PREFIX, "names_per_chunk": 50, "pagesize": 100})
        self.assertEqual(st, 200, data)
        xid = data.decode()
        self.assertRegex(xid, r"^inv-[A-Za-z0-9_-]{9,}$")
        self.assertTrue(h["Content-Type"].startswith("text/plain"))
        # a second create while the first runs: limited coexistence
        self.check_error(self.create({"prefix": PREFIX, "force": True}), 409, "POST", "/v1/buckets/")
        s = wait_job(self, xid)
        self.assertEqual((s["err"], s["aborted"]), ("", False))
        self.emu("POST", "config", {"nbi_page_delay_ms": 0})
        # every target walked the prefix itself: 3 walks of >= 12 pages of 100
        walks = self.s3_list_calls(xid)
        self.assertEqual(walks % 3, 0)
        self.assertGreaterEqual(walks, 36)

        st, _, data = self.ais.req("GET", "/v1/cluster?what=qryxstats", {"id": xid})
        self.assertEqual(st, 200)
        snaps = json.loads(data)
        self.assertEqual(len(snaps), 3)
        starts, ends, locs = [], [], 0
        for tid, arr in snaps.items():
            self.assertEqual(len(arr), 1)
            sn = arr[0]
            self.assertEqual((sn["id"], sn["kind"], sn["aborted"]), (xid, "create-inventory", False))
            starts.append(parse_rfc3339(sn["start-time"]))
            ends.append(parse_rfc3339(sn["end-time"]))
            locs += int(sn["stats"]["loc-objs"])
            self.assertIsInstance(sn["stats"]["loc-objs"], str)
        self.assertEqual(locs, N)
        self.assertLess(max(starts), min(ends))
        self.assertLessEqual(max(ends), s["end_time"])

        self.check_error(self.create({"prefix": PREFIX}), 400, "POST", "/v1/buckets/", "already exists")
        shown = self.show()
        key = f"aws/@#/{BUCKET}/{xid}"
        self.assertEqual(list(shown), [key])
        info = shown[key]
        self.assertEqual((info["name"], info["obj_name"], info["bucket"]), (xid, key, f"s3://{BUCKET}"))
        self.assertEqual((info["ntotal"], info["nat"], info["prefix"]), (N, 3, PREFIX))
        self.assertGreaterEqual(info["chunks"], 3 * 3)        # 100-key pages, chunks of >= 50 names
        self.assertLessEqual(info["started"], info["finished"])
        self.assertEqual(self.show(xid), shown)
        self.assertEqual(self.show("no-such-inventory"), {})

        before = self.s3_calls()
        pages = self.list_all(PREFIX, pagesize=0, mp=True, flags=NBI, inv=xid)
        self.assertEqual([e[0] for p in pages for e in p[2]], EXPECTED)
        # pagesize 100 over 3 targets: each returns up to round(1.25*round(100/3)) = 41
        pages = self.list_all(PREFIX, pagesize=100, mp=False, flags=NBI)
        sizes = [len(p[2]) for p in pages]
        self.assertEqual([e[0] for p in pages for e in p[2]], EXPECTED)
        self.assertTrue(all(s <= 123 for s in sizes), sizes)
        self.assertNotEqual(set(sizes[:-1]), {100}, sizes)           # approximate, not 100
        for uuid, tok, ents in pages[:-1]:
            self.assertEqual(tok, ents[-1][0])                       # tokens are object names
        self.assertTrue(all(e[2] == 0 and e[1] == 1 for p in pages for e in p[2]))
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, pagesize=5, flags=NBI))
        self.assertEqual(json.loads(data)["entries"][0]["checksum"], "9dd4e461268c8034f5c8564e155c67a6")
        self.assertEqual(self.s3_calls(), before)                    # NBI never touches S3

        self.check_error(self.ais.req("GET", bpath(), lso(PREFIX, flags=NBI), {"Ais-Inv-Name": "nope"}),
                         404, "GET", "/v1/buckets/")
        self.destroy(xid)
        self.assertEqual(self.show(), {})
        self.destroy(xid)                                            # idempotent
        self.check_error(self.ais.req("GET", bpath(), lso(PREFIX, flags=NBI)), 400, "GET", "/v1/buckets/",
                         "no inventories")

    def test_snapshot_is_frozen(self):
        """Objects added after creation show only in the regular listing; deleted ones stay in NBI."""
        pfx = RUN + "frozen/"
        keys = [f"{pfx}k{i:03d}" for i in range(40)]
        for k in keys:
            S3.put_object(Bucket=BUCKET, Key=k, Body=b"f")
        st, _, xid = self.create({"prefix": pfx, "names_per_chunk": 5, "pagesize": 7})
        self.assertEqual(st, 200)
        wait_job(self, xid.decode())
        self.assertEqual(self.delete(keys[3])[0], 200)
        self.put(pfx + "k999-added", b"a")
        nbi = [e[0] for p in self.list_all(pfx, pagesize=4, flags=NBI) for e in p[2]]
        self.assertEqual(nbi, keys)
        regular = [e[0] for p in self.list_all(pfx) for e in p[2]]
        self.assertEqual(regular, keys[:3] + keys[4:] + [pfx + "k999-added"])

    def test_named_force_and_default_chunks(self):
        st, _, x1 = self.create({"prefix": PREFIX, "name": "vt-inv.1"})
        self.assertEqual(st, 200)
        wait_job(self, x1.decode())
        self.assertEqual(list(self.show()), [f"aws/@#/{BUCKET}/vt-inv.1"])
        st, _, x2 = self.create({"prefix": PREFIX, "force": True})
        self.assertEqual(st, 200, x2)
        wait_job(self, x2.decode())
        self.assertEqual(list(self.show()), [f"aws/@#/{BUCKET}/{x2.decode()}"])
        # default 20,000 names per chunk: with pagesize 0 each target returns its whole share
        pages = self.list_all(PREFIX, flags=NBI)
        self.assertEqual(len(pages), 1)
        self.assertEqual(len(pages[0][2]), N)

    def test_destroy_aborts_running_creation(self):
        self.emu("POST", "config", {"nbi_page_delay_ms": 300})
        st, _, xid = self.create({"prefix": PREFIX, "pagesize": 100})
        self.assertEqual(st, 200)
        self.destroy()
        s = wait_job(self, xid.decode())
        self.assertTrue(s["aborted"])
        self.assertNotEqual(s["err"], "")
        self.assertEqual(self.show(), {})

    def test_failed_job(self):
        self.emu("POST", "fault", {"fault": "nbi-fail", "bucket": BUCKET})
        st, _, xid = self.create({"prefix": PREFIX})
        self.assertEqual(st, 200)
        s = wait_job(self, xid.decode())
        self.assertFalse(s["aborted"])
        self.assertIn("injected", s["err"])
        self.assertEqual(self.show(), {})

    def test_empty_inventory(self):
        st, _, xid = self.create({"prefix": RUN + "nothing/"})
        self.assertEqual(st, 200)
        wait_job(self, xid.decode())
        info = self.show()[f"aws/@#/{BUCKET}/{xid.decode()}"]
        self.assertNotIn("ntotal", info)                     # NBIMeta fields are omitempty
        self.assertEqual(info["nat"], 3)
        st, h, data = self.ais.req("GET", bpath(), lso(RUN + "nothing/", flags=NBI))
        self.assertEqual(st, 200)
        self.assertEqual(decode_page(h, data, False)[1:], ("", []))

    def test_no_recursion_view(self):
        """NBI's non-recursive view of a frozen snapshot = S3's delimiter view (4.4+)."""
        pfx = RUN + "tree/"
        for k in ("a/1", "a/2", "a/b/3", "b/4", "c", "d/e/f/5", "e", "f/6", "f/7", "g"):
            S3.put_object(Bucket=BUCKET, Key=pfx + k, Body=b"t")
        st, _, xid = self.create({"prefix": pfx})
        self.assertEqual(st, 200)
        wait_job(self, xid.decode())
        flags = str((1 << 15) | 2048)
        for ps in (0, 1, 2):
            nbi = [e for p in self.list_all(pfx, flags=flags, pagesize=ps) for e in p[2]]
            regular = [e for p in self.list_all(pfx, flags="2048") for e in p[2]]
            self.assertEqual([e[0] for e in nbi], [pfx + n for n in ("a/", "b/", "c", "d/", "e", "f/", "g")])
            self.assertEqual(nbi, regular)


class TestOldVersions(Base):
    def test_42_has_no_nbi(self):
        emu = PrivateEmu("--ais-version", "4.2")
        try:
            c = Ais(emu.endpoint)
            st, _, data = c.req("GET", "/v1/daemon?what=software_version")
            self.assertTrue(data.startswith(b"4.2."), data)
            self.check_error(c.req("POST", bpath(), {"action": "create-inventory", "name": "",
                                                     "value": {"prefix": PREFIX}}),
                             400, "POST", "/v1/buckets/", "invalid action")
            # 4.2 knows no NBI flag: it lists regularly, walking S3
            st, h, data = c.req("GET", bpath(), lso(PREFIX, flags=NBI, pagesize=7))
            self.assertEqual(len(decode_page(h, data, False)[2]), 7)
            self.assertEqual(emu.cluster.backend.stats()["calls"].get("ListObjectsV2"), 1)
            c.close()
        finally:
            emu.close()

    def test_43_refuses_no_recursion(self):
        emu = PrivateEmu("--ais-version", "4.3")
        try:
            c = Ais(emu.endpoint)
            self.check_error(c.req("GET", bpath(), lso(PREFIX, flags=str((1 << 15) | 2048))),
                             400, "GET", "/v1/buckets/", "no-recursion")
            c.close()
        finally:
            emu.close()


class TestFaults(Base):
    private = ("--startup-delay", "0")

    def test_health_unavailable_fault(self):
        self.emu("POST", "fault", {"fault": "health-unavailable", "count": 2})
        self.check_error(self.ais.req("GET", "/v1/health?prr=true"), 503, "GET", "/v1/health")
        self.check_error(self.ais.req("GET", "/v1/health"), 503, "GET", "/v1/health")
        self.assertEqual(self.ais.req("GET", "/v1/health")[0], 200)

    def tearDown(self):
        self.emu("DELETE", "fault")
        super().tearDown()

    def test_malformed_msgpack(self):
        self.emu("POST", "fault", {"fault": "list-malformed", "variant": "msgpack-truncated",
                                   "bucket": BUCKET})
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, pagesize=10), {"Accept": "application/msgpack"})
        self.assertEqual(st, 200)
        with self.assertRaises(Exception):
            msgpack.unpackb(data, raw=False)
        st, h, data = self.ais.req("GET", bpath(), lso(PREFIX, pagesize=10), {"Accept": "application/msgpack"})
        self.assertEqual(len(decode_page(h, data, True)[2]), 10)

    def test_list_error(self):
        self.emu("POST", "fault", {"fault": "list-error", "status": 429, "bucket": "vantage-other"})
        self.assertEqual(self.ais.req("GET", bpath(), lso(PREFIX, pagesize=1))[0], 200)
        self.emu("POST", "fault", {"fault": "list-error", "status": 429, "bucket": BUCKET})
        self.check_error(self.ais.req("GET", bpath(), lso(PREFIX)), 429, "GET", "/v1/buckets/", "injected")


if __name__ == "__main__":
    unittest.main(verbosity=2)
