#!/usr/bin/env python3
"""A coordinator killed with SIGKILL mid-campaign and restarted with the same
--out resumes: the agents keep running their job and spooling, find the new
coordinator, resend what it has not stored; the job that was already complete
is not run again; in the end every sample is stored exactly once."""
import os
import signal

from rtlib import Setup, check, db, exactly_once, job_status, wait_stored, write_campaign

N0, N1 = 2000, 150000
AGENTS = ["r1", "r2"]
s = Setup("crestart", AGENTS)
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "crestart", AGENTS, 0, jobs=2)
# job null0 small, job null1 long (the agents hold it to 30000 samples/s)
with open(camp) as f:
    text = f.read()
text = text.replace('name = "null0"; kind = "null"; count = 0;', 'name = "null0"; kind = "null"; count = %d;' % N0)
text = text.replace('name = "null1"; kind = "null"; count = 0;', 'name = "null1"; kind = "null"; count = %d;' % N1)
with open(camp, "w") as f:
    f.write(text)
copts = ["--lost-after", "2s", "--heartbeat", "250ms"]
coord = s.coordinator(camp, extra=copts, tag="coordinator-1")
coord.wait_log(r"listening on")
agents = [s.agent(a, extra=["--heartbeat-ms", "250", "--lost-after-ms", "2000",
                            "--test-max-rate", "30000"]) for a in AGENTS]
for a in AGENTS:
    wait_stored(s.out, a, "null1", 2000)
    check(job_status(s.out, a, "null0")[0] == "done", "%s: job null0 complete before the kill" % a)
coord.signal(signal.SIGKILL)
coord.wait(30)
check(coord.p.returncode == -9, "coordinator killed with SIGKILL while null1 runs")
check(all(p.p.poll() is None for p in agents), "the agents keep running")
coord = s.coordinator(camp, extra=copts, tag="coordinator-2")
coord.wait_log(r"resuming campaign crestart")
rc = coord.wait(240)
check(rc == 0, "the restarted coordinator completed the campaign (exit %s)" % rc)
for a in AGENTS:
    exactly_once(s.out, a, "null0", N0)
    exactly_once(s.out, a, "null1", N1)
c = db(s.out)
for a in AGENTS:
    n = c.execute("SELECT count(*) FROM rt_dispatch WHERE job = 'null0' AND agent = ?", (a,)).fetchone()[0]
    check(n == 1, "%s: the complete job null0 was not sent again (%d dispatch)" % (a, n))
c.close()
for p in agents:
    p.kill()
s.cleanup()
