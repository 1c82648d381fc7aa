#!/usr/bin/env python3
"""An agent lost for good: killed mid-job and never restarted. The other
agent's job completes; after --rejoin-wait the coordinator ends the campaign
with exit status 4 and the lost agent's job row says incomplete with the exact
number of samples stored (the same number results.db holds)."""
import os
import re

from rtlib import Setup, check, exactly_once, job_status, stored, wait_stored, write_campaign

N = 200000
s = Setup("lost", ["gone", "stays"])
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "lost", ["gone", "stays"], N)
coord = s.coordinator(camp, extra=["--lost-after", "2s", "--heartbeat", "250ms",
                                   "--rejoin-wait", "2s"])
coord.wait_log(r"listening on")
gone = s.agent("gone", extra=["--heartbeat-ms", "250", "--lost-after-ms", "2000",
                              "--test-max-rate", "20000"])
stays = s.agent("stays")
wait_stored(s.out, "gone", "null0", 5000)
gone.kill()
rc = coord.wait(120)
check(rc == 4, "the campaign ends with exit status 4: finished, with an incomplete job (%s)" % rc)
exactly_once(s.out, "stays", "null0", N)
n = stored(s.out, "gone", "null0")
st = job_status(s.out, "gone", "null0")
check(0 < n < N, "the lost agent's samples up to its death are stored (%d)" % n)
m = re.search(r"([0-9]+) samples stored", st[3] or "")
check(st[0] == "failed" and "incomplete" in st[3] and m and int(m.group(1)) == n and st[2] == n,
      "its job row: incomplete, with the exact count %d (%s)" % (n, st[3]))
check(re.search(r"step .*agent gone.* ended incomplete", coord.text()) is not None,
      "the coordinator's summary names the incomplete step")
stays.kill()
s.cleanup()
