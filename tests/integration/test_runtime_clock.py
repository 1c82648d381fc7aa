#!/usr/bin/env python3
"""Clock offsets: an agent whose wall clock is shifted by a known amount
(+5 s, through the agent's hidden test option) is estimated by the coordinator
within the error bound it stores; an unshifted agent is estimated near zero;
and the samples' corrected start times are the agent's timestamps minus that
offset (so both agents' samples land on the coordinator's timeline)."""
import os
import time

from rtlib import Setup, check, db, write_campaign

SHIFT_NS = 5_000_000_000
N = 2000
s = Setup("clock", ["shifted", "plain"])
camp = write_campaign(os.path.join(s.dir, "c.cfg"), "clock", ["shifted", "plain"], N)
t0 = time.time_ns()
coord = s.coordinator(camp)
coord.wait_log(r"listening on")
a1 = s.agent("shifted", extra=["--test-wall-offset-ms", str(SHIFT_NS // 1_000_000)])
a2 = s.agent("plain")
rc = coord.wait(120)
t1 = time.time_ns()
check(rc == 0, "campaign finished (exit %s)" % rc)
c = db(s.out)
rows = {name: c.execute(
    "SELECT o.offset_ns, o.error_ns, o.rtt_ns FROM clock_offsets o JOIN agents a ON"
    " a.id = o.agent_id WHERE a.name = ? ORDER BY o.at_ns", (name,)).fetchall()
    for name in ("shifted", "plain")}
for name, true in (("shifted", SHIFT_NS), ("plain", 0)):
    check(len(rows[name]) >= 1, "%s: clock offset stored (%d estimates)" % (name, len(rows[name])))
    for off, err, rtt in rows[name]:
        check(err is not None and 0 <= err <= 50_000_000,
              "%s: error bound %.3f ms is small on loopback" % (name, err / 1e6))
        check(abs(off - true) <= err,
              "%s: estimate %+.3f ms is within %.3f ms of the true %+.3f ms"
              % (name, off / 1e6, err / 1e6, true / 1e6))
for name in ("shifted", "plain"):
    lo, hi, dmin, dmax = c.execute(
        "SELECT min(start_ns), max(start_ns), min(start_wall_ns - start_ns),"
        " max(start_wall_ns - start_ns) FROM samples_v WHERE agent = ?", (name,)).fetchone()
    check(t0 <= lo and hi <= t1,
          "%s: corrected start times fall inside the run on the coordinator's clock" % name)
    true = SHIFT_NS if name == "shifted" else 0
    check(abs(dmin - true) <= 1_000_000 and abs(dmax - true) <= 1_000_000,
          "%s: every start_ns = agent wall time - an offset estimate within 1 ms of the true "
          "shift (%+.3f..%+.3f ms)" % (name, (dmin - true) / 1e6, (dmax - true) / 1e6))
c.close()
for p in (a1, a2):
    p.kill()
s.cleanup()
