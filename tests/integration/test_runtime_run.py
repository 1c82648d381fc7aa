#!/usr/bin/env python3
"""`vantage run`: the coordinator and the campaign's agents on this machine in
one command. With a sequential schedule the second agent starts only after
the first one's part is over; every sample is stored once; the run's CURVE
keys are made under OUT/keys with private secret files; the agents are stopped
at the end; running the command again on the same OUT resumes (nothing left to
do, nothing dispatched again). Also: a coordinator that waits for an agent
that never comes gives up after --wait-agents, naming it."""
import os
import stat
import subprocess

from rtlib import VANTAGE, check, db, exactly_once, workdir, write_campaign
import shutil

N = 20000
d = workdir("run")
camp = write_campaign(os.path.join(d, "c.cfg"), "runseq", ["s1", "s2"], N, schedule="sequential")
out = os.path.join(d, "out")
r = subprocess.run([VANTAGE, "run", camp, "--out", out, "--progress", "log"],
                   capture_output=True, text=True, timeout=300)
with open(os.path.join(d, "run1.log"), "w") as f:
    f.write(r.stderr)
check(r.returncode == 0, "vantage run finished with exit 0 (%s)" % r.stderr[-2000:])
for a in ("s1", "s2"):
    exactly_once(out, a, "null0", N)
c = db(out)
# The agents' own timestamps: on one host they share the clock exactly, while
# the corrected start_ns carry each offset estimate's error.
(s1_last,) = c.execute("SELECT max(start_wall_ns + duration_ns) FROM samples_v WHERE agent = 's1'").fetchone()
(s2_first,) = c.execute("SELECT min(start_wall_ns) FROM samples_v WHERE agent = 's2'").fetchone()
c.close()
check(s2_first > s1_last, "sequential: s2's first sample starts after s1's last one ended")
check("Cross-site comparison" in r.stdout or "Jobs" in r.stdout, "the report is printed at the end")
for name in ("coordinator", "agents/s1", "agents/s2"):
    p = os.path.join(out, "keys", name + ".key_secret")
    check(stat.S_IMODE(os.stat(p).st_mode) == 0o600, "%s secret key is private" % name)
for a in ("s1", "s2"):
    log = open(os.path.join(out, "logs", "agent-%s.log" % a)).read()
    check("agent %s stopped; 0 unacknowledged samples" % a in log, "agent %s was stopped cleanly" % a)
r = subprocess.run([VANTAGE, "run", camp, "--out", out, "--progress", "log"],
                   capture_output=True, text=True, timeout=300)
check(r.returncode == 0 and "-> agent" not in r.stderr,
      "running it again resumes: everything is complete, nothing is dispatched")
c = db(out)
(n,) = c.execute("SELECT count(*) FROM rt_dispatch").fetchone()
c.close()
check(n == 2, "two dispatches in all (%d)" % n)

# An agent that never comes.
camp2 = write_campaign(os.path.join(d, "c2.cfg"), "nobody", ["ghost"], 10)
r = subprocess.run([VANTAGE, "coordinator", camp2, "--bind", "tcp://127.0.0.1:*", "--out",
                    os.path.join(d, "o2"), "--insecure", "--wait-agents", "1s", "--progress", "log"],
                   capture_output=True, text=True, timeout=60)
check(r.returncode == 1 and "ghost" in r.stderr and "waiting for 1 agent" in r.stderr,
      "the coordinator gives up waiting and names the missing agent")
shutil.rmtree(d, ignore_errors=True)
