#!/usr/bin/env python3
"""tcpproxy.py: a tiny TCP forwarder for tests that need a link to break.

    tcpproxy.py LISTEN_PORT TARGET_HOST:TARGET_PORT

Listens on 127.0.0.1:LISTEN_PORT and forwards every connection to the target.
Prints "listening on 127.0.0.1:PORT" on stdout once it accepts connections.
Killing it (SIGTERM/SIGKILL) cuts every forwarded connection at once; starting
it again on the same port restores the path. Loopback only."""
import selectors
import socket
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    port = int(sys.argv[1])
    host, tport = sys.argv[2].rsplit(":", 1)
    if host not in ("127.0.0.1", "localhost"):
        print("tcpproxy: loopback targets only", file=sys.stderr)
        return 2
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(64)
    lsock.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ, None)
    print("listening on 127.0.0.1:%d" % lsock.getsockname()[1], flush=True)
    peers = {}

    def close(s):
        other = peers.pop(s, None)
        for x in (s, other):
            if x is None:
                continue
            try:
                sel.unregister(x)
            except (KeyError, ValueError):
                pass
            x.close()
            peers.pop(x, None)

    while True:
        for key, _ in sel.select():
            s = key.fileobj
            if s is lsock:
                c, _ = lsock.accept()
                try:
                    u = socket.create_connection((host, int(tport)), timeout=5)
                except OSError:
                    c.close()
                    continue
                c.setblocking(True)
                u.setblocking(True)
                peers[c] = u
                peers[u] = c
                sel.register(c, selectors.EVENT_READ, None)
                sel.register(u, selectors.EVENT_READ, None)
                continue
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                close(s)
                continue
            try:
                peers[s].sendall(data)
            except (OSError, KeyError):
                close(s)


if __name__ == "__main__":
    sys.exit(main())
