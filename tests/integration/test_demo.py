#!/usr/bin/python3
"""End to end: the demo (tests/demo.sh) at small scale, three agents behind
emulated ec2, fiber and mobile links, over CURVE to a coordinator, against the
local RGW and AIS emulator. Asserts on the stored results (results.db), not on
printed text:

- every site has its samples, in every job it ran;
- in every op's median the sites are ordered by their emulated RTT
  (ec2 < fiber < mobile);
- NBI listing is faster than regular listing at the largest scale point;
- counts match: every job complete, received == expected, sequence numbers
  exactly 1..n, every listing returned the expected number of keys;
- and a second run in which the mobile site's link (storage and coordinator
  alike) drops for several seconds mid-run still stores every sample exactly
  once.
"""
import os
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import unittest

SRC = os.environ.get("VANTAGE_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
VANTAGE = os.environ.get("VANTAGE", os.path.join(SRC, "build", "vantage"))
CAMPAIGN = os.path.join(SRC, "tests", "data", "demo-small.cfg")
SITES = ["ec2", "fiber", "mobile"]  # in the order of their emulated RTT
SCALES = [100, 600]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_demo(tmp, extra_env=None):
    env = dict(os.environ)
    env.update({
        "DEMO_CAMPAIGN": CAMPAIGN,
        "DEMO_RESULTS": os.path.join(tmp, "results"),
        "DEMO_OUT": os.path.join(tmp, "results", "run"),
        "DEMO_PORT": str(free_port()),
        # a private set of link emulators, apart from a demo the user may run
        "LINKEMU_BASE_PORT": str(27000 + (os.getpid() % 200) * 50),
        "LINKEMU_STATE": os.path.join(tmp, "linkemu"),
        "LINKEMU_NETNS_BASE": str(100 + (os.getpid() % 40) * 3),
    })
    env.update(extra_env or {})
    proc = subprocess.run(["bash", os.path.join(SRC, "tests", "demo.sh"), VANTAGE], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=900)
    out = env["DEMO_OUT"]
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout[-20000:])
        for s in SITES:
            log = os.path.join(out, "logs", f"agent-{s}.log")
            if os.path.exists(log):
                sys.stdout.write(f"--- {log}\n" + open(log).read()[-4000:])
    return proc, out


class ExactlyOnce:
    def assert_complete_and_exactly_once(self, db):
        jobs = db.execute("""select j.job, a.name, j.status, j.expected, j.received,
                                    count(s.id), count(distinct s.seq), coalesce(max(s.seq), 0)
                             from jobs j join agents a on a.id = j.agent_id
                             left join samples s on s.job_row = j.id group by j.id""").fetchall()
        self.assertTrue(jobs)
        for job, agent, status, expected, received, n, distinct, top in jobs:
            where = f"job {job} on {agent}"
            self.assertEqual(status, "done", where)
            self.assertEqual(received, expected, where)
            self.assertEqual(n, received, where)
            self.assertEqual(distinct, n, f"{where}: duplicate sequence numbers")
            self.assertEqual(top, n, f"{where}: sequence numbers are not 1..n")


