#!/usr/bin/python3
"""aisemu: an EMULATOR of an NVIDIA AIStore cluster's HTTP API, a test fixture of vantage.

It is not AIStore. It follows the wire spec docs/ais-rest-api.md (sections 0-11 and
14) closely enough for an AIS client to be tested, and for vantage's demo to run,
on a machine where AIStore cannot run. Its S3 backend is a real S3 server (the
local Ceph RGW), so regular listings pay RGW's real latency, one ListObjectsV2 per
page; everything the cluster itself would do (NBI snapshots on several targets,
the min-token merge, jobs, redirects) is simulated in this one process.

Two HTTP servers: the proxy (default 127.0.0.1:51080) answers the API; object
requests are redirected (301 GET, 307 PUT/HEAD/DELETE) to the target port
(default 51081), where N simulated targets share one listener. Anything under
/emulator/ is outside the AIS API: statistics, runtime settings and fault knobs.

Run:  /usr/bin/python3 aisemu.py [--host H] [--port P] [--target-port T] ...
Environment: AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION.
"""

import argparse
import base64
import collections
import hashlib
import json
import os
import secrets
import socket
import sys
import threading
import time
import traceback
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import codec  # noqa: E402
import nbi  # noqa: E402
import s3  # noqa: E402
from codec import BadRequest  # noqa: E402

EMULATOR = "aisemu"
CTRL_BODY_MAX = 1 << 20          # control messages (JSON) we accept
PUT_BODY_MAX = 512 << 20         # object bodies held in memory for a signed S3 PUT
GO_DRAIN_MAX = 256 << 10         # Go's net/http discards at most this much unread body
CHUNK_THRESHOLD = 2048           # Go sends Content-Length only for bodies below this
MSGP_BUF = 32 << 10              # msgp's streaming buffer: the size of each chunk
SESSIONS_MAX = 256               # regular-list jobs kept for the repeated-request rule
SESSION_IDLE_S = 180
LINGER_S = 2.0                   # how long a closing proxy discards an unread PUT body

# list-object flags (section 11)
LS_CACHED, LS_MISSING, LS_DELETED, LS_ARCHDIR = 1, 2, 4, 8
LS_NAME_ONLY, LS_NAME_SIZE = 16, 32
LS_NOT_CACHED, LS_ONLY_REMOTE_PROPS, LS_NO_RECURSION, LS_DIFF = 512, 1024, 2048, 4096
LS_NO_DIRS, LS_IS_S3, LS_NBI = 8192, 16384, 32768
NBI_BAD_FLAGS = {LS_NOT_CACHED: "not-cached", LS_MISSING: "missing", LS_DELETED: "deleted",
                 LS_ARCHDIR: "arch-dir", LS_ONLY_REMOTE_PROPS: "only-remote-props", LS_DIFF: "diff"}
CREATE_BAD_FLAGS = LS_CACHED | LS_NOT_CACHED | LS_MISSING | LS_DELETED | LS_ARCHDIR | 64 | 128 | 256 | \
    LS_ONLY_REMOTE_PROPS | LS_NO_RECURSION | LS_DIFF | LS_IS_S3
REGULAR_UNEMULATED = LS_CACHED | LS_MISSING | LS_DELETED | LS_ARCHDIR | LS_NOT_CACHED | LS_DIFF
KNOWN_PROPS = {"name", "size", "version", "checksum", "atime", "cached", "target_url", "status",
               "copies", "ec", "custom", "location"}
MAX_INV_NAME = 64

_ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


def gen_uuid():
    """A shortid like cos.GenUUID: >= 9 chars of [A-Za-z0-9_-], starting with a letter."""
    tail = "".join(secrets.choice(_ALNUM + "-_") for _ in range(9))
    return secrets.choice(_ALNUM[:52]) + tail


def parse_version(v):
    parts = v.split(".")
    try:
        return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
    except ValueError:
        raise ValueError(f"AIS version {v!r}: expecting major.minor, e.g. 5.0") from None


def rfc3339nano(ns, offset_min):
    """Go's time.Format(RFC3339Nano): trailing zeros of the fraction trimmed, Z for UTC."""
    if ns == 0:
        return "0001-01-01T00:00:00Z"
    secs, frac = divmod(ns + offset_min * 60 * 1_000_000_000, 1_000_000_000)
    t = time.gmtime(secs)
    s = time.strftime("%Y-%m-%dT%H:%M:%S", t)
    if frac:
        s += "." + f"{frac:09d}".rstrip("0")
    if offset_min == 0:
        return s + "Z"
    sign = "+" if offset_min > 0 else "-"
    return s + f"{sign}{abs(offset_min) // 60:02d}:{abs(offset_min) % 60:02d}"


def check_alpha_plus(s, tag):
    if len(s) > MAX_INV_NAME:
        raise BadRequest(f"{tag} is too long: {len(s)} > {MAX_INV_NAME}(max length)")
    for i, c in enumerate(s):
        if c.isascii() and (c.isalnum() or c in "-_"):
            continue
        if c != "." or s[i + 1:i + 2] == ".":
            raise BadRequest(f"{tag} is invalid: may only contain letters, numbers, dashes (-), "
                             "underscores (_), and dots (.)")


class AisError(BadRequest):
    pass


class Session:
    """A regular-list job on its designated target: holds the last page it served."""
    __slots__ = ("key", "result", "touched")

    def __init__(self, key, result):
        self.key = key
        self.result = result
        self.touched = time.monotonic()


