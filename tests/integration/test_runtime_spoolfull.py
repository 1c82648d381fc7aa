#!/usr/bin/env python3
"""A spool at its size limit pauses the job instead of filling the disk: the
agent's link is cut (proxy stopped) while it runs a job with --spool-max 1MiB;
the agent says the job is paused, the spool stays near the limit, and once
the link is back the job resumes and every sample is stored exactly once."""
import os
import sys
import time

from rtlib import PROXY, Proc, Setup, check, exactly_once, free_port, wait_stored, write_campaign

N = 200000
LIMIT = 1 << 20
s = Setup("spoolfull", ["f"])
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "spoolfull", ["f"], N)
coord = s.coordinator(camp, extra=["--lost-after", "30s"])
coord.wait_log(r"listening on")
pport = free_port()
proxy_argv = [sys.executable, PROXY, str(pport), "127.0.0.1:%d" % s.port]
proxy = Proc("proxy", proxy_argv, os.path.join(s.logs, "proxy.log"))
proxy.wait_log(r"listening on")
agent = s.agent("f", endpoint="tcp://127.0.0.1:%d" % pport,
                extra=["--spool-max", "1MiB", "--lost-after-ms", "30000", "--test-max-rate", "100000"])
wait_stored(s.out, "f", "null0", 2000)
proxy.kill()
agent.wait_log(r"job paused until the coordinator acknowledges", timeout=60)
size = os.path.getsize(os.path.join(s.spool, "f.spool"))
# Paused: the spool does not keep growing (allow the batches already queued).
time.sleep(1.0)
size2 = os.path.getsize(os.path.join(s.spool, "f.spool"))
check(size2 - size < 256 * 1024 and size2 < 2 * LIMIT,
      "the spool stays near its limit while paused (%d then %d bytes)" % (size, size2))
proxy = Proc("proxy2", proxy_argv, os.path.join(s.logs, "proxy2.log"))
proxy.wait_log(r"listening on")
agent.wait_log(r"job resumed", timeout=60)
rc = coord.wait(180)
check(rc == 0, "campaign completed (exit %s)" % rc)
exactly_once(s.out, "f", "null0", N)
agent.kill()
proxy.kill()
s.cleanup()