class DemoSmall(unittest.TestCase, ExactlyOnce):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="vantage-demo-test-")
        cls.proc, cls.out = run_demo(cls.tmp.name)
        cls.db = sqlite3.connect(f"file:{cls.out}/results.db?mode=ro", uri=True)

    @classmethod
    def tearDownClass(cls):
        cls.db.close()
        cls.tmp.cleanup()

    def medians(self, job, op, scale=None):
        """Median duration (ms) per agent of the successful, non-warm-up samples."""
        q = """select agent, duration_ns from samples_v
               where job = ? and op = ? and err_class = 0 and warmup = 0"""
        args = [job, op]
        if scale is not None:
            q += " and scale = ?"
            args.append(scale)
        per = {}
        for agent, d in self.db.execute(q, args):
            per.setdefault(agent, []).append(d / 1e6)
        return {a: statistics.median(v) for a, v in per.items()}

    def test_demo_succeeds_and_writes_its_reports(self):
        self.assertEqual(self.proc.returncode, 0, "demo.sh failed")
        for name in ("results.db", "report.txt", "report.html"):
            self.assertTrue(os.path.getsize(os.path.join(self.out, name)) > 0, name)

    def test_every_site_has_its_samples(self):
        for job in ("calibrate", "probe", "listing", "s3bench"):
            for site in SITES:
                n = self.db.execute("select count(*) from samples_v where job = ? and agent = ?",
                                    (job, site)).fetchone()[0]
                self.assertGreater(n, 0, f"no samples of job {job} from {site}")
        sites = dict(self.db.execute("select name, site from agents"))
        self.assertEqual(sites, {"ec2": "EC2 same region", "fiber": "Home fiber",
                                 "mobile": "Mobile"})

    def test_sites_are_ordered_by_rtt_in_every_op(self):
        # probe-connect is left out: through a loopback link emulator the TCP
        # handshake completes locally, and the RTT shows in the first byte.
        groups = [("s3bench", op, None) for op in ("put", "get", "head", "delete")]
        groups.append(("probe", "probe-head", None))
        groups += [("listing", op, n) for op in ("ais-regular", "ais-nbi", "s3-direct")
                   for n in SCALES]
        for job, op, scale in groups:
            m = self.medians(job, op, scale)
            where = f"{job}/{op}" + (f" at {scale}" if scale else "")
            self.assertEqual(sorted(m), sorted(SITES), f"{where}: sites {sorted(m)}")
            order = sorted(SITES, key=lambda s: m[s])
            self.assertEqual(order, SITES, f"{where}: medians {m}")

    def test_nbi_is_faster_than_regular_at_the_largest_scale(self):
        regular = self.medians("listing", "ais-regular", max(SCALES))
        nbi = self.medians("listing", "ais-nbi", max(SCALES))
        for site in SITES:
            self.assertLess(nbi[site], regular[site], site)

    def test_counts_match(self):
        self.assert_complete_and_exactly_once(self.db)
        rows = self.db.execute("""select agent, op, scale, keys, flags from samples_v
                                  where job = 'listing' and warmup = 0
                                  and op in ('ais-regular', 'ais-nbi', 's3-direct')""").fetchall()
        # every (site, path, scale) has its 3 runs
        self.assertEqual(len(rows), len(SITES) * 3 * len(SCALES) * 3)
        for agent, op, scale, keys, flags in rows:
            self.assertEqual(keys, scale, f"{agent} {op} at {scale}")
            self.assertEqual(flags & 1, 0, f"{agent} {op} flagged a count mismatch")
        creations = self.db.execute("""select scale, server_ns from samples_v
                                       where job = 'listing' and op = 'nbi-create'""").fetchall()
        self.assertEqual(sorted(s for s, _ in creations), SCALES)
        for scale, server_ns in creations:
            self.assertGreater(server_ns, 0, f"no server-side creation time at {scale}")
        # one label for all sites, so the report lines them up op by op
        for job in ("s3bench", "probe"):
            labels = self.db.execute("""select count(distinct label) from samples_v
                                        where job = ?""", (job,)).fetchone()[0]
            self.assertEqual(labels, 1, job)
        ops = self.db.execute("""select agent, op, count(*) from samples_v where job = 's3bench'
                                 and err_class = 0 group by agent, op""").fetchall()
        self.assertEqual(len(ops), len(SITES) * 4)
        for agent, op, n in ops:
            self.assertEqual(n, 3, f"{agent} {op}")


class DemoLinkDrop(unittest.TestCase, ExactlyOnce):
    def test_a_dropped_link_loses_and_duplicates_nothing(self):
        with tempfile.TemporaryDirectory(prefix="vantage-demo-drop-") as tmp:
            proc, out = run_demo(tmp, {"DEMO_DROP": "mobile:1:5"})
            self.assertIn("dropping the mobile link for 5s", proc.stdout)
            self.assertEqual(proc.returncode, 0, "the campaign did not complete")
            log = open(os.path.join(out, "logs", "agent-mobile.log")).read()
            self.assertRegex(log, "disconnected|reconnecting|no word from the coordinator",
                             "the mobile agent never noticed the drop")
            db = sqlite3.connect(f"file:{out}/results.db?mode=ro", uri=True)
            try:
                self.assert_complete_and_exactly_once(db)
                n = db.execute("select count(*) from samples_v where agent = 'mobile'").fetchone()[0]
                self.assertGreater(n, 0)
            finally:
                db.close()


if __name__ == "__main__":
    unittest.main(verbosity=2)
