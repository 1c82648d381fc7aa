#!/usr/bin/python3
"""faultproxy: an HTTP/1.1 proxy that injects storage faults between a client
and an object store (Ceph RGW, the AIS emulator), for tests of how vantage
classifies, counts and survives them.

Requests are relayed byte for byte (request line, every header in order,
Host included, body), so SigV4 signatures still verify at the server; client
and server connections are both kept alive. A rule picks requests by method
and a regular expression on the request target (path and query) and, by
count or probability, answers them with a fault instead:

  slowdown    503 with an S3 SlowDown error (AIS: JSON, status 503)
  internal    500 with an S3 InternalError error (AIS: JSON)
  throttle    429 with an error body (S3 XML TooManyRequests / AIS JSON)
  reset       reads the request, then resets the connection (RST, no reply)
  stall       reads the request and answers nothing for stall=S seconds
              (default 30), then closes: past any sane request timeout
  truncate    forwards, then sends the server's headers and only part of
              the body (half, at least one byte short) and closes
  malformed   200 with a well-framed but malformed XML (AIS: JSON) body
  delay       forwards after delay=MS milliseconds

Usage:
  faultproxy.py --upstream http://127.0.0.1:7480 [--listen 127.0.0.1] [--port 0]
                [--flavour s3|ais] [--seed N] [--ready-file F] --rule RULE ...
  RULE: "ACTION [method=M] [path=REGEX] [every=N | first=N | nth=N | p=F]
         [stall=S] [delay=MS]", e.g. "slowdown method=GET path=^/b/k every=3"
  The first rule whose method and path match a request owns it; its selector
  decides whether the fault fires (default: always). Rules may also come
  from --rules FILE (one per line, # comments).

Readiness: once listening, one line "READY HOST:PORT" on stdout (and the
port in --ready-file). GET /_faultproxy/stats answers JSON counts:
{"requests": N, "forwarded": N, "faults": {"slowdown": N, ...}}; bucket
names cannot start with "_", so the path never shadows an S3 request.
Stops on SIGTERM/SIGINT. Python standard library only; loopback only.
"""
import argparse
import json
import os
import random
import re
import signal
import socket
import struct
import sys
import threading
import time
import urllib.parse

ACTIONS = ("slowdown", "internal", "throttle", "reset", "stall", "truncate", "malformed", "delay")
MAX_HEAD = 64 * 1024


class Rule:
    def __init__(self, text):
        words = text.split()
        if not words or words[0] not in ACTIONS:
            raise ValueError(f"rule {text!r}: first word must be one of {', '.join(ACTIONS)}")
        self.text = text
        self.action = words[0]
        self.method = None
        self.path = None
        self.every = self.first = self.nth = None
        self.p = None
        self.stall = 30.0
        self.delay = 0.0
        self.matched = 0
        for w in words[1:]:
            k, sep, v = w.partition("=")
            if not sep:
                raise ValueError(f"rule {text!r}: {w!r} is not key=value")
            if k == "method":
                self.method = v.upper()
            elif k == "path":
                self.path = re.compile(v)
            elif k in ("every", "first", "nth"):
                if not v.isdigit() or int(v) < 1:
                    raise ValueError(f"rule {text!r}: {k} must be a whole number >= 1")
                setattr(self, k, int(v))
            elif k == "p":
                self.p = float(v)
                if not 0.0 <= self.p <= 1.0:
                    raise ValueError(f"rule {text!r}: p must be in [0, 1]")
            elif k == "stall":
                self.stall = float(v)
            elif k == "delay":
                self.delay = float(v) / 1000.0
            else:
                raise ValueError(f"rule {text!r}: unknown key {k!r}")

    def matches(self, method, target):
        return ((self.method is None or self.method == method) and
                (self.path is None or self.path.search(target) is not None))

    def fires(self, rng):
        """Called once per matching request (under the proxy's lock)."""
        self.matched += 1
        n = self.matched
        if self.every:
            return n % self.every == 0
        if self.first:
            return n <= self.first
        if self.nth:
            return n == self.nth
        if self.p is not None:
            return rng.random() < self.p
        return True


