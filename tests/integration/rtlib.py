"""rtlib: helpers for the runtime's multi-process tests (coordinator and
agents of the built `vantage` over tcp://127.0.0.1). Not a test itself.

Synchronisation is by readiness only: a log line appearing, a row in
results.db, a process exiting; sleeps appear only where the test needs time
to pass (a link kept down for some seconds)."""
import atexit
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.environ.get("VANTAGE_SRC", os.path.dirname(os.path.dirname(HERE)))
VANTAGE = os.environ.get("VANTAGE", os.path.join(SRC, "build", "vantage"))
PROXY = os.path.join(SRC, "tests", "tcpproxy.py")


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)
    print("ok: " + msg)


def workdir(name):
    return tempfile.mkdtemp(prefix="vantage-rt-%s-" % name)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


_procs = []


@atexit.register
def _kill_children():
    """No test leaves a process behind, whether it passed or failed."""
    for p in _procs:
        if p.p.poll() is None:
            p.p.kill()
            p.p.wait()


class Proc:
    """A child process whose stdout+stderr go to a log file."""

    def __init__(self, name, argv, log, env=None):
        self.name, self.argv, self.log = name, argv, log
        e = dict(os.environ)
        e.setdefault("VANTAGE_LOG", "info")
        if env:
            e.update(env)
        self.f = open(log, "ab")
        self.p = subprocess.Popen(argv, stdout=self.f, stderr=subprocess.STDOUT, env=e)
        _procs.append(self)

    def text(self):
        with open(self.log, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def wait_log(self, pattern, timeout=30, count=1):
        """Waits until pattern matches `count` times in the log."""
        rx = re.compile(pattern)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(rx.findall(self.text())) >= count:
                return True
            if self.p.poll() is not None and len(rx.findall(self.text())) < count:
                self.dump()
                fail("%s exited (%s) before logging /%s/" % (self.name, self.p.returncode, pattern))
            time.sleep(0.02)
        self.dump()
        fail("%s did not log /%s/ within %ss" % (self.name, pattern, timeout))

    def wait(self, timeout=60):
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.dump()
            fail("%s did not exit within %ss" % (self.name, timeout))

    def signal(self, sig):
        if self.p.poll() is None:
            self.p.send_signal(sig)

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
            self.p.wait()

    def dump(self):
        print("---- log of %s (%s)" % (self.name, self.log), file=sys.stderr)
        print(self.text()[-6000:], file=sys.stderr)


def keygen(keydir, name):
    r = subprocess.run([VANTAGE, "keygen", keydir, "--name", name], capture_output=True, text=True)
    if r.returncode != 0:
        fail("keygen %s: %s" % (name, r.stderr))
    return os.path.join(keydir, name + ".key")


def write_campaign(path, name, agents, count, schedule="parallel", agent_wait="60s", jobs=1):
    ag = ", ".join('{ name = "%s"; site = "site-%s"; }' % (a, a) for a in agents)
    js = ", ".join('{ name = "null%d"; kind = "null"; count = %d; }' % (i, count)
                   for i in range(jobs))
    with open(path, "w") as f:
        f.write('name = "%s";\nschedule = "%s";\nagent_wait = "%s";\n'
                "agents = ( %s );\njobs = ( %s );\n" % (name, schedule, agent_wait, ag, js))
    return path


class Setup:
    """Keys for a coordinator and agents in one directory layout:
    keys/coordinator.key(_secret), keys/agents/NAME.key(_secret), keys/allow/NAME.key."""

    def __init__(self, name, agents, allowed=None):
        self.dir = workdir(name)
        self.keys = os.path.join(self.dir, "keys")
        self.agkeys = os.path.join(self.keys, "agents")
        self.allow = os.path.join(self.keys, "allow")
        os.makedirs(self.agkeys)
        os.makedirs(self.allow)
        keygen(self.keys, "coordinator")
        for a in agents:
            pub = keygen(self.agkeys, a)
            if allowed is None or a in allowed:
                with open(pub, "rb") as s, open(os.path.join(self.allow, a + ".key"), "wb") as d:
                    d.write(s.read())
        self.out = os.path.join(self.dir, "out")
        self.spool = os.path.join(self.dir, "spool")
        self.logs = os.path.join(self.dir, "logs")
        os.makedirs(self.logs)
        self.port = free_port()
        self.endpoint = "tcp://127.0.0.1:%d" % self.port

    def cleanup(self):
        """Removes the test's directory (called at the end of a passing test)."""
        shutil.rmtree(self.dir, ignore_errors=True)

    def coordinator(self, campaign, extra=(), tag="coordinator"):
        argv = [VANTAGE, "coordinator", campaign, "--bind", self.endpoint, "--out", self.out,
                "--keys", self.keys, "--progress", "log"] + list(extra)
        return Proc(tag, argv, os.path.join(self.logs, tag + ".log"))

    def agent(self, name, endpoint=None, extra=(), tag=None):
        argv = [VANTAGE, "agent", "--connect", endpoint or self.endpoint, "--name", name,
                "--site", "site-" + name, "--keys", self.agkeys,
                "--coordinator-key", os.path.join(self.keys, "coordinator.key"),
                "--spool", self.spool] + list(extra)
        tag = tag or "agent-" + name
        return Proc(tag, argv, os.path.join(self.logs, tag + ".log"))


def db(out):
    return sqlite3.connect("file:%s?mode=ro" % os.path.join(out, "results.db"), uri=True,
                           timeout=10)


def sample_stats(out, agent, job):
    """count, distinct seqs, min seq, max seq, distinct run values of (agent, job)."""
    c = db(out)
    try:
        return c.execute(
            "SELECT count(*), count(DISTINCT s.seq), min(s.seq), max(s.seq), count(DISTINCT s.run)"
            " FROM samples s JOIN jobs j ON j.id = s.job_row JOIN agents a ON a.id = j.agent_id"
            " WHERE a.name = ? AND j.job = ?", (agent, job)).fetchone()
    finally:
        c.close()


def stored(out, agent, job):
    try:
        return sample_stats(out, agent, job)[0]
    except sqlite3.Error:
        return 0


def wait_stored(out, agent, job, at_least, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        n = stored(out, agent, job)
        if n >= at_least:
            return n
        time.sleep(0.02)
    fail("agent %s job %s: fewer than %d samples stored after %ss" % (agent, job, at_least, timeout))


def job_status(out, agent, job):
    c = db(out)
    try:
        r = c.execute("SELECT j.status, j.expected, j.received, j.error_text FROM jobs j"
                      " JOIN agents a ON a.id = j.agent_id WHERE a.name = ? AND j.job = ?",
                      (agent, job)).fetchone()
        return r
    finally:
        c.close()


def exactly_once(out, agent, job, n, runs_distinct=True):
    cnt, dist, lo, hi, runs = sample_stats(out, agent, job)
    check(cnt == n, "%s/%s: %d samples stored, expected %d" % (agent, job, cnt, n))
    check(dist == n and lo == 1 and hi == n,
          "%s/%s: seqs are exactly 1..%d (distinct %d, min %s, max %s)" % (agent, job, n, dist, lo, hi))
    if runs_distinct:
        check(runs == n, "%s/%s: every sample the workload emitted is stored once (%d distinct)"
              % (agent, job, runs))
