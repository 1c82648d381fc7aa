#!/usr/bin/env python3
"""A link interrupted for several seconds: the agent reaches the coordinator
through tests/tcpproxy.py; mid-job the proxy is killed (every connection cut)
and started again 4 s later. The agent keeps working and spooling; the
coordinator declares it lost (lost-after 2 s) and takes it back when it
returns; the samples are all stored exactly once: nothing lost, nothing
duplicated, and the workload was never restarted."""
import os
import subprocess
import sys
import time

from rtlib import PROXY, Proc, Setup, check, exactly_once, free_port, job_status, wait_stored, \
    write_campaign

N = 150000
s = Setup("link", ["far", "near"])
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "link", ["far", "near"], N)
coord = s.coordinator(camp, extra=["--lost-after", "2s", "--heartbeat", "250ms"])
coord.wait_log(r"listening on")
pport = free_port()
proxy_argv = [sys.executable, PROXY, str(pport), "127.0.0.1:%d" % s.port]
proxy = Proc("proxy", proxy_argv, os.path.join(s.logs, "proxy.log"))
proxy.wait_log(r"listening on 127\.0\.0\.1:%d" % pport)
agent = s.agent("far", endpoint="tcp://127.0.0.1:%d" % pport,
                extra=["--heartbeat-ms", "250", "--lost-after-ms", "2000",
                       "--test-max-rate", "25000"])
near = s.agent("near", extra=["--test-max-rate", "50000"])
coord.wait_log(r"agent far registered")
wait_stored(s.out, "far", "null0", 5000)
proxy.kill()
down_at = time.monotonic()
coord.wait_log(r"agent far lost", timeout=30)
agent.wait_log(r"no word from the coordinator", timeout=30)
# The outage itself is what is tested: keep the path down for at least 4 s.
time.sleep(max(0.0, 4.0 - (time.monotonic() - down_at)))
# A lost agent does not stop the others: near (direct link) completes meanwhile.
end = time.monotonic() + 60
while job_status(s.out, "near", "null0")[0] != "done" and time.monotonic() < end:
    time.sleep(0.05)
check(job_status(s.out, "near", "null0")[0] == "done" and "agent far rejoined" not in coord.text(),
      "the other agent's job completed while far was away")
mid = job_status(s.out, "far", "null0")
check(mid[0] == "failed" and "incomplete" in (mid[3] or ""),
      "while the agent is away its job is marked incomplete (%s: %s)" % (mid[0], mid[3]))
proxy = Proc("proxy2", proxy_argv, os.path.join(s.logs, "proxy2.log"))
proxy.wait_log(r"listening on")
coord.wait_log(r"agent far (rejoined|reconnected)", timeout=60)
rc = coord.wait(180)
check(rc == 0, "campaign completed after the outage (exit %s)" % rc)
exactly_once(s.out, "far", "null0", N)
exactly_once(s.out, "near", "null0", N)
st = job_status(s.out, "far", "null0")
check(st[0] == "done" and st[2] == N, "job row done with %d samples after the agent rejoined" % N)
check("job null0 on agent far was interrupted" not in coord.text() and
      "ended: ok" in agent.text() and agent.text().index("ended: ok") > agent.text().index("no word"),
      "the agent kept running the job through the outage; it was not restarted")
agent.kill()
near.kill()
proxy.kill()
s.cleanup()
