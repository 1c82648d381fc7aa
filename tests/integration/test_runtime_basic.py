#!/usr/bin/env python3
"""Registration and exactly-once storage: a coordinator and three agents over
tcp://127.0.0.1 with CURVE; one null job on all three in parallel. Every
sample each agent emitted is in results.db exactly once (count, seqs 1..N,
distinct workload indices), the job rows say done with the right counts, and
the agents leave cleanly on SIGTERM with nothing left unacknowledged."""
import os
import signal

from rtlib import Setup, check, exactly_once, job_status, write_campaign

N = 30000
AGENTS = ["a1", "a2", "a3"]

s = Setup("basic", AGENTS)
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "basic", AGENTS, N)
coord = s.coordinator(camp)
coord.wait_log(r"listening on tcp://127\.0\.0\.1:%d \(CURVE\)" % s.port)
agents = [s.agent(a) for a in AGENTS]
for a in AGENTS:
    coord.wait_log(r"agent %s registered \(site \"site-%s\"" % (a, a))
print("ok: three agents registered with their site labels")
rc = coord.wait(120)
check(rc == 0, "coordinator finished the campaign with exit status 0 (got %s)" % rc)
for a in AGENTS:
    exactly_once(s.out, a, "null0", N)
    st = job_status(s.out, a, "null0")
    check(st[0] == "done" and st[1] == N and st[2] == N,
          "%s: job row done, expected %d, received %d" % (a, N, N))
for p in agents:
    p.signal(signal.SIGTERM)
for p, a in zip(agents, AGENTS):
    rc = p.wait(30)
    check(rc == 0, "agent %s stopped cleanly on SIGTERM" % a)
    p.wait_log(r"agent %s stopped; 0 unacknowledged samples" % a)
check(os.path.exists(os.path.join(s.out, "report.txt")), "the coordinator wrote report.txt")
s.cleanup()
