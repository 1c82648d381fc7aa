#!/usr/bin/env python3
"""An agent killed with SIGKILL mid-job and restarted with the same spool
loses nothing it had spooled. To be sure unacknowledged samples exist at the
kill, the agent talks through tests/tcpproxy.py and the proxy is stopped first:
the agent keeps spooling with no ACK coming. After the kill the proxy and the
agent are started again: the restarted agent reports the spooled, unacked
samples of the interrupted job, resends them, the coordinator stores them and
sends the rest of the job (null is count-based) - in the end exactly N samples
with seqs 1..N, no duplicates."""
import os
import re
import sys

from rtlib import PROXY, Proc, Setup, check, exactly_once, free_port, stored, wait_stored, \
    write_campaign

N = 300000
s = Setup("akill", ["victim"])
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "akill", ["victim"], N)
coord = s.coordinator(camp, extra=["--lost-after", "2s", "--heartbeat", "250ms"])
coord.wait_log(r"listening on")
pport = free_port()
proxy_argv = [sys.executable, PROXY, str(pport), "127.0.0.1:%d" % s.port]
proxy = Proc("proxy", proxy_argv, os.path.join(s.logs, "proxy.log"))
proxy.wait_log(r"listening on")
ep = "tcp://127.0.0.1:%d" % pport
# Held to 50000 samples/s so that the job (6 s) is still running at the kill.
agent_extra = ["--heartbeat-ms", "250", "--lost-after-ms", "2000", "--test-max-rate", "50000"]
agent = s.agent("victim", endpoint=ep, extra=agent_extra, tag="agent-1")
wait_stored(s.out, "victim", "null0", 2000)
proxy.kill()
coord.wait_log(r"agent victim lost", timeout=30)
before = stored(s.out, "victim", "null0")
agent.wait_log(r"no word from the coordinator", timeout=30)
agent.kill()
check(agent.p.returncode == -9, "agent killed with SIGKILL mid-job")
check(before < N, "the job was not complete at the kill (%d of %d stored)" % (before, N))
proxy = Proc("proxy2", proxy_argv, os.path.join(s.logs, "proxy2.log"))
proxy.wait_log(r"listening on")
agent = s.agent("victim", endpoint=ep, extra=agent_extra, tag="agent-2")
agent.wait_log(r"job [0-9a-f]+ has [0-9]+ unacknowledged samples \(interrupted\)")
m = re.search(r"job [0-9a-f]+ has ([0-9]+) unacknowledged samples", agent.text())
unacked = int(m.group(1))
check(unacked > 0, "the restarted agent holds %d spooled, unacknowledged samples" % unacked)
rc = coord.wait(240)
check(rc == 0, "campaign completed (exit %s)" % rc)
check(re.search(r"interrupted after [0-9]+ samples \(all stored\); the remaining [0-9]+ run",
                coord.text()) is not None, "the coordinator resumed the rest of the job")
exactly_once(s.out, "victim", "null0", N, runs_distinct=False)
agent.kill()
proxy.kill()
s.cleanup()
