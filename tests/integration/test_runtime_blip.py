#!/usr/bin/env python3
"""A short break of the link, shorter than the heartbeat timeouts: the proxy
between agent and coordinator is killed and started again at once. ZeroMQ
reconnects under the same session; whatever was in flight in the cut TCP
connection is lost and must come again from the spool (the agent resends when
ACKs stall). Nothing lost, nothing duplicated, the agent never re-registers."""
import os
import sys

from rtlib import PROXY, Proc, Setup, check, exactly_once, free_port, stored, wait_stored, \
    write_campaign

N = 120000
s = Setup("blip", ["b"])
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "blip", ["b"], N)
coord = s.coordinator(camp, extra=["--lost-after", "20s"])
coord.wait_log(r"listening on")
pport = free_port()
proxy_argv = [sys.executable, PROXY, str(pport), "127.0.0.1:%d" % s.port]
proxy = Proc("proxy", proxy_argv, os.path.join(s.logs, "proxy.log"))
proxy.wait_log(r"listening on")
agent = s.agent("b", endpoint="tcp://127.0.0.1:%d" % pport,
                extra=["--lost-after-ms", "20000", "--test-max-rate", "20000"])
coord.wait_log(r"agent b registered")
for k in range(3):
    wait_stored(s.out, "b", "null0", (k + 1) * 20000)
    proxy.kill()
    proxy = Proc("proxy%d" % k, proxy_argv, os.path.join(s.logs, "proxy%d.log" % k))
    proxy.wait_log(r"listening on")
check(stored(s.out, "b", "null0") < N, "the link broke three times while the job ran")
rc = coord.wait(180)
check(rc == 0, "campaign completed (exit %s)" % rc)
exactly_once(s.out, "b", "null0", N)
check("agent b rejoined" not in coord.text() and "agent b lost" not in coord.text(),
      "the agent was never lost and never registered again")
agent.kill()
proxy.kill()
s.cleanup()
