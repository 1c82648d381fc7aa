#!/usr/bin/python3
"""`vantage run` of a campaign with broken parts, on the local RGW and a
private AIS emulator: a scale point whose expected count is wrong, a scale
point whose inventory creation fails (the emulator's nbi-fail fault), and a job
against an unreachable target. Each must give a clear error for that point or
job, stored and reported, while the rest of the campaign completes with every
scale point's creation time and R samples per path.
"""
import json
import os
import socket
import sqlite3
import subprocess
import tempfile
import unittest
import urllib.request

SRC = os.environ.get("VANTAGE_SRC", os.path.join(os.path.dirname(__file__), "..", ".."))
VANTAGE = os.environ.get("VANTAGE", os.path.join(SRC, "build", "vantage"))
CTL = os.path.join(SRC, "tests", "ais_emulator", "ctl.sh")
RUNS = 2
PATHS = ("ais-regular", "ais-nbi", "s3-direct")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CAMPAIGN = """
name = "faults";
schedule = "sequential";
agent_wait = "60s";
targets = (
  {{ name = "rgw"; kind = "s3"; endpoint = "{rgw}"; bucket = "{bucket}"; }},
  {{ name = "ais"; kind = "ais"; endpoint = "{ais}"; bucket = "{bucket}"; provider = "aws"; }},
  {{ name = "dead"; kind = "s3"; endpoint = "http://127.0.0.1:{dead}"; bucket = "{bucket}"; }}
);
agents = ( {{ name = "solo"; site = "here"; }} );
jobs = (
  {{ name = "populate-a"; kind = "populate"; target = "rgw"; prefix = "vantage-faults/a/";
     count = 40; size = "1B"; naming = "sequential"; }},
  {{ name = "populate-b"; kind = "populate"; target = "rgw"; prefix = "vantage-faults/b/";
     count = 30; size = "1B"; naming = "sequential"; }},
  {{ name = "populate-c"; kind = "populate"; target = "rgw"; prefix = "vantage-faults/c/";
     count = 20; size = "1B"; naming = "sequential"; }},
  {{ name = "listing"; kind = "list-scale"; target = "ais"; s3_target = "rgw"; runs = {runs};
     scale = (
       {{ label = "B-nbi-fails"; prefix = "vantage-faults/b/"; count = 30; }},
       {{ label = "A"; prefix = "vantage-faults/a/"; count = 40; }},
       {{ label = "C-wrong"; prefix = "vantage-faults/c/"; count = 21; }}
     );
     nbi_timeout = "30s"; }},
  {{ name = "unreachable"; kind = "ops"; target = "dead"; iterations = 1; size = "1KiB";
     timeout = "5s"; }}
);
"""


class RunWithFaults(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="vantage-run-faults-")
        tmp = cls.tmp.name
        port, tport = free_port(), free_port()
        cls.ais = f"http://127.0.0.1:{port}"
        cls.emu_env = dict(os.environ, VANTAGE_AISEMU_PORT=str(port),
                           VANTAGE_AISEMU_TARGET_PORT=str(tport),
                           VANTAGE_AISEMU_DIR=os.path.join(tmp, "aisemu"))
        subprocess.run(["bash", CTL, "start"], env=cls.emu_env, check=True)
        # the next inventory creation (point B, the first) fails
        req = urllib.request.Request(f"{cls.ais}/emulator/fault", method="POST",
                                     data=json.dumps({"fault": "nbi-fail", "count": 1}).encode(),
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=10).read()
        cfg = os.path.join(tmp, "faults.cfg")
        with open(cfg, "w") as f:
            f.write(CAMPAIGN.format(rgw=os.environ["AWS_ENDPOINT_URL"], ais=cls.ais,
                                    bucket=os.environ["VANTAGE_TEST_BUCKET"], dead=free_port(),
                                    runs=RUNS))
        cls.out = os.path.join(tmp, "out")
        cls.proc = subprocess.run([VANTAGE, "run", cfg, "--out", cls.out, "--progress", "log"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  timeout=600)
        if not os.path.exists(os.path.join(cls.out, "results.db")):
            print(cls.proc.stdout[-5000:])
            cls.tearDownClass()
            raise AssertionError("vantage run stored nothing")
        cls.db = sqlite3.connect(f"file:{cls.out}/results.db?mode=ro", uri=True)

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "db", None):
            cls.db.close()
        subprocess.run(["bash", CTL, "stop"], env=cls.emu_env)
        cls.tmp.cleanup()

    def rows(self, q, *args):
        return self.db.execute(q, args).fetchall()

    def test_the_run_finishes_and_says_it_had_failures(self):
        # 4: finished, with incomplete or failed jobs
        self.assertIn(self.proc.returncode, (0, 4), self.proc.stdout[-5000:])
        report = open(os.path.join(self.out, "report.txt")).read()
        self.assertIn("B-nbi-fails  ERROR:", report)
        self.assertIn("C-wrong  ERROR:", report)

    def test_good_point_has_creation_and_runs_per_path(self):
        created = self.rows("""select server_ns, err_class from samples_v
                               where job = 'listing' and op = 'nbi-create' and label = 'A'""")
        self.assertEqual(len(created), 1)
        self.assertGreater(created[0][0], 0)
        self.assertEqual(created[0][1], 0)
        for path in PATHS:
            got = self.rows("""select keys from samples_v where job = 'listing' and label = 'A'
                               and op = ? and warmup = 0 and err_class = 0""", path)
            self.assertEqual([k for (k,) in got], [40] * RUNS, path)

    def test_wrong_count_is_an_error_for_that_point_only(self):
        bad = self.rows("""select op, err_name, err_msg from samples_v
                           where job = 'listing' and label = 'C-wrong' and err_class != 0""")
        self.assertEqual(len(bad), 1, bad)
        op, cls, msg = bad[0]
        self.assertEqual((op, cls), ("count-check", "mismatch"))
        self.assertIn("21", msg)
        runs = self.rows("""select count(*) from samples_v where job = 'listing'
                            and label = 'C-wrong' and op in ('ais-regular','ais-nbi','s3-direct')
                            and warmup = 0""")[0][0]
        self.assertEqual(runs, 0, "a point with a wrong count must not be measured")

    def test_failed_creation_is_an_error_for_that_point_only(self):
        bad = self.rows("""select op, err_msg from samples_v
                           where job = 'listing' and label = 'B-nbi-fails' and err_class != 0""")
        self.assertTrue(bad)
        self.assertEqual(bad[0][0], "nbi-create")
        self.assertIn("nbi-fail", bad[0][1])
        # no inventory is left behind
        with urllib.request.urlopen(f"{self.ais}/emulator/state", timeout=10) as r:
            state = json.loads(r.read())
        self.assertFalse(state.get("inventories"), state.get("inventories"))

    def test_unreachable_target_is_a_clear_connection_error(self):
        rows = self.rows("""select op, err_name, err_msg from samples_v
                            where job = 'unreachable'""")
        self.assertTrue(rows)
        for op, cls, msg in rows:
            self.assertEqual(cls, "connection", (op, msg))
            self.assertIn("127.0.0.1:", msg)
        status = self.rows("""select status, error_text from jobs where job = 'unreachable'""")
        self.assertEqual(len(status), 1)

    def test_every_job_reached_its_end(self):
        for job, status in self.rows("select job, status from jobs"):
            self.assertIn(status, ("done", "failed"), job)
        done = {j for (j,) in self.rows("select job from jobs where status = 'done'")}
        self.assertTrue({"populate-a", "populate-b", "populate-c", "listing"} <= done, done)


if __name__ == "__main__":
    unittest.main(verbosity=2)
