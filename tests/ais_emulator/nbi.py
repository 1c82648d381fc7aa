"""nbi.py: Native Bucket Inventory as the emulator's simulated targets hold it.

An Inventory is a frozen snapshot: per target, the names it owns (stable hash
mod nat), sorted, with the chunk boundaries that creation produced. A CreateJob
walks the S3 prefix once per target, in parallel, as real AIS does (spec sections
3 and 14.5). Listing pages are built per target and merged with the min-token
rule (sections 2.4 and 14.8), so page sizes are approximate and tokens are plain
object names.
"""

import bisect
import hashlib
import threading
import time

ENTRY_IS_DIR = 256
DEFAULT_NAMES_PER_CHUNK = 20000
MIN_NAMES_PER_CHUNK = 2
MAX_NAMES_PER_CHUNK = 640000
MIN_TARGET_PAGE = 10


def owner(name, nat):
    """Index of the target that owns `name`: any stable hash mod nat (spec 14.5)."""
    h = hashlib.blake2b(name.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(h, "little") % nat


def go_round(x):
    """Go's math.Round: half away from zero."""
    return int(x + 0.5) if x >= 0 else -int(-x + 0.5)


def _dir_end(d):
    # every name that starts with "a/b/" sorts below "a/b0" ('0' follows '/')
    return d[:-1] + "0"


class TargetSnap:
    """One target's share of an inventory: sorted entries and chunk start indices."""

    def __init__(self, tid, entries, chunk_starts, started, finished):
        self.tid = tid
        self.entries = entries                 # [(name, size, cs, flags)] sorted by name
        self.names = [e[0] for e in entries]
        self.chunk_starts = chunk_starts       # index of each chunk's first entry
        self.started = started
        self.finished = finished

    def chunk_len(self, i):
        c = bisect.bisect_right(self.chunk_starts, i) - 1
        if c < 0:
            return 0
        end = self.chunk_starts[c + 1] if c + 1 < len(self.chunk_starts) else len(self.entries)
        return end - self.chunk_starts[c]

    def page(self, prefix, token, pagesize, nat, norecurse):
        """Entries > token within prefix, up to this target's page limit; and its token."""
        names = self.names
        lo = bisect.bisect_left(names, prefix)
        if token:
            if norecurse and token.endswith("/") and token.startswith(prefix):
                start = bisect.bisect_left(names, _dir_end(token))
            else:
                start = bisect.bisect_right(names, token)
            start = max(start, lo)
        else:
            start = lo
        if pagesize > 0:
            limit = max(MIN_TARGET_PAGE, go_round(go_round(pagesize / nat) * 5 / 4))
        else:
            limit = max(self.chunk_len(start), MIN_TARGET_PAGE)
        out = []
        i, n, plen = start, len(names), len(prefix)
        while i < n and len(out) < limit:
            name = names[i]
            if not name.startswith(prefix):
                i = n
                break
            if norecurse:
                slash = name.find("/", plen)
                if slash >= 0:
                    d = name[:slash + 1]
                    out.append((d, 0, "", ENTRY_IS_DIR))
                    i = bisect.bisect_left(names, _dir_end(d), i)
                    continue
            out.append(self.entries[i])
            i += 1
        more = i < n and names[i].startswith(prefix)
        return out, (out[-1][0] if out and more else "")


def merge_pages(pages):
    """Proxy merge (spec 2.4): min non-empty token; sorted entries up to it; dirs once."""
    tokens = [t for ents, t in pages if t]
    tok = min(tokens) if tokens else ""
    seen = {}
    for ents, _ in pages:
        for e in ents:
            if tok and e[0] > tok:
                continue
            seen.setdefault(e[0], e)
    return [seen[k] for k in sorted(seen)], tok


class Inventory:
    def __init__(self, name, bck, prefix, snaps, smap_ver):
        self.name = name
        self.bck = bck
        self.prefix = prefix
        self.snaps = snaps            # [TargetSnap] one per target
        self.smap_ver = smap_ver

    @property
    def ntotal(self):
        return sum(len(s.entries) for s in self.snaps)

    def obj_name(self):
        return f"aws/@#/{self.bck}/{self.name}"

    def info(self):
        """NBIInfo merged across targets (section 5)."""
        size = 0
        for s in self.snaps:
            # what the stored msgpack chunks would roughly weigh on disk
            size += sum(len(e[0]) + 8 + len(e[2]) + 6 for e in s.entries)
        meta = {
            "prefix": self.prefix,
            "started": min(s.started for s in self.snaps),
            "finished": max(s.finished for s in self.snaps),
            "ntotal": self.ntotal, "smap_ver": self.smap_ver,
            "chunks": sum(len(s.chunk_starts) for s in self.snaps), "nat": len(self.snaps),
        }
        info = {"bucket": f"s3://{self.bck}", "name": self.name, "obj_name": self.obj_name(), "size": size}
        info.update((k, v) for k, v in meta.items() if v)      # NBIMeta fields are omitempty
        return info

    def list_page(self, prefix, token, pagesize, norecurse):
        nat = len(self.snaps)
        pages = [s.page(prefix, token, pagesize, nat, norecurse) for s in self.snaps]
        pages = [p for p in pages if p[0] or p[1]]
        return merge_pages(pages)


class TargetRun:
    """One simulated target's part of a create-inventory job (one xaction snapshot)."""

    def __init__(self, tid, start_ns):
        self.tid = tid
        self.start_ns = start_ns
        self.end_ns = 0
        self.loc_objs = 0
        self.entries = []
        self.chunk_starts = []
        self.err = ""


class CreateJob:
    """create-inventory: asynchronous, one S3 walk per simulated target."""

    KIND = "create-inventory"

    def __init__(self, xid, bck, inv_name, msg, tids, backend, page_delay, fail_after_pages,
                 cluster_lock, install, log):
        now = time.time_ns()
        self.id = xid
        self.bck = bck
        self.inv_name = inv_name
        self.prefix = msg["prefix"]
        self.props = msg["props"]
        self.flags = msg["flags"]
        pagesize = msg["pagesize"]
        self.pagesize = 1000 if pagesize <= 0 or pagesize > 1000 else pagesize
        self.npc = msg["names_per_chunk"] or DEFAULT_NAMES_PER_CHUNK
        self.runs = [TargetRun(t, now) for t in tids]   # start stamped at 2PC begin, i.e. now
        self.backend = backend
        self.page_delay = page_delay
        self.fail_after_pages = fail_after_pages
        self.cluster_lock = cluster_lock   # shared with destroy, so abort and install don't race
        self.install = install             # install(inventory) under cluster_lock
        self.log = log
        self.end_ns = 0               # IC: when the last target reported
        self.err = ""
        self.aborted = False
        self.abort_reason = ""
        self._abort = threading.Event()
        self._lock = threading.Lock()       # guards _left
        self._left = len(tids)
        self.finished_at = 0.0        # monotonic, for retention

    def start(self):
        for i, run in enumerate(self.runs):
            threading.Thread(target=self._walk, args=(i, run), daemon=True,
                             name=f"nbi-{self.id}-{run.tid}").start()

    def abort(self, reason):
        """Called with cluster_lock held; True when a running job was told to stop."""
        if self.end_ns:
            return False
        self.abort_reason = reason
        self._abort.set()
        return True

    @property
    def running(self):
        return self.end_ns == 0

    def _walk(self, idx, run):
        nat = len(self.runs)
        token = ""
        pages = 0
        cur = 0                  # names in the open chunk
        try:
            while True:
                if self._abort.is_set():
                    break
                ents, _, token, _ = self.backend.list_objects_v2(
                    self.bck, self.prefix, token, self.pagesize, purpose="nbi-create", job=self.id)
                pages += 1
                for name, size, etag in ents:
                    if name.endswith("/") and size == 0:
                        continue                     # LsNoDirs is always set for creation
                    if owner(name, nat) != idx:
                        continue
                    if cur == 0:
                        run.chunk_starts.append(len(run.entries))
                    # checksum from a non-multipart ETag (an md5), as awsEncodeCksum does
                    cs = etag if etag and "-" not in etag else ""
                    run.entries.append((name, size, cs, 0))
                    cur += 1
                run.loc_objs = len(run.entries)
                if cur >= self.npc:
                    cur = 0                          # chunks close only after whole S3 pages
                if self.fail_after_pages and idx == 0 and pages >= self.fail_after_pages:
                    raise RuntimeError(f"aisemu: injected failure after {pages} S3 page(s) (fault nbi-fail)")
                if not token:
                    break
                if self.page_delay > 0:
                    self._abort.wait(self.page_delay)
        except Exception as e:          # noqa: BLE001 - any backend error fails the job
            run.err = f"t[{run.tid}]: {e}"
            self.log(f"create-inventory {self.id} target {run.tid} failed: {e}")
        self.backend.release()
        run.end_ns = time.time_ns()
        with self._lock:
            self._left -= 1
            last = self._left == 0
        if last:
            self._finish()

    def _finish(self):
        with self.cluster_lock:
            errs = [r.err for r in self.runs if r.err]
            if self._abort.is_set():
                self.aborted = True
                self.err = f"{self.KIND}[{self.id}] aborted: {self.abort_reason}"
            elif errs:
                self.err = errs[0]
            else:
                snaps = [TargetSnap(r.tid, r.entries, r.chunk_starts, r.start_ns, r.end_ns)
                         for r in self.runs]
                self.install(Inventory(self.inv_name, self.bck, self.prefix, snaps, 0))
            for r in self.runs:
                r.entries = []               # the snapshot owns them now
            self.finished_at = time.monotonic()
            self.end_ns = time.time_ns()     # the IC's end time: after the last target reported
        self.log(f"create-inventory {self.id} finished: " + (self.err or "ok"))

    def status(self):
        return {"kind": self.KIND, "uuid": self.id, "err": self.err, "end_time": self.end_ns,
                "aborted": self.aborted}

    def ctlmsg(self):
        props = self.props or "name,size"
        if "cached" not in props.split(","):
            props += ",cached"
        return f"s3://{self.bck}, props:{props}, flags:no-dirs"