class Cluster:
    """All state of the emulated cluster; HTTP handlers call into it."""

    def __init__(self, args, backend):
        self.args = args
        self.backend = backend
        self.lock = threading.Lock()
        self.host = args.host
        self.pport = args.port
        self.tport = args.target_port
        self.proxy_id = f"{EMULATOR}-p1"
        self.tids = [f"{EMULATOR}-t{i + 1}" for i in range(args.targets)]
        self.smap_uuid = f"{EMULATOR}-" + gen_uuid()[:8]
        self.smap_created = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
        self.smap_version = 3 + args.targets
        self.boot_ns = time.time_ns()
        self.boot_mono = time.monotonic()
        self.cfg = {
            "version": args.ais_version,
            "s3_list_delay_ms": args.s3_list_delay_ms,
            "nbi_page_delay_ms": 0,
            "startup_delay_s": args.startup_delay,
            "status_ttl_s": 300,
            "snaps_ttl_s": 3600,
            "time_offset_min": args.time_offset_min,
            "opaque_tokens": 0,
            "msgpack_chunked": 1,
        }
        self.version_t = parse_version(args.ais_version)
        self.bmd = set()                        # remote buckets known to the cluster
        self.sessions = collections.OrderedDict()
        self.inventories = {}                   # bck -> {name: Inventory}
        self.jobs = collections.OrderedDict()   # xid -> CreateJob
        self.faults = {}                        # name -> dict(count=..., ...)
        self.counters = collections.Counter()
        backend.list_delay = args.s3_list_delay_ms / 1000.0

    # ---- settings, faults, statistics -----------------------------------

    def set_config(self, upd):
        if not isinstance(upd, dict):
            raise BadRequest("expecting a JSON object of settings")
        with self.lock:
            for k, v in upd.items():
                if k not in self.cfg:
                    raise BadRequest(f"unknown setting {k!r}; known: {', '.join(sorted(self.cfg))}")
                if k == "version":
                    if not isinstance(v, str):
                        raise BadRequest("version: expecting a string like \"5.0\"")
                    try:
                        self.version_t = parse_version(v)
                    except ValueError as e:
                        raise BadRequest(str(e)) from None
                elif isinstance(v, bool) or not isinstance(v, (int, float)) or v < -1440 or v > 1e6:
                    raise BadRequest(f"{k}: expecting a number")
                self.cfg[k] = v
            self.backend.list_delay = self.cfg["s3_list_delay_ms"] / 1000.0
            return dict(self.cfg)

    FAULTS = {
        "nbi-fail": "the next create-inventory job(s) fail after `after_pages` S3 pages (default 1)",
        "list-error": "the next list request(s) answer `status` (default 503) in the AIS error shape",
        "list-malformed": "the next list reply(ies) are broken; `variant`: msgpack-truncated, "
                          "msgpack-huge-array, msgpack-wrong-type, msgpack-not-map, json-truncated, "
                          "json-wrong-type, json-garbage",
        "list-token-repeat": "the next list reply(ies) return the request's own token (no progress)",
        "health-unavailable": "the next health probe(s) answer 503",
        "object-error": "the next object request(s) at the target answer `status` (default 500)",
    }
    MALFORMED = ("msgpack-truncated", "msgpack-huge-array", "msgpack-wrong-type", "msgpack-not-map",
                 "json-truncated", "json-wrong-type", "json-garbage")

    def arm_fault(self, spec):
        if not isinstance(spec, dict) or spec.get("fault") not in self.FAULTS:
            raise BadRequest("expecting {\"fault\": <name>, \"count\": n, ...}; faults: "
                             + "; ".join(f"{k}: {v}" for k, v in self.FAULTS.items()))
        f = dict(spec)
        name = f.pop("fault")
        cnt = f.get("count", 1)
        if isinstance(cnt, bool) or not isinstance(cnt, int) or cnt < 1:
            raise BadRequest("count: expecting a positive integer")
        f["count"] = cnt
        if name == "list-malformed":
            f.setdefault("variant", "msgpack-truncated")
            if f["variant"] not in self.MALFORMED:
                raise BadRequest(f"variant: one of {', '.join(self.MALFORMED)}")
        if "status" in f and (isinstance(f["status"], bool) or not isinstance(f["status"], int)
                              or not 400 <= f["status"] <= 599):
            raise BadRequest("status: expecting an HTTP error status 400..599")
        if "bucket" in f and (not isinstance(f["bucket"], str) or name == "health-unavailable"):
            raise BadRequest("bucket: a bucket name (not for health-unavailable)")
        if "after_pages" in f and (isinstance(f["after_pages"], bool) or not isinstance(f["after_pages"], int)
                                   or f["after_pages"] < 1):
            raise BadRequest("after_pages: expecting a positive integer")
        with self.lock:
            self.faults[name] = f
            return dict(self.faults)

    def take_fault(self, name, bck=None):
        """Consume one use of an armed fault; returns its parameters or None. A fault
        armed with "bucket" fires only for requests on that bucket, so tests sharing
        one emulator don't consume each other's faults."""
        with self.lock:
            f = self.faults.get(name)
            if not f or (f.get("bucket") and f["bucket"] != bck):
                return None
            f["count"] -= 1
            if f["count"] <= 0:
                del self.faults[name]
            return dict(f)

    def clear_faults(self):
        with self.lock:
            self.faults.clear()

    def count(self, what):
        with self.lock:
            self.counters[what] += 1

    def stats(self):
        with self.lock:
            reqs = dict(self.counters)
        return {"emulator": EMULATOR, "requests": reqs, "s3": self.backend.stats()}

    def reset_stats(self):
        with self.lock:
            self.counters.clear()
        self.backend.reset_stats()

    # ---- identity --------------------------------------------------------

    def ready(self):
        return time.monotonic() - self.boot_mono >= self.cfg["startup_delay_s"]

    def software_version(self):
        major, minor = self.version_t
        return f"{major}.{minor}.0.{EMULATOR}"

    def snode(self, did):
        is_proxy = did == self.proxy_id
        port = self.pport if is_proxy else self.tport
        net = {"node_ip_addr": self.host, "daemon_port": str(port),
               "direct_url": f"http://{self.host}:{port}"}
        digest = int.from_bytes(hashlib.blake2b(did.encode(), digest_size=8).digest(), "little")
        return {"public_net": net, "intra_control_net": dict(net), "intra_data_net": dict(net),
                "daemon_type": "proxy" if is_proxy else "target", "daemon_id": did,
                "flags": 0, "id_digest": digest}

    def smap(self):
        px = self.snode(self.proxy_id)
        return {"tmap": {t: self.snode(t) for t in self.tids}, "pmap": {self.proxy_id: px},
                "proxy_si": px, "uuid": self.smap_uuid, "creation_time": self.smap_created,
                "version": str(self.smap_version)}

    # ---- buckets ---------------------------------------------------------

    def resolve_bucket(self, name, query):
        """Provider/namespace from the query; the first access HEADs the S3 bucket (BMD add)."""
        prov = query.get("provider", "")
        prov = {"s3": "aws", "": "ais"}.get(prov, prov)
        if prov not in ("ais", "aws", "gcp", "azure", "oci", "ht"):
            raise AisError(f"invalid backend provider \"{prov}\"")
        if not name:
            raise AisError("missing bucket name")
        try:
            check_alpha_plus(name, f"bucket name \"{name}\"")
        except BadRequest as e:
            raise AisError(str(e)) from None
        if prov != "aws" or query.get("namespace"):
            cname = f"{'s3' if prov == 'aws' else prov}://{name}"
            raise AisError(f"bucket \"{cname}\" does not exist ({EMULATOR} serves only aws buckets "
                           "of the global namespace, backed by its S3 endpoint)", 404, "ErrBckNotFound")
        if name in self.bmd:
            return name
        try:
            self.backend.head_bucket(name)
        except s3.S3Error as e:
            if e.status == 404:
                raise AisError(f"aws bucket \"s3://{name}\" does not exist", 404,
                               "ErrRemoteBckNotFound") from None
            raise AisError(f"s3://{name}: {e}", e.status if e.status >= 400 else 502) from None
        with self.lock:
            self.bmd.add(name)
        return name

    def s3_error(self, e, bck, what):
        """An S3 failure as AIS reports it; a vanished bucket leaves the BMD."""
        if e.code == "NoSuchBucket":
            with self.lock:
                self.bmd.discard(bck)
            return AisError(f"aws bucket \"s3://{bck}\" does not exist", 404, "ErrRemoteBckNotFound")
        status = e.status if 400 <= e.status <= 599 else 502
        return AisError(f"{what}: {e}", status)

    # ---- regular listing -------------------------------------------------

    @staticmethod
    def norm_props(props, flags):
        props = props.rstrip(",")
        names = [p for p in props.split(",") if p] if props else []
        for p in names:
            if p not in KNOWN_PROPS:
                raise AisError(f"invalid object property \"{p}\" (expecting one of: "
                               f"{', '.join(sorted(KNOWN_PROPS))})")
        if not names and not flags & LS_CACHED:
            return ["name", "size", "cached"], flags | LS_NAME_SIZE
        if names == ["name"]:
            return names, flags | LS_NAME_ONLY
        if names == ["name", "size"]:
            return names, flags | LS_NAME_SIZE
        return names, flags

    def list_regular(self, bck, m):
        flags = m["flags"]
        if flags & REGULAR_UNEMULATED:
            raise AisError(f"{EMULATOR}: list flags 0x{flags & REGULAR_UNEMULATED:x} (in-cluster "
                           "object state) are not emulated", 501)
        props, flags = self.norm_props(m["props"], flags)
        if m["start_after"]:
            raise AisError(f"start_after is not supported for remote buckets (s3://{bck})")
        pagesize = m["pagesize"]
        if pagesize < 0:
            raise AisError(f"invalid page size {pagesize}")
        max_keys = 1000 if pagesize == 0 or pagesize > 1000 else pagesize
        prefix = m["prefix"]
        wire_token = m["continuation_token"]
        token = self.unwrap_token(wire_token)
        uuid = m["uuid"] or gen_uuid()
        key = (bck, prefix, wire_token, max_keys, flags, tuple(props))
        with self.lock:
            sess = self.sessions.get(uuid)
            if sess is not None and sess.key == key:
                # repeated request: the target still holds this page (correction 5)
                sess.touched = time.monotonic()
                self.counters["list-regular-repeat"] += 1
                return (uuid,) + sess.result
        delim = "/" if flags & LS_NO_RECURSION else ""
        try:
            objs, dirs, nxt, _ = self.backend.list_objects_v2(bck, prefix, token, max_keys, delim,
                                                              purpose="list", job=uuid)
        except s3.S3Error as e:
            raise self.s3_error(e, bck, f"s3://{bck}") from None
        name_only = bool(flags & LS_NAME_ONLY)
        want_cs = "checksum" in props
        want_dirs = not flags & LS_NO_DIRS
        ents = []
        for name, size, etag in objs:
            if name.endswith("/") and size == 0:
                if want_dirs:
                    ents.append((name, 0, "", nbi.ENTRY_IS_DIR))
                continue
            cs = etag if want_cs and etag and "-" not in etag else ""
            ents.append((name, 0 if name_only else size, cs, 0))
        if dirs and want_dirs:
            ents.extend((d, 0, "", nbi.ENTRY_IS_DIR) for d in dirs)
            ents.sort(key=lambda e: e[0])
        result = (self.wrap_token(nxt), ents)
        with self.lock:
            self.sessions[uuid] = Session(key, result)
            self.sessions.move_to_end(uuid)
            now = time.monotonic()
            while self.sessions:
                k, s = next(iter(self.sessions.items()))
                if len(self.sessions) > SESSIONS_MAX or now - s.touched > SESSION_IDLE_S:
                    del self.sessions[k]
                else:
                    break
        return (uuid,) + result

    # With opaque_tokens set, S3's tokens are wrapped so that they look like no key
    # name: a client that builds tokens instead of echoing them then fails here, as it
    # would against an S3 whose tokens are opaque (correction 7). Off: pass-through.
    TOKEN_TAG = "aisemu1."
    TOKEN_NONCE = 6              # random bytes appended, so equal S3 tokens differ on the wire

    def wrap_token(self, tok):
        if not tok or not self.cfg["opaque_tokens"]:
            return tok
        raw = tok.encode("utf-8", "surrogatepass") + secrets.token_bytes(self.TOKEN_NONCE)
        return self.TOKEN_TAG + base64.urlsafe_b64encode(raw).decode()

    def unwrap_token(self, tok):
        if not tok or not self.cfg["opaque_tokens"]:
            return tok
        try:
            if not tok.startswith(self.TOKEN_TAG):
                raise ValueError
            raw = base64.b64decode(tok[len(self.TOKEN_TAG):].encode("ascii"), altchars=b"-_", validate=True)
            if len(raw) <= self.TOKEN_NONCE:
                raise ValueError
            return raw[:-self.TOKEN_NONCE].decode("utf-8", "surrogatepass")
        except (ValueError, UnicodeError):
            raise AisError("InvalidArgument: the continuation token provided is incorrect "
                           "(echo the token of the previous page unchanged)") from None

    # ---- NBI -------------------------------------------------------------

    def nbi_supported(self):
        return self.version_t >= (4, 3)

    def list_nbi(self, bck, m, inv_hdr):
        flags = m["flags"]
        if m["start_after"]:
            raise AisError("invalid list-objects request with native bucket inventory: "
                           "start_after is not supported")
        bad = [n for f, n in NBI_BAD_FLAGS.items() if flags & f]
        if flags & LS_NO_RECURSION and self.version_t == (4, 3):
            bad.append("no-recursion")
        if bad:
            raise AisError("invalid list-objects request with native bucket inventory: "
                           f"flags {','.join(bad)} are not supported")
        self.norm_props(m["props"], flags)
        if m["pagesize"] < 0:
            raise AisError(f"invalid page size {m['pagesize']}")
        if inv_hdr:
            check_alpha_plus(inv_hdr, "inventory name")
        with self.lock:
            invs = self.inventories.get(bck, {})
            if inv_hdr:
                inv = invs.get(inv_hdr)
                if inv is None:
                    raise AisError(f"inventory \"{inv_hdr}\" of bucket s3://{bck} does not exist "
                                   f"(object \"aws/@#/{bck}/{inv_hdr}\" not found)", 404, "ErrNotFound")
            elif not invs:
                raise AisError(f"bucket s3://{bck} has no inventories")
            elif len(invs) > 1:
                raise AisError(f"missing \"Ais-Inv-Name\" header: bucket s3://{bck} has "
                               f"{len(invs)} inventories, please specify which one")
            else:
                inv = next(iter(invs.values()))
        uuid = m["uuid"] or gen_uuid()
        ents, tok = inv.list_page(m["prefix"], m["continuation_token"], m["pagesize"],
                                  bool(flags & LS_NO_RECURSION))
        return uuid, tok, ents

    def create_nbi(self, bck, value):
        m = codec.parse_nbimsg(value)
        etag = "invalid 'create-inventory'"
        if m["continuation_token"]:
            raise AisError(f"{etag}: continuation_token must be empty")
        if m["start_after"]:
            raise AisError(f"{etag}: start_after is not supported")
        if m["flags"] & CREATE_BAD_FLAGS:
            raise AisError(f"{etag}: flags: 0x{m['flags'] & CREATE_BAD_FLAGS:x}")
        npc = m["names_per_chunk"]
        if npc and not nbi.MIN_NAMES_PER_CHUNK <= npc <= nbi.MAX_NAMES_PER_CHUNK:
            raise AisError(f"{etag}: names_per_chunk={npc} out of range "
                           f"[{nbi.MIN_NAMES_PER_CHUNK}, {nbi.MAX_NAMES_PER_CHUNK}]")
        if m["pagesize"] < 0:
            raise AisError(f"{etag}: invalid page size {m['pagesize']}")
        self.norm_props(m["props"], m["flags"])
        if m["name"]:
            check_alpha_plus(m["name"], "inventory name")
        xid = "inv-" + gen_uuid()
        with self.lock:
            for j in self.jobs.values():
                if j.bck == bck and j.running:
                    raise AisError(f"t[{self.tids[0]}]: create-inventory[{j.id}] is already running "
                                   f"for s3://{bck}: limited coexistence", 409, "ErrLimitedCoexistence")
            invs = self.inventories.get(bck, {})
            if invs and not m["force"]:
                raise AisError(f"inventory for bucket s3://{bck} already exists "
                               f"({', '.join(sorted(invs))}); use force to replace it")
            self.inventories.pop(bck, None)
            job = nbi.CreateJob(xid, bck, m["name"] or xid, m, self.tids, self.backend,
                                self.cfg["nbi_page_delay_ms"] / 1000.0, 0,
                                self.lock, self._install, self.log)
            self.jobs[xid] = job
            self._prune_jobs()
        fault = self.take_fault("nbi-fail", bck)      # only a job that really starts uses it
        if fault:
            job.fail_after_pages = fault.get("after_pages", 1)
        job.start()
        self.log(f"create-inventory {xid}: s3://{bck} prefix {m['prefix']!r} name {job.inv_name!r}")
        return xid

    def _install(self, inv):
        # called by the job with self.lock held
        inv.smap_ver = self.smap_version
        self.inventories.setdefault(inv.bck, {})[inv.name] = inv

    def _prune_jobs(self):
        now = time.monotonic()
        for xid in [x for x, j in self.jobs.items()
                    if j.end_ns and now - j.finished_at > self.cfg["snaps_ttl_s"]]:
            del self.jobs[xid]

    def show_nbi(self, bck, name):
        """bck "" means every bucket (GET /v1/buckets/ with show-inventory)."""
        with self.lock:
            invs = [i for b, bi in self.inventories.items() if not bck or b == bck for i in bi.values()]
            return {inv.obj_name(): inv.info() for inv in invs if not name or inv.name == name}

    def destroy_nbi(self, bck, name):
        if name:
            check_alpha_plus(name, "inventory name")
        with self.lock:
            for j in self.jobs.values():
                if j.bck == bck and j.running and (not name or name == j.inv_name):
                    j.abort(f"destroy-inventory s3://{bck} [{name}]")
            invs = self.inventories.get(bck, {})
            if name:
                invs.pop(name, None)
            else:
                invs.clear()
            if not invs:
                self.inventories.pop(bck, None)

    # ---- jobs ------------------------------------------------------------

    def _find_jobs(self, q):
        if not q.get("id") and not q.get("kind"):
            raise AisError("invalid query: both job ID and kind are empty")
        with self.lock:
            self._prune_jobs()
            if q.get("id"):
                j = self.jobs.get(q["id"])
                js = [j] if j and (not q.get("kind") or q["kind"] == j.KIND) else []
            else:
                js = [j for j in self.jobs.values() if j.KIND == q["kind"]]
        return js

    def job_status(self, q):
        js = self._find_jobs(q)
        now = time.monotonic()
        js = [j for j in js if not j.end_ns or now - j.finished_at <= self.cfg["status_ttl_s"]]
        if not js:
            raise AisError(f"job {q.get('id') or q.get('kind')} not found "
                           "(no notification listener)", 404, "ErrXactNotFound")
        return js[-1].status()

    def job_snaps(self, q):
        js = self._find_jobs(q)
        if not js:
            raise AisError(f"job {q.get('id') or q.get('kind')} not found", 404, "ErrXactNotFound")
        off = self.cfg["time_offset_min"]
        out = {}
        for j in js:
            for r in j.runs:
                bck = {"name": j.bck, "provider": "aws", "namespace": {"uuid": "", "name": ""}}
                snap = {
                    "ext": None,
                    "start-time": rfc3339nano(r.start_ns, off),
                    "end-time": rfc3339nano(r.end_ns if j.end_ns else 0, off),
                    "bck": bck, "src-bck": dict(bck),
                    "dst-bck": {"name": "", "provider": "", "namespace": {"uuid": "", "name": ""}},
                    "id": j.id, "kind": j.KIND, "ctlmsg": j.ctlmsg(),
                    "abort-err": j.err if j.aborted else "",
                    "err": r.err, "glob.id": "0",
                    "stats": {"loc-objs": str(r.loc_objs), "loc-bytes": "0", "out-objs": "0",
                              "out-bytes": "0", "in-objs": "0", "in-bytes": "0"},
                    "aborted": j.aborted, "is_idle": False,
                }
                out.setdefault(r.tid, []).append(snap)
        return out

    def log(self, msg):
        sys.stderr.write(time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime()) + f"{EMULATOR}: {msg}\n")
        sys.stderr.flush()


