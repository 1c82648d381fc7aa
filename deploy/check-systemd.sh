#!/usr/bin/env bash
# check-systemd.sh: site.yml and run-campaign.yml for real under systemd, on
# this machine, without touching it: boots this machine's own /usr in a
# throw-away container (systemd-nspawn --volatile=yes: /etc, /var and /opt are
# empty tmpfs, /usr read-only, no network but its own loopback), runs site.yml
# there with the defaults (vantage user, units enabled and started, sandboxed),
# then run-campaign.yml with a null campaign, and checks the result.
# What tests/integration/test_deploy.sh cannot do (it starts no service).
#
#   sudo deploy/check-systemd.sh          (needs systemd-container; ~1-2 min)
#
# The binary is built from this checkout inside the container (source method);
# Debian's build packages must be installed on this machine.
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
command -v systemd-nspawn >/dev/null || { echo "needs systemd-nspawn: apt-get install systemd-container" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "run as root (systemd-nspawn)" >&2; exit 2; }

T=$(mktemp -d /tmp/vantage-nspawn.XXXXXX)
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

systemd-nspawn -D / --volatile=yes --private-network --register=no --keep-unit \
  --bind-ro="$SRC" --bind="$T:/mnt/out" -M "vantage-check-$$" -b systemd.firstboot=off \
  </dev/null >"$T/boot.log" 2>&1 &
NS=$!
cleanup() {
  kill "$NS" 2>/dev/null; wait "$NS" 2>/dev/null
  if [ "$failures" = 0 ]; then rm -rf "$T"; else echo "kept $T for inspection" >&2; fi
}
trap cleanup EXIT

# The container's init is nspawn's child; it is ready when systemctl answers.
leader=""
for _ in $(seq 600); do
  leader=$(pgrep -P "$NS" | head -n 1)
  if [ -n "$leader" ]; then
    state=$(nsenter -t "$leader" -a systemctl is-system-running 2>/dev/null)
    case $state in starting|running|degraded) break ;; esac
  fi
  kill -0 "$NS" 2>/dev/null || { fail "the container did not boot: $(tail -n 20 "$T/boot.log")"; exit 1; }
  sleep 0.1
done
[ -n "$leader" ] || { fail "no container init"; exit 1; }
inside() { # runs a shell command inside the container, in /mnt/out
  nsenter -t "$leader" -a env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    ANSIBLE_CONFIG="$SRC/deploy/ansible.cfg" ANSIBLE_NOCOLOR=1 bash -c "cd /mnt/out && $1"
}

mkdir -p "$T/inv"
cat >"$T/inv/hosts.yml" <<YAML
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: /usr/bin/python3
    vantage_become: false
    vantage_prefix: /opt/vantage          # /usr is read-only in the container
    vantage_install_packages: false       # no network: this machine's /usr has them
    vantage_install_method: source
    vantage_source_dir: "$SRC"
    vantage_coordinator_address: 127.0.0.1
    vantage_coordinator_bind: tcp://127.0.0.1:7100
    vantage_campaign_poll: 1
    vantage_campaign_timeout: 300
  children:
    vantage_coordinator:
      hosts:
        box:
    vantage_agents:
      children:
        home_fiber:
          hosts:
            box:
              vantage_site: Home fiber
              vantage_aws_credentials: vault
              vantage_aws_access_key_id: AKIAEXAMPLEEXAMPLE00
              vantage_aws_secret_access_key: check-systemd-secret-$$
              vantage_ais_token: check-systemd-token-$$
YAML
cat >"$T/null.cfg" <<CFG
name = "null";
agent_wait = "120s";
agents = ( { name = "box"; } );
jobs = ( { name = "pipeline"; kind = "null"; count = 300; } );
CFG

pb() { inside "ansible-playbook -i inv/hosts.yml $SRC/deploy/$1 > $2.log 2>&1"; }
changed() { awk '/PLAY RECAP/{r=1} r && match($0, /changed=[0-9]+/) {s += substr($0, RSTART+8, RLENGTH-8)} END {print s+0}' "$T/$1.log"; }

pb site.yml site1 && ok "site.yml under systemd" || { fail "site.yml: $(tail -n 30 "$T/site1.log")"; exit 1; }
pb site.yml site2 && [ "$(changed site2)" = 0 ] && ok "second run: changed=0" || fail "second run: $(grep -B3 '^changed' "$T/site2.log" | head -n 30)"
inside 'systemctl is-active --quiet vantage-agent' && ok "vantage-agent.service active" \
  || fail "agent not active: $(inside 'journalctl -u vantage-agent --no-pager | tail -n 20')"
[ "$(inside 'stat -c %U:%a /etc/vantage/aws-credentials /var/lib/vantage-agent/keys/box.key_secret' | sort -u)" = "vantage:600" ] \
  || fail "credential or key file not vantage:600"
[ "$(inside 'ps -o user= -C vantage' | sort -u)" = "vantage" ] || fail "the agent does not run as vantage"
pb "run-campaign.yml -e vantage_campaign_file=/mnt/out/null.cfg" campaign && ok "run-campaign.yml under systemd" \
  || fail "run-campaign.yml: $(tail -n 30 "$T/campaign.log")"
n=$(sqlite3 "$T/inv/results/null/box/results.db" "SELECT COUNT(*) FROM samples" 2>&1)
[ "$n" = 300 ] && ok "300 samples fetched" || fail "fetched results.db has $n samples, want 300"
grep -qF -e "check-systemd-secret-$$" -e "check-systemd-token-$$" "$T"/*.log && fail "a secret in Ansible's output"
inside 'systemd-analyze security --no-pager vantage-agent.service vantage-coordinator@null.service' | grep 'Overall exposure'

echo "$((failures == 0 ? 1 : 0)) passed, $((failures > 0 ? 1 : 0)) failed"
exit $((failures > 0))
