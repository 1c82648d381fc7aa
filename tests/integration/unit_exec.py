"""unit_exec: runs the command of a systemd service unit without systemd, the
way systemd would start it: ExecStart= split into words (%i replaced by the
instance, %% by %), Environment= applied, then exec.
Only the unit syntax the deploy roles write is understood. Not a test.

    python3 unit_exec.py UNIT_FILE [INSTANCE]"""
import os
import shlex
import sys


def parse(path, instance=""):
    env, argv = {}, None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.strip()
            if not line or line[0] in "#;" or "=" not in line:
                continue
            key, val = line.split("=", 1)
            val = val.replace("%i", instance).replace("%%", "%")
            if key == "ExecStart":
                argv = shlex.split(val)
            elif key == "Environment":
                for word in shlex.split(val):
                    k, _, v = word.partition("=")
                    env[k] = v
    if not argv:
        sys.exit("unit_exec: no ExecStart= in %s" % path)
    return argv, env


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    argv, env = parse(sys.argv[1], sys.argv[2] if len(sys.argv) == 3 else "")
    full = dict(os.environ)
    full.update(env)
    os.execve(argv[0], argv, full)


if __name__ == "__main__":
    main()