# ---------------------------------------------------------------------------
# HTTP


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True      # else small replies stall 40 ms (Nagle + delayed ACK)
    timeout = 300                       # idle keep-alive connections end eventually
    role = "proxy"
    cluster = None                      # set per server class

    # ---- plumbing ----

    def version_string(self):
        return f"{EMULATOR} (AIS emulator, not AIStore)"

    def log_message(self, fmt, *args):
        if self.cluster.args.access_log:
            self.cluster.log(f"{self.role} {self.address_string()} " + (fmt % args))

    @property
    def node(self):
        return f"p[{self.cluster.proxy_id}]" if self.role == "proxy" else f"t[{self.cluster.tids[0]}]"

    def _begin(self):
        u = urllib.parse.urlsplit(self.path)
        self.raw_path = u.path
        self.url_path = urllib.parse.unquote(u.path, errors="surrogateescape")
        self.raw_query = u.query
        q = {}
        for k, v in urllib.parse.parse_qsl(u.query, keep_blank_values=True):
            q.setdefault(k, v)
        self.query = q
        self.body_read = False
        self.linger = False

    def read_body(self, cap):
        """The request body (Content-Length or chunked); BadRequest 413 past `cap`."""
        self.body_read = True
        te = (self.headers.get("Transfer-Encoding") or "").lower()
        if "chunked" in te:
            parts, total = [], 0
            while True:
                line = self.rfile.readline(1024)
                if not line:
                    raise ConnectionError("client closed during a chunked body")
                try:
                    n = int(line.split(b";")[0].strip(), 16)
                except ValueError:
                    self.close_connection = True
                    raise BadRequest("malformed chunked request body") from None
                if n == 0:
                    while self.rfile.readline(1024) not in (b"\r\n", b"\n", b""):
                        pass
                    return b"".join(parts)
                total += n
                if total > cap:
                    self.close_connection = self.linger = True
                    raise BadRequest(f"request body over {cap} bytes", 413)
                parts.append(self.rfile.read(n))
                self.rfile.readline(1024)
        cl = self.headers.get("Content-Length")
        if not cl:
            return b""
        try:
            n = int(cl)
            if n < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            raise BadRequest(f"invalid Content-Length {cl!r}") from None
        if n > cap:
            self.close_connection = self.linger = True
            raise BadRequest(f"request body of {n} bytes is over the limit of {cap}", 413)
        data = self.rfile.read(n)
        if len(data) != n:
            raise ConnectionError("client closed during the body")
        return data

    def _drain(self):
        """Before answering without reading the body: what Go's server does with it."""
        if self.body_read:
            return
        self.body_read = True
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            self.close_connection = True
            return
        try:
            n = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            n = -1
        if (self.headers.get("Expect") or "").lower() == "100-continue" and n != 0:
            self.close_connection = True        # the client never sent it; can't reuse
            self.linger = True
        elif 0 <= n <= GO_DRAIN_MAX:
            if n:
                self.rfile.read(n)
        else:
            self.close_connection = True
            self.linger = True

    def _linger(self):
        """Close after a reply that left the body unread without resetting the connection
        under a client that is still sending: half-close, then discard what arrives."""
        try:
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(0.5)
            end, total = time.monotonic() + LINGER_S, 0
            while time.monotonic() < end and total < PUT_BODY_MAX:
                data = self.connection.recv(1 << 16)
                if not data:
                    break
                total += len(data)
        except OSError:
            pass

    def finish(self):
        try:
            super().finish()
        finally:
            self.cluster.backend.release()  # the connection thread ends: so does its S3 connection

    def handle_expect_100(self):
        # Go's server sends "100 Continue" only when the handler reads the body; the
        # proxy never reads an object PUT's (it redirects), so that client gets the 307
        # straight away. Control messages are read, so they get their 100.
        if self.role == "proxy" and urllib.parse.urlsplit(self.path).path.startswith("/v1/objects/"):
            return True
        return super().handle_expect_100()

    def send(self, status, body=b"", ctype=None, headers=(), chunked=False, head=False):
        self._drain()
        self.send_response(status)
        if ctype:
            self.send_header("Content-Type", ctype)
        for k, v in headers:
            self._headers_buffer.append(f"{k}: {v}\r\n".encode("utf-8", "surrogateescape"))
        use_chunks = chunked and self.request_version == "HTTP/1.1" and not head
        if use_chunks:
            self.send_header("Transfer-Encoding", "chunked")
        elif not any(k.lower() == "content-length" for k, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self._headers_buffer.append(b"\r\n")
        if head:
            self.wfile.write(b"".join(self._headers_buffer))
        elif use_chunks:
            self.wfile.write(b"".join(self._headers_buffer))
            for i in range(0, len(body), MSGP_BUF):
                c = body[i:i + MSGP_BUF]
                self.wfile.write(b"%x\r\n" % len(c) + c + b"\r\n")
            self.wfile.write(b"0\r\n\r\n")
        else:
            self._headers_buffer.append(body)
            self.wfile.write(b"".join(self._headers_buffer))
        self._headers_buffer = []
        if self.linger:
            self._linger()

    def send_json(self, obj, status=200):
        # a browser's User-Agent gets indented JSON, as AIS does (isBrowser)
        pretty = (self.headers.get("User-Agent") or "").startswith("Mozilla/5.0")
        self.send(status, codec.json_body(obj, pretty), "application/json; charset=utf-8")

    def send_err(self, status, message, tcode=""):
        ra = f"{self.client_address[0]}:{self.client_address[1]}"
        text = codec.error_body(status, message, self.command, self.url_path, ra, self.node, tcode)
        hdrs = [("X-Content-Type-Options", "nosniff")]
        if self.command == "HEAD":
            hdrs.append(("Hdr-Error", text))
            self.send(status, b"", "application/json", hdrs, head=True)
        else:
            self.send(status, (text + "\n").encode("utf-8", "surrogatepass"), "application/json", hdrs)

    def _dispatch(self):
        self._begin()
        c = self.cluster
        try:
            self.route()
        except BadRequest as e:
            if e.status >= 500:
                c.log(f"{self.role} {self.command} {self.path}: {e.status} {e}")
            self.send_err(e.status, str(e), e.tcode)
        except (ConnectionError, BrokenPipeError, TimeoutError):
            self.close_connection = True
        except Exception as e:          # noqa: BLE001 - a bug must not kill the connection thread silently
            c.log(f"{self.role} {self.command} {self.path}: internal error: {e}\n{traceback.format_exc()}")
            self.close_connection = True
            try:
                self.send_err(500, f"{EMULATOR} internal error: {e}")
            except OSError:
                pass

    do_GET = do_PUT = do_POST = do_DELETE = do_HEAD = do_PATCH = _dispatch

    def parts(self):
        return [p for p in self.url_path.split("/")]

    # ---- shared routes ----

    def route_health(self):
        c = self.cluster
        c.count("health")
        if not c.ready() or c.take_fault("health-unavailable"):
            raise AisError(f"{self.node} primary is not ready yet to start rebalance "
                           f"({EMULATOR} startup window)", 503)
        up = str(time.time_ns() - c.boot_ns)
        self.send(200, b"", None, [("Ais-Cluster-Uptime", up), ("Ais-Node-Uptime", up)],
                  head=self.command == "HEAD")

    def route_daemon(self):
        c = self.cluster
        what = self.query.get("what", "")
        if what == "software_version":
            self.send(200, c.software_version().encode(), "text/plain; charset=utf-8")
        elif what == "smap":
            self.send_json(c.smap())
        elif what in ("snode", ""):
            did = c.proxy_id if self.role == "proxy" else c.tids[0]
            self.send_json(c.snode(did))
        else:
            raise AisError(f"invalid GET /v1/daemon request: unrecognized what={what!r} "
                           f"({EMULATOR} knows smap, snode, software_version)")

    # ---- proxy ----

    def route(self):
        p = self.parts()
        if len(p) < 3 or p[0] != "":
            raise AisError(f"invalid URL path {self.url_path!r}", 404)
        if p[1] == "emulator":
            return self.route_emulator(p[2:])
        if p[1] != "v1":
            raise AisError(f"invalid URL path {self.url_path!r} (expecting /v1/...)", 404)
        res = p[2]
        if res == "health" and self.command in ("GET", "HEAD"):
            return self.route_health()
        if not self.cluster.ready():
            raise AisError(f"{self.node} primary is not ready yet", 503)
        if res == "daemon" and self.command == "GET":
            return self.route_daemon()
        if res == "cluster" and self.command == "GET":
            return self.route_cluster()
        if res == "buckets" and len(p) == 3:
            return self.route_bucket("")
        if res == "buckets" and len(p) >= 4:
            return self.route_bucket(p[3])
        if res == "objects" and len(p) >= 5:
            return self.route_object_redirect(p[3], "/".join(p[4:]))
        raise AisError(f"invalid route: {self.command} {self.url_path}", 400)

    def route_cluster(self):
        c = self.cluster
        what = self.query.get("what", "")
        if what == "smap":
            return self.send_json(c.smap())
        if what in ("status", "qryxstats"):
            q = codec.parse_querymsg(self.read_body(CTRL_BODY_MAX))
            c.count(f"job-{what}")
            if what == "status":
                return self.send_json(c.job_status(q))
            return self.send_json(c.job_snaps(q))
        raise AisError(f"invalid GET /v1/cluster request: unrecognized what={what!r} "
                       f"({EMULATOR} knows smap, status, qryxstats)")

    def route_bucket(self, bck_name):
        c = self.cluster
        m = self.command
        if m == "HEAD":
            bck = c.resolve_bucket(bck_name, self.query)
            props = {"provider": "aws", "extra": {"aws": {}}, "emulated_by": EMULATOR}
            return self.send(200, b"", None, [("Ais-Bucket-Props", json.dumps(props))], head=True)
        if m not in ("GET", "POST", "DELETE"):
            raise AisError(f"{m} /v1/buckets is not supported", 405)
        body = self.read_body(CTRL_BODY_MAX)
        ctype = (self.headers.get("Content-Type") or "").lower()
        if m == "GET" and not body and "application/json" not in ctype:
            bck = c.resolve_bucket(bck_name, self.query)      # "easy URL": list buckets
            return self.send_json([{"name": bck, "provider": "aws", "namespace": {"uuid": "", "name": ""}}])
        action, name, value, has_value = codec.parse_actmsg(body)
        nbi_actions = ("create-inventory", "show-inventory", "destroy-inventory")
        if action in nbi_actions and not c.nbi_supported():
            raise AisError(f"invalid action \"{action}\" (AIS {c.cfg['version']})")
        if m == "GET" and action == "list":
            bck = c.resolve_bucket(bck_name, self.query)
            if not has_value:
                return self.send_json([{"name": bck, "provider": "aws",
                                        "namespace": {"uuid": "", "name": ""}}])
            return self.do_list(bck, value)
        if m == "GET" and action == "show-inventory":
            bck = c.resolve_bucket(bck_name, self.query) if bck_name else ""
            c.count("show-inventory")
            return self.send_json(c.show_nbi(bck, name))
        if m == "POST" and action == "create-inventory":
            bck = c.resolve_bucket(bck_name, self.query)
            c.count("create-inventory")
            if not has_value:
                raise AisError("invalid 'create-inventory': missing message value "
                               "(expecting an object, e.g. {\"prefix\":\"...\"})")
            xid = c.create_nbi(bck, value)
            # writeXid: plain text, no explicit Content-Type (Go sniffs text/plain)
            return self.send(200, xid.encode(), "text/plain; charset=utf-8")
        if m == "DELETE" and action == "destroy-inventory":
            bck = c.resolve_bucket(bck_name, self.query)
            c.count("destroy-inventory")
            c.destroy_nbi(bck, name)
            return self.send(200)
        raise AisError(f"invalid action \"{action}\" for {m} /v1/buckets ({EMULATOR} knows list, "
                       "show-inventory, create-inventory, destroy-inventory)")

    def do_list(self, bck, value):
        c = self.cluster
        m = codec.parse_lsomsg(value)
        m["prefix"] = m["prefix"].rstrip("*") if m["prefix"].endswith("*") else m["prefix"]
        fault = c.take_fault("list-error", bck)
        if fault:
            raise AisError(f"{EMULATOR}: injected list error (fault list-error)", fault.get("status", 503))
        if m["flags"] & LS_NBI and c.nbi_supported():
            c.count("list-nbi")
            uuid, tok, ents = c.list_nbi(bck, m, self.headers.get("Ais-Inv-Name") or "")
        else:
            c.count("list-regular")
            uuid, tok, ents = c.list_regular(bck, m)
        if c.take_fault("list-token-repeat", bck) and m["continuation_token"]:
            tok = m["continuation_token"]
        mp = codec.accepts_msgpack(self.headers.get("Accept") or "", c.version_t)
        bad = c.take_fault("list-malformed", bck)
        if bad:
            return self.send_malformed(bad["variant"], uuid, tok, ents)
        if mp:
            body = codec.msgpack_lsores(uuid, tok, ents)
            # AIS streams msgpack through a 32 KiB msgp buffer: Go sends it chunked
            chunked = len(body) >= CHUNK_THRESHOLD and c.cfg["msgpack_chunked"]
            return self.send(200, body, "application/msgpack", chunked=chunked)
        pretty = (self.headers.get("User-Agent") or "").startswith("Mozilla/5.0")
        return self.send(200, codec.json_lsores(uuid, tok, ents, pretty=pretty),
                         "application/json; charset=utf-8")

    def send_malformed(self, variant, uuid, tok, ents):
        if variant.startswith("msgpack"):
            good = codec.msgpack_lsores(uuid, tok, ents)
            body = {
                "msgpack-truncated": good[:max(1, len(good) // 2)],
                "msgpack-huge-array": b"\x84\xa4UUID\xa3abc\xb1ContinuationToken\xa0\xa7Entries"
                                      b"\xdd\xff\xff\xff\xff\x81\xa1n\xa1a",
                "msgpack-wrong-type": b"\x84\xa4UUID\x2a\xb1ContinuationToken\xa0\xa7Entries"
                                      b"\xa3abc\xa5Flags\x00",
                "msgpack-not-map": b"\x93\xa3abc\xa0\x90",
            }[variant]
            return self.send(200, body, "application/msgpack")
        good = codec.json_lsores(uuid, tok, ents)
        body = {
            "json-truncated": good[:max(1, len(good) // 2)],
            "json-wrong-type": b'{"uuid":7,"continuation_token":[],"entries":"abc","flags":"x"}\n',
            "json-garbage": b"<html>not json</html>\n",
        }[variant]
        return self.send(200, body, "application/json; charset=utf-8")

    def route_object_redirect(self, bck_name, obj):
        c = self.cluster
        m = self.command
        if m not in ("GET", "PUT", "HEAD", "DELETE"):
            raise AisError(f"{m} /v1/objects is not supported", 405)
        if not obj:
            raise AisError("missing object name")
        c.resolve_bucket(bck_name, self.query)
        q = self.raw_query + ("&" if self.raw_query else "") + \
            f"pid={c.proxy_id}&utm={time.time_ns()}"
        loc = f"http://{c.host}:{c.tport}{self.raw_path}?{q}"
        c.count(f"redirect-{m}")
        status = 301 if m == "GET" else 307
        if m == "GET":
            # Go's http.Redirect writes a short HTML body for GET
            body = f'<a href="{loc}">Moved Permanently</a>.\n\n'.encode()
            return self.send(status, body, "text/html; charset=utf-8", [("Location", loc)])
        self.send(status, b"", None, [("Location", loc)], head=m == "HEAD")

    # ---- /emulator/ (outside the AIS API) ----

    def route_emulator(self, rest):
        c = self.cluster
        what = "/".join(rest)
        m = self.command
        if m == "GET" and what in ("", "state"):
            with c.lock:
                jobs = [dict(j.status(), bck=j.bck, inventory=j.inv_name) for j in c.jobs.values()]
                invs = [dict(i.info()) for bi in c.inventories.values() for i in bi.values()]
                faults = {k: dict(v) for k, v in c.faults.items()}
                cfg = dict(c.cfg)
            return self.send_json({"emulator": EMULATOR, "software_version": c.software_version(),
                                   "config": cfg, "faults": faults, "jobs": jobs,
                                   "inventories": invs, "stats": c.stats(),
                                   "fault_help": c.FAULTS})
        if m == "GET" and what == "stats":
            job = self.query.get("job")
            if job:
                return self.send_json({"job": job, "ListObjectsV2": c.backend.job_list_calls(job)})
            return self.send_json(c.stats())
        if m == "POST" and what == "stats/reset":
            c.reset_stats()
            return self.send_json(c.stats())
        if m == "POST" and what == "config":
            return self.send_json(c.set_config(self._json_body()))
        if m == "POST" and what == "fault":
            return self.send_json(c.arm_fault(self._json_body()))
        if m == "DELETE" and what == "fault":
            c.clear_faults()
            return self.send_json({})
        raise AisError(f"unknown emulator endpoint {m} /emulator/{what} (GET state|stats, "
                       "POST stats/reset|config|fault, DELETE fault)", 404)

    def _json_body(self):
        try:
            return json.loads(self.read_body(CTRL_BODY_MAX) or b"null")
        except (ValueError, RecursionError) as e:
            raise BadRequest(f"invalid JSON: {e}") from None


class TargetHandler(Handler):
    role = "target"

    def route(self):
        p = self.parts()
        if len(p) < 3 or p[0] != "" or p[1] != "v1":
            raise AisError(f"invalid URL path {self.url_path!r}", 404)
        res = p[2]
        if res == "health" and self.command in ("GET", "HEAD"):
            return self.route_health()
        if res == "daemon" and self.command == "GET":
            return self.route_daemon()
        if res == "objects" and len(p) >= 5:
            return self.route_object(p[3], "/".join(p[4:]))
        raise AisError(f"invalid route: {self.command} {self.url_path} (target)", 400)

    def route_object(self, bck_name, obj):
        c = self.cluster
        m = self.command
        if not obj:
            raise AisError("missing object name")
        bck = c.resolve_bucket(bck_name, self.query)
        cname = f"s3://{bck}/{obj}"
        fault = c.take_fault("object-error", bck)
        if fault:
            raise AisError(f"{EMULATOR}: injected object error for {cname} (fault object-error)",
                           fault.get("status", 500))
        c.count(f"object-{m}")
        try:
            if m == "PUT":
                body = self.read_body(PUT_BODY_MAX)
                c.backend.put_object(bck, obj, body)
                return self.send(200)
            if m == "HEAD":
                meta = c.backend.head_object(bck, obj)
                return self.send(200, b"", None, self._obj_headers(meta) +
                                 [("Content-Length", str(meta.size))], head=True)
            if m == "DELETE":
                c.backend.head_object(bck, obj)       # S3 DELETE of a missing key succeeds; AIS 404s
                c.backend.delete_object(bck, obj)
                return self.send(200)
            if m == "GET":
                return self._get(bck, obj)
        except s3.S3Error as e:
            if e.status == 404 and e.code != "NoSuchBucket":
                raise AisError(f"{self.node}: {cname} does not exist", 404, "ErrNotFound") from None
            raise c.s3_error(e, bck, cname) from None
        raise AisError(f"{m} /v1/objects is not supported", 405)

    @staticmethod
    def _obj_headers(meta):
        h = []
        if meta.etag and "-" not in meta.etag:
            h += [("Ais-Checksum-Type", "md5"), ("Ais-Checksum-Value", meta.etag)]
        if meta.version:
            h.append(("Ais-Version", meta.version))
        return h

    def _get(self, bck, obj):
        c = self.cluster
        self._drain()
        status, meta, resp = c.backend.get_object(bck, obj, self.headers.get("Range"))
        ok = False
        try:
            hdrs = self._obj_headers(meta) + [("Content-Length", str(meta.size))]
            if status == 206 and resp.headers.get("Content-Range"):
                hdrs.append(("Content-Range", resp.headers["Content-Range"]))
            self.send_response(status)
            self.send_header("Content-Type", "application/octet-stream")
            for k, v in hdrs:
                self.send_header(k, v)
            if self.close_connection:
                self.send_header("Connection", "close")
            self.end_headers()
            left = meta.size
            while left > 0:
                chunk = resp.read(min(left, 256 << 10))
                if not chunk:
                    break
                self.wfile.write(chunk)
                left -= len(chunk)
            ok = left == 0
            if not ok:
                self.close_connection = True     # we promised bytes we can't deliver
        finally:
            c.backend.finish(resp, ok)


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 256


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="AIStore API emulator (a test fixture, not AIStore)")
    env = os.environ.get
    ap.add_argument("--host", default=env("VANTAGE_AISEMU_HOST", "127.0.0.1"),
                    help="address to listen on and to advertise in the Smap and redirects")
    ap.add_argument("--port", type=int, default=int(env("VANTAGE_AISEMU_PORT", "51080")),
                    help="proxy port (the AIS endpoint; 0 picks a free one)")
    ap.add_argument("--target-port", type=int, default=int(env("VANTAGE_AISEMU_TARGET_PORT", "51081")),
                    help="port of the simulated targets (redirect destination; 0 picks a free one)")
    ap.add_argument("--targets", type=int, default=int(env("VANTAGE_AISEMU_TARGETS", "3")),
                    help="number of simulated targets (nat)")
    ap.add_argument("--ais-version", default=env("VANTAGE_AISEMU_VERSION", "5.0"),
                    help="AIS version to claim (major.minor): 4.3+ has NBI, e.g. 4.2 to test refusal")
    ap.add_argument("--startup-delay", type=float, default=float(env("VANTAGE_AISEMU_STARTUP_DELAY", "0")),
                    help="seconds during which health answers 503 (tests a client's probe loop)")
    ap.add_argument("--s3-list-delay-ms", type=float, default=float(env("VANTAGE_AISEMU_S3_LIST_DELAY_MS", "0")),
                    help="extra latency added before every ListObjectsV2 (mimic a distant S3)")
    ap.add_argument("--time-offset-min", type=int, default=int(env("VANTAGE_AISEMU_TIME_OFFSET_MIN", "0")),
                    help="UTC offset (minutes) of the RFC3339 times in qryxstats, e.g. -240")
    ap.add_argument("--access-log", action="store_true", default=env("VANTAGE_AISEMU_ACCESS_LOG") == "1",
                    help="log every request")
    args = ap.parse_args(argv)
    try:
        parse_version(args.ais_version)
    except ValueError as e:
        ap.error(str(e))
    if not 1 <= args.targets <= 64:
        ap.error("--targets: 1..64")
    missing = [k for k in ("AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY") if not env(k)]
    if missing:
        ap.error(f"missing environment {', '.join(missing)} (the S3 backend; see tests/rgw.sh env)")
    return args


def build(args):
    """The cluster and its two listening (not yet serving) servers; raises OSError
    when a port is taken. Tests use it to run a private instance in-process."""
    env = os.environ.get
    backend = s3.Backend(env("AWS_ENDPOINT_URL"), env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY"),
                         env("AWS_REGION", "us-east-1"))
    cluster = Cluster(args, backend)
    ph = type("ProxyHandler", (Handler,), {"cluster": cluster})
    th = type("TargetsHandler", (TargetHandler,), {"cluster": cluster})
    proxy = Server((args.host, args.port), ph)
    try:
        target = Server((args.host, args.target_port), th)
    except OSError:
        proxy.server_close()
        raise
    cluster.pport = proxy.server_address[1]
    cluster.tport = target.server_address[1]
    return cluster, proxy, target


def main(argv=None):
    args = parse_args(argv)
    try:
        cluster, proxy, target = build(args)
    except OSError as e:
        sys.stderr.write(f"{EMULATOR}: cannot listen on {args.host}:{args.port}/{args.target_port}: {e}\n")
        return 1
    threading.Thread(target=target.serve_forever, daemon=True, name="targets").start()
    cluster.log(f"AIS EMULATOR (not AIStore) claiming version {cluster.software_version()}: proxy "
                f"http://{args.host}:{cluster.pport}, {args.targets} targets at "
                f"http://{args.host}:{cluster.tport}, S3 backend {cluster.backend.netloc}")
    try:
        proxy.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