class Proxy:
    def __init__(self, args, rules):
        u = urllib.parse.urlsplit(args.upstream)
        if u.scheme != "http" or not u.hostname:
            raise ValueError(f"--upstream {args.upstream!r}: expecting http://HOST:PORT")
        self.up = (u.hostname, u.port or 80)
        self.flavour = args.flavour
        self.rules = rules
        self.rng = random.Random(args.seed)
        self.lock = threading.Lock()
        self.requests = 0
        self.forwarded = 0
        self.faults = {a: 0 for a in ACTIONS}
        self.stopping = threading.Event()

    # ---- what to do with one request

    def decide(self, method, target):
        with self.lock:
            self.requests += 1
            for r in self.rules:
                if r.matches(method, target):
                    if r.fires(self.rng):
                        self.faults[r.action] += 1
                        return r
                    break
            return None

    def stats(self):
        with self.lock:
            return {"requests": self.requests, "forwarded": self.forwarded,
                    "faults": dict(self.faults)}

    # ---- canned replies

    def error_body(self, status, code, message):
        if self.flavour == "ais":
            body = json.dumps({"message": message, "status": status, "tcode": code}).encode()
            return body, "application/json"
        body = (f'<?xml version="1.0" encoding="UTF-8"?><Error><Code>{code}</Code>'
                f"<Message>{message}</Message><RequestId>faultproxy-{self.requests}</RequestId>"
                "</Error>").encode()
        return body, "application/xml"

    def canned(self, action):
        if action == "slowdown":
            return (503, "Slow Down") + self.error_body(503, "SlowDown", "Please reduce your request rate.")
        if action == "internal":
            return (500, "Internal Server Error") + self.error_body(
                500, "InternalError", "We encountered an internal error. Please try again.")
        if action == "throttle":
            return (429, "Too Many Requests") + self.error_body(
                429, "TooManyRequests", "Too many requests, please slow down.")
        # malformed: well framed, but the document breaks its own syntax
        if self.flavour == "ais":
            return 200, "OK", b'{"uuid":"x","continuation_token":"","entries":[{"name":"a",', "application/json"
        return (200, "OK", b'<?xml version="1.0" encoding="UTF-8"?><ListBucketResult>'
                b"<IsTruncated>false</IsTruncated><Contents><Key>a</Contents></ListBucketResult>",
                "application/xml")


