#!/usr/bin/env python3
"""CURVE keys and admission:
- `vantage keygen` writes NAME.key and NAME.key_secret (mode 0600) and refuses
  to overwrite them without --force;
- an agent whose key is not in the coordinator's allow-list is refused: the
  coordinator logs its public key (and nothing secret), the agent gives up with
  a clear message and a non-zero exit, and the admitted agent's run goes on;
- plain TCP (--insecure) is refused on a non-loopback address, on both sides."""
import os
import re
import stat
import subprocess

from rtlib import VANTAGE, Setup, check, exactly_once, write_campaign


def secret_of(path):
    with open(path) as f:
        for line in f:
            if "secret-key" in line:
                return line.split("=", 1)[1].strip().strip('"')
    return None


def public_of(path):
    with open(path) as f:
        for line in f:
            if "public-key" in line:
                return line.split("=", 1)[1].strip().strip('"')
    return None


s = Setup("keys", ["good", "intruder"], allowed=["good"])

# keygen
sec = os.path.join(s.agkeys, "good.key_secret")
check(stat.S_IMODE(os.stat(sec).st_mode) == 0o600, "secret key file has mode 0600")
before = open(sec).read()
r = subprocess.run([VANTAGE, "keygen", s.agkeys, "--name", "good"], capture_output=True, text=True)
check(r.returncode != 0 and "--force" in r.stderr, "keygen refuses to overwrite without --force")
check(open(sec).read() == before, "the existing key pair is unchanged")
tmpk = os.path.join(s.dir, "k2")
subprocess.run([VANTAGE, "keygen", tmpk, "--name", "x"], check=True, capture_output=True)
old = public_of(os.path.join(tmpk, "x.key"))
r = subprocess.run([VANTAGE, "keygen", tmpk, "--name", "x", "--force"], capture_output=True, text=True)
check(r.returncode == 0 and public_of(os.path.join(tmpk, "x.key")) != old,
      "keygen --force replaces the key pair")
check(secret_of(os.path.join(tmpk, "x.key_secret")) not in r.stdout + r.stderr,
      "keygen does not print the secret key")

# admission
camp = os.path.join(s.dir, "c.cfg")
with open(camp, "w") as f:
    f.write('name = "keys";\nagent_wait = "60s";\n'
            'agents = ( { name = "good"; }, { name = "intruder"; } );\n'
            'jobs = ( { name = "null0"; kind = "null"; count = 5000; agents = [ "good" ]; } );\n')
coord = s.coordinator(camp)
coord.wait_log(r"listening on")
# An admitted key made for agent good, used by another agent of the campaign.
impostor = s.agent("intruder", extra=["--keys", os.path.join(s.agkeys, "good.key_secret")],
                   tag="impostor")
rc = impostor.wait(60)
check(rc != 0 and "presented the key of agent good" in impostor.text(),
      "an agent using another campaign agent's key is rejected (exit %s)" % rc)
intr = s.agent("intruder")
good = s.agent("good")
intr_pub = public_of(os.path.join(s.agkeys, "intruder.key"))
coord.wait_log(r"refused an agent from .*: its public key %s is not in the allow-list"
               % re.escape(intr_pub))
rc = intr.wait(60)
check(rc != 0, "the refused agent exits with a non-zero status (%s)" % rc)
check("refused this agent's key" in intr.text() and "allow-list" in intr.text(),
      "the refused agent says why and what to do")
rc = coord.wait(120)
check(rc == 0, "the admitted agent's campaign completed (exit %s)" % rc)
exactly_once(s.out, "good", "null0", 5000)
clog = coord.text()
for name in ("good", "intruder", "coordinator"):
    path = os.path.join(s.agkeys if name != "coordinator" else s.keys, name + ".key_secret")
    check(secret_of(path) not in clog, "the coordinator log holds no secret key of %s" % name)
check("agent intruder registered" not in clog, "the intruder never registered")
good.kill()

# plain TCP only on loopback
r = subprocess.run([VANTAGE, "coordinator", camp, "--bind", "tcp://0.0.0.0:%d" % s.port,
                    "--out", os.path.join(s.dir, "o2"), "--insecure"], capture_output=True, text=True)
check(r.returncode != 0 and "--insecure" in r.stderr, "coordinator refuses --insecure on 0.0.0.0")
r = subprocess.run([VANTAGE, "agent", "--connect", "tcp://192.0.2.1:5555", "--name", "good",
                    "--insecure", "--spool", os.path.join(s.dir, "sp2")], capture_output=True, text=True)
check(r.returncode != 0 and "loopback" in r.stderr, "agent refuses --insecure to a non-loopback host")
r = subprocess.run([VANTAGE, "coordinator", camp, "--bind", "tcp://127.0.0.1:%d" % s.port,
                    "--out", os.path.join(s.dir, "o3")], capture_output=True, text=True)
check(r.returncode != 0 and "--keys" in r.stderr, "coordinator without keys and without --insecure refuses to start")
s.cleanup()
