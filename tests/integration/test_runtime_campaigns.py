#!/usr/bin/env python3
"""Agents are long-running services: the same two agents serve several
campaigns in a row, each run by a new coordinator process on the same
endpoint, started right after the previous one ended. Every campaign must get
both agents and store every sample exactly once. (A closing link once left an
agent's ZeroMQ I/O thread blocked on a monitor event, so it never connected
again.)"""
import os

from rtlib import Setup, check, exactly_once, write_campaign

N = 2000
AGENTS = ["a1", "a2"]
RUNS = 6

s = Setup("campaigns", AGENTS)
agents = [s.agent(a) for a in AGENTS]
for i in range(RUNS):
    camp = write_campaign(os.path.join(s.dir, "c%d.cfg" % i), "serial%d" % i, AGENTS, N,
                          agent_wait="20s")
    out = os.path.join(s.dir, "out%d" % i)
    s.out = out
    coord = s.coordinator(camp, tag="coordinator-%d" % i)
    rc = coord.wait(90)
    if rc != 0:
        coord.dump()
        for p in agents:
            p.dump()
    check(rc == 0, "campaign %d of %d: both agents came and it finished (exit %s)" % (i + 1, RUNS, rc))
    for a in AGENTS:
        exactly_once(out, a, "null0", N)
for p in agents:
    p.kill()
s.cleanup()
