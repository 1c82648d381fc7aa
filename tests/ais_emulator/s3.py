"""s3.py: the emulator's S3 backend, a thin SigV4 client for the local Ceph RGW.

Why not boto3's client: parsing a 1000-key ListObjectsV2 page through boto3 costs
about 40 ms of Python on this machine, three times what RGW needs to answer it, and
the emulator exists to put RGW's real listing latency in front of an AIS client. So
requests are signed with botocore's SigV4 signer, sent on one keep-alive
http.client connection per thread, and the XML is parsed with the C ElementTree.

Every call is counted (by operation, and listings also by purpose/bucket/prefix and
by the AIS list job -- uuid or xaction id -- they served) so tests can check "exactly
one ListObjectsV2 per AIS page", even with other clients listing at the same time.
"""

import base64
import collections
import hashlib
import http.client
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

_NS = "{http://s3.amazonaws.com/doc/2006-03-01/}"
# Caps on what the backend may send us: the emulator must not fall over on a bad reply.
MAX_XML_BYTES = 64 << 20
MAX_KEYS_PER_PAGE = 1000
JOBS_COUNTED = 4096


def _q(s, safe="-_.~"):
    return urllib.parse.quote(s, safe=safe)


class S3Error(Exception):
    """A backend call failed: HTTP status from S3 (or 502/503 for transport), S3 error code, text."""

    def __init__(self, status, code, message):
        super().__init__(f"{code}: {message}" if code else message)
        self.status = status
        self.code = code
        self.message = message


class ObjectMeta:
    __slots__ = ("size", "etag", "last_modified", "version", "content_type")

    def __init__(self, size, etag, last_modified, version, content_type):
        self.size = size
        self.etag = etag
        self.last_modified = last_modified
        self.version = version
        self.content_type = content_type