class Stream:
    """A socket with a read buffer: whole heads, lines and counted bodies."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _fill(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buf += data

    def until(self, delim, limit=MAX_HEAD):
        """Bytes up to and including delim."""
        while delim not in self.buf:
            if len(self.buf) > limit:
                raise ValueError("header section or chunk line too long")
            self._fill()
        i = self.buf.index(delim) + len(delim)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def exact(self, n):
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def rest(self):
        """Everything up to the peer's close."""
        chunks = [self.buf]
        self.buf = b""
        while True:
            d = self.sock.recv(65536)
            if not d:
                return b"".join(chunks)
            chunks.append(d)

    def body(self, headers, no_body=False):
        """Raw body bytes as framed (chunked stays chunked); None = until close."""
        if no_body:
            return b""
        if "chunked" in headers.get("transfer-encoding", "").lower():
            out = []
            while True:
                line = self.until(b"\r\n")
                out.append(line)
                size = int(line.split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while True:  # trailers up to the blank line
                        t = self.until(b"\r\n")
                        out.append(t)
                        if t == b"\r\n":
                            return b"".join(out)
                out.append(self.exact(size + 2))
        if "content-length" in headers:
            return self.exact(int(headers["content-length"]))
        return None


class Conn:
    """One client connection and, lazily, its upstream connection."""

    def __init__(self, proxy, sock):
        self.p = proxy
        self.c = sock
        self.cs = Stream(sock)
        self.u = None
        self.us = None

    @staticmethod
    def parse_head(head):
        lines = head.decode("latin-1").split("\r\n")
        first = lines[0]
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                k, v = line.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        return first, headers

    # ---- the connection's life

    def run(self):
        try:
            while not self.p.stopping.is_set():
                if not self.one():
                    break
        except (EOFError, ConnectionError, socket.timeout, OSError, ValueError):
            pass
        finally:
            self.close_upstream()
            try:
                self.c.close()
            except OSError:
                pass

    def close_upstream(self):
        if self.u is not None:
            try:
                self.u.close()
            except OSError:
                pass
        self.u = None
        self.us = None

    def send_canned(self, status, reason, body, ctype, keep):
        head = (f"HTTP/1.1 {status} {reason}\r\nContent-Type: {ctype}\r\n"
                f"Content-Length: {len(body)}\r\nx-faultproxy: injected\r\n"
                f"Connection: {'keep-alive' if keep else 'close'}\r\n\r\n").encode()
        self.c.sendall(head + body)

    def one(self):
        """Serves one request; False when the connection is done."""
        head = self.cs.until(b"\r\n\r\n")
        first, headers = self.parse_head(head)
        parts = first.split(" ")
        if len(parts) != 3:
            raise ValueError("bad request line")
        method, target, _ = parts
        if headers.get("expect", "").lower() == "100-continue":
            # answer the interim reply here so the body comes; the server's own
            # 100 is dropped in forward() (the Expect header still goes through)
            self.c.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        body = self.cs.body(headers)
        if body is None:
            body = b""
        client_keep = headers.get("connection", "").lower() != "close"

        if target.startswith("/_faultproxy/stats"):
            data = json.dumps(self.p.stats()).encode()
            self.send_canned(200, "OK", data, "application/json", client_keep)
            return client_keep

        rule = self.p.decide(method, target)
        action = rule.action if rule else None
        if action in ("slowdown", "internal", "throttle", "malformed"):
            self.send_canned(*self.p.canned(action), client_keep)
            return client_keep
        if action == "reset":
            # SO_LINGER 0: close() sends RST instead of FIN
            self.c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False
        if action == "stall":
            self.c.settimeout(0.2)
            end = time.monotonic() + rule.stall
            while time.monotonic() < end and not self.p.stopping.is_set():
                try:
                    if not self.c.recv(65536):  # the client gave up
                        break
                except socket.timeout:
                    continue
            return False
        if action == "delay":
            time.sleep(rule.delay)
        return self.forward(head, body, method, action == "truncate", client_keep)

    def forward(self, head, body, method, truncate, client_keep):
        for attempt in (0, 1):
            fresh = self.u is None
            if fresh:
                self.u = socket.create_connection(self.p.up, timeout=120)
                self.us = Stream(self.u)
                self.u.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            try:
                self.u.sendall(head + body)
                rhead = self.us.until(b"\r\n\r\n")
                while rhead.startswith(b"HTTP/1.1 1") and not rhead.startswith(b"HTTP/1.1 101"):
                    rhead = self.us.until(b"\r\n\r\n")
                break
            except (EOFError, ConnectionError):
                # the server closed an idle kept-alive connection: one fresh try,
                # as any client does; a fresh connection failing is the answer
                self.close_upstream()
                if fresh or attempt:
                    raise
        with self.p.lock:
            self.p.forwarded += 1
        status_line, rheaders = self.parse_head(rhead)
        status = int(status_line.split(" ")[1])
        no_body = method == "HEAD" or status in (204, 304) or 100 <= status < 200
        rbody = self.us.body(rheaders, no_body)
        close_after = rbody is None or rheaders.get("connection", "").lower() == "close"
        if rbody is None:  # delimited by close
            rbody = self.us.rest()
        if close_after:
            self.close_upstream()
        if truncate:
            cut = len(rbody) // 2 if len(rbody) > 1 else 0
            self.c.sendall(rhead + rbody[:cut])
            return False
        self.c.sendall(rhead + rbody)
        return client_keep and not close_after


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--upstream", required=True, help="http://HOST:PORT of the server")
    ap.add_argument("--listen", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0, help="0: any free port (see READY)")
    ap.add_argument("--flavour", choices=("s3", "ais"), default="s3", help="error body format")
    ap.add_argument("--seed", type=int, default=1, help="random seed for p= rules")
    ap.add_argument("--rule", action="append", default=[], help="a fault rule (repeatable)")
    ap.add_argument("--rules", help="file of rules, one per line")
    ap.add_argument("--ready-file", help="write the port here once listening")
    args = ap.parse_args()
    texts = list(args.rule)
    if args.rules:
        with open(args.rules, encoding="utf-8") as f:
            texts += [ln.strip() for ln in f if ln.strip() and not ln.lstrip().startswith("#")]
    try:
        rules = [Rule(t) for t in texts]
        proxy = Proxy(args, rules)
    except (ValueError, re.error) as e:
        print(f"faultproxy: {e}", file=sys.stderr)
        return 2
    if not (args.listen.startswith("127.") or args.listen in ("::1", "localhost")):
        print(f"faultproxy: --listen {args.listen}: loopback addresses only", file=sys.stderr)
        return 2

    srv = socket.socket(socket.AF_INET6 if ":" in args.listen else socket.AF_INET)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        srv.bind((args.listen, args.port))
    except OSError as e:
        print(f"faultproxy: cannot listen on {args.listen}:{args.port}: {e}", file=sys.stderr)
        return 1
    srv.listen(128)
    port = srv.getsockname()[1]

    def stop(*_):
        proxy.stopping.set()
        try:
            srv.close()
        except OSError:
            pass
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    if args.ready_file:
        with open(args.ready_file + ".tmp", "w", encoding="utf-8") as f:
            f.write(f"{port}\n")
        os.replace(args.ready_file + ".tmp", args.ready_file)
    print(f"READY {args.listen}:{port}", flush=True)

    while not proxy.stopping.is_set():
        try:
            c, _ = srv.accept()
        except OSError:
            break
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=Conn(proxy, c).run, daemon=True).start()
    s = proxy.stats()
    print(f"faultproxy: {s['requests']} requests, {s['forwarded']} forwarded, faults "
          + ", ".join(f"{k} {v}" for k, v in s["faults"].items() if v), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