class Backend:
    """S3 endpoint + credentials; thread-safe (one connection per thread)."""

    def __init__(self, endpoint, access_key, secret_key, region, timeout=60.0):
        u = urllib.parse.urlsplit(endpoint)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError(f"AWS_ENDPOINT_URL {endpoint!r} is not an http(s) URL")
        self.scheme = u.scheme
        self.host = u.hostname
        self.port = u.port or (443 if u.scheme == "https" else 80)
        self.netloc = u.netloc
        self.region = region or "us-east-1"
        self.creds = Credentials(access_key, secret_key)
        self.timeout = timeout
        self._tls = threading.local()
        self._lock = threading.Lock()
        self.calls = {}            # op -> count
        self.list_calls = {}       # (purpose, bucket, prefix) -> count
        self.job_calls = collections.OrderedDict()   # list uuid / xaction id -> count (bounded)
        self.list_delay = 0.0      # seconds added before every ListObjectsV2 (S3 RTT knob)

    # ---- statistics -------------------------------------------------------

    def _count(self, op):
        with self._lock:
            self.calls[op] = self.calls.get(op, 0) + 1

    def stats(self):
        with self._lock:
            return {
                "calls": dict(self.calls),
                "list_calls": [
                    {"purpose": k[0], "bucket": k[1], "prefix": k[2], "count": v}
                    for k, v in sorted(self.list_calls.items())
                ],
            }

    def job_list_calls(self, job):
        with self._lock:
            return self.job_calls.get(job, 0)

    def reset_stats(self):
        with self._lock:
            self.calls.clear()
            self.list_calls.clear()
            self.job_calls.clear()

    # ---- transport --------------------------------------------------------

    def _conn(self):
        c = getattr(self._tls, "conn", None)
        if c is None:
            cls = http.client.HTTPSConnection if self.scheme == "https" else http.client.HTTPConnection
            c = cls(self.host, self.port, timeout=self.timeout)
            self._tls.conn = c
        return c

    def release(self):
        """Close this thread's connection; a thread that ends calls it."""
        self._drop_conn()

    def _drop_conn(self):
        c = getattr(self._tls, "conn", None)
        if c is not None:
            c.close()
            self._tls.conn = None

    def _request(self, method, path, query=None, body=b"", headers=None, stream=False):
        """Signed request; returns the http.client response (body unread if stream)."""
        qs = "&".join(f"{_q(k)}={_q(v)}" for k, v in (query or []))
        url = f"{self.scheme}://{self.netloc}{path}" + (f"?{qs}" if qs else "")
        req = AWSRequest(method=method, url=url, data=body, headers=dict(headers or {}))
        S3SigV4Auth(self.creds, "s3", self.region).add_auth(req)
        target = path + (f"?{qs}" if qs else "")
        hdrs = {k: v for k, v in req.headers.items()}
        # One retry on a stale keep-alive connection (the server may have closed it).
        for attempt in (0, 1):
            conn = self._conn()
            try:
                conn.request(method, target, body=body if body else None, headers=hdrs)
                resp = conn.getresponse()
                break
            except (http.client.HTTPException, OSError) as e:
                self._drop_conn()
                if attempt == 1:
                    raise S3Error(502, "", f"S3 backend {self.netloc}: {method} {path}: {e}") from None
        if not stream:
            data = resp.read(MAX_XML_BYTES + 1)
            if len(data) > MAX_XML_BYTES:
                self._drop_conn()
                raise S3Error(502, "", f"S3 backend {self.netloc}: reply to {method} {path} over {MAX_XML_BYTES} bytes")
            resp.body = data
            if resp.will_close:
                self._drop_conn()
        return resp

    def _raise_for(self, resp, what):
        body = getattr(resp, "body", b"") or b""
        code, msg = "", ""
        if body:
            try:
                root = ET.fromstring(body)
                code = root.findtext("Code") or ""
                msg = root.findtext("Message") or ""
            except ET.ParseError:
                pass
        if not code:
            code = {404: "NotFound", 403: "AccessDenied"}.get(resp.status, f"HTTP{resp.status}")
        raise S3Error(resp.status, code, msg or f"{what}: {resp.status} {resp.reason}")

    @staticmethod
    def _path(bucket, key=None):
        p = "/" + _q(bucket)
        if key is not None:
            p += "/" + _q(key, safe="/-_.~")
        return p

    # ---- operations -------------------------------------------------------

    def head_bucket(self, bucket):
        self._count("HeadBucket")
        resp = self._request("HEAD", self._path(bucket))
        if resp.status != 200:
            self._raise_for(resp, f"HEAD bucket {bucket}")

    def list_buckets(self):
        self._count("ListBuckets")
        resp = self._request("GET", "/")
        if resp.status != 200:
            self._raise_for(resp, "ListBuckets")
        root = ET.fromstring(resp.body)
        return [b.findtext(_NS + "Name") for b in root.iter(_NS + "Bucket")]

    def list_objects_v2(self, bucket, prefix, token, max_keys, delimiter="", purpose="list", job=""):
        """One ListObjectsV2 call. Returns (entries, common_prefixes, next_token, truncated);
        entries are (key, size, etag) in S3 order."""
        max_keys = max(1, min(int(max_keys), MAX_KEYS_PER_PAGE))
        q = [("list-type", "2"), ("encoding-type", "url"), ("max-keys", str(max_keys))]
        if prefix:
            q.append(("prefix", prefix))
        if token:
            q.append(("continuation-token", token))
        if delimiter:
            q.append(("delimiter", delimiter))
        q.sort()
        with self._lock:
            self.calls["ListObjectsV2"] = self.calls.get("ListObjectsV2", 0) + 1
            k = (purpose, bucket, prefix)
            self.list_calls[k] = self.list_calls.get(k, 0) + 1
            if job:
                self.job_calls[job] = self.job_calls.get(job, 0) + 1
                self.job_calls.move_to_end(job)
                if len(self.job_calls) > JOBS_COUNTED:
                    self.job_calls.popitem(last=False)
        if self.list_delay > 0:
            time.sleep(self.list_delay)
        resp = self._request("GET", self._path(bucket), query=q)
        if resp.status != 200:
            self._raise_for(resp, f"ListObjectsV2 {bucket}/{prefix}")
        try:
            root = ET.fromstring(resp.body)
        except ET.ParseError as e:
            raise S3Error(502, "", f"S3 backend {self.netloc}: bad ListObjectsV2 XML: {e}") from None
        unq = urllib.parse.unquote_plus
        entries = []
        for c in root.iterfind(_NS + "Contents"):
            key = unq(c.findtext(_NS + "Key") or "")
            try:
                size = int(c.findtext(_NS + "Size") or "0")
            except ValueError:
                size = 0
            etag = (c.findtext(_NS + "ETag") or "").strip('"')
            entries.append((key, size, etag))
        prefixes = [unq(p.findtext(_NS + "Prefix") or "") for p in root.iterfind(_NS + "CommonPrefixes")]
        truncated = (root.findtext(_NS + "IsTruncated") or "false").lower() == "true"
        nxt = root.findtext(_NS + "NextContinuationToken") or ""
        if not truncated:
            nxt = ""
        elif not nxt:
            raise S3Error(502, "", f"S3 backend {self.netloc}: truncated listing without NextContinuationToken")
        return entries, prefixes, nxt, truncated

    def _meta(self, resp):
        h = resp.headers
        try:
            size = int(h.get("Content-Length", "0"))
        except ValueError:
            size = 0
        return ObjectMeta(size, (h.get("ETag") or "").strip('"'), h.get("Last-Modified") or "",
                          h.get("x-amz-version-id") or "", h.get("Content-Type") or "")

    def head_object(self, bucket, key):
        self._count("HeadObject")
        resp = self._request("HEAD", self._path(bucket, key))
        if resp.status != 200:
            self._raise_for(resp, f"HEAD {bucket}/{key}")
        return self._meta(resp)

    def put_object(self, bucket, key, body):
        self._count("PutObject")
        hdrs = {"Content-MD5": base64.b64encode(hashlib.md5(body).digest()).decode()}
        resp = self._request("PUT", self._path(bucket, key), body=body, headers=hdrs)
        if resp.status != 200:
            self._raise_for(resp, f"PUT {bucket}/{key}")
        return (resp.headers.get("ETag") or "").strip('"')

    def delete_object(self, bucket, key):
        self._count("DeleteObject")
        resp = self._request("DELETE", self._path(bucket, key))
        if resp.status not in (200, 204):
            self._raise_for(resp, f"DELETE {bucket}/{key}")

    def get_object(self, bucket, key, range_hdr=None):
        """Returns (status, meta, response) with the body unread; the caller must read it
        to the end (the connection is reused) or call abort()."""
        self._count("GetObject")
        hdrs = {"Range": range_hdr} if range_hdr else {}
        resp = self._request("GET", self._path(bucket, key), headers=hdrs, stream=True)
        if resp.status not in (200, 206):
            resp.body = resp.read(MAX_XML_BYTES)
            if resp.will_close:
                self._drop_conn()
            self._raise_for(resp, f"GET {bucket}/{key}")
        return resp.status, self._meta(resp), resp

    def finish(self, resp, ok):
        """After streaming a get_object body: keep the connection only when fully read."""
        if not ok or resp.will_close or not resp.isclosed():
            self._drop_conn()
