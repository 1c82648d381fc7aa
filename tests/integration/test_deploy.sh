#!/usr/bin/env bash
# deploy/ end to end on this machine: lint and syntax checks of the playbooks,
# then site.yml for real against localhost (connection local) into scratch
# trees (one per host: a coordinator and two agents at two sites), checks of
# what it wrote (key and credential modes, no secret in Ansible's output, units
# that pass systemd-analyze verify), a second run that changes nothing, and a
# campaign: the agents are started from their generated units' ExecStart and
# run-campaign.yml runs a null job through the coordinator and fetches the
# results. No systemd service is started; traffic stays on 127.0.0.1.
# Needs VANTAGE (the built binary), ansible, ansible-lint, systemd-analyze, sqlite3.
set -uo pipefail
: "${VANTAGE:?path of the vantage binary}"
SRC=${VANTAGE_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
DEPLOY=$SRC/deploy
HERE=$(cd "$(dirname "$0")" && pwd)
for tool in ansible-playbook ansible-lint ansible-vault systemd-analyze sqlite3; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed (setup.sh installs it)" >&2; exit 1; }
done

T=$(mktemp -d /tmp/vantage-deploy.XXXXXX)
agent_pids=()
cleanup() {
  for p in "${agent_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${agent_pids[@]}"; do wait "$p" 2>/dev/null; done
  if [ "${failures:-1}" = 0 ]; then rm -rf "$T"; else echo "kept $T for inspection" >&2; fi
}
trap cleanup EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }

export ANSIBLE_CONFIG=$DEPLOY/ansible.cfg ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0
export ANSIBLE_LOCAL_TEMP=$T/ansible-tmp ANSIBLE_REMOTE_TEMP=$T/ansible-tmp
export ANSIBLE_ASYNC_DIR=$T/ansible-async XDG_CACHE_HOME=$T/cache
# Secrets that must never show in Ansible's output.
AWS_SECRET=vault-secret-$RANDOM$RANDOM-do-not-print
HOST_SECRET=host-secret-$RANDOM$RANDOM-do-not-print
AIS_TOKEN=ais-token-$RANDOM$RANDOM-do-not-print

# --- lint and syntax ----------------------------------------------------------
(cd "$DEPLOY" && ansible-lint site.yml run-campaign.yml roles inventory) >"$T/lint.out" 2>&1 \
  && ok "ansible-lint clean" || fail "ansible-lint: $(tail -n 30 "$T/lint.out")"
for pb in site.yml run-campaign.yml; do
  ansible-playbook -i "$DEPLOY/inventory/example/hosts.yml" --syntax-check "$DEPLOY/$pb" \
    >"$T/syntax.out" 2>&1 && ok "syntax of $pb" || fail "syntax-check $pb: $(cat "$T/syntax.out")"
done

# --- a scratch inventory: every host is this machine, each in its own tree ----
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ME=$(id -un); GROUP=$(id -gn)
INV=$T/inventory
mkdir -p "$INV/group_vars/all" "$T/home/.aws"
printf '[default]\naws_access_key_id = AKIAHOSTHOSTHOST0000\naws_secret_access_key = %s\n' \
  "$HOST_SECRET" >"$T/home/.aws/credentials"
chmod 600 "$T/home/.aws/credentials"
cat >"$INV/hosts.yml" <<YAML
all:
  vars:
    ansible_connection: local
    ansible_python_interpreter: /usr/bin/python3
  children:
    vantage_coordinator:
      hosts:
        coord: { vantage_root: "$T/coord" }
    vantage_agents:
      children:
        home_fiber:
          hosts:
            fiber-host: { vantage_root: "$T/fiber", vantage_agent_name: fiber }
        mobile:
          hosts:
            mobile-host: { vantage_root: "$T/mobile", vantage_agent_name: mobile }
YAML
cat >"$INV/group_vars/all/main.yml" <<YAML
vantage_become: false
vantage_manage_user: false
vantage_user: "$ME"
vantage_group: "$GROUP"
vantage_systemd: false
vantage_install_method: binary
vantage_binary: "$VANTAGE"
vantage_coordinator_address: 127.0.0.1
vantage_coordinator_port: $PORT
vantage_coordinator_bind: "tcp://127.0.0.1:$PORT"
vantage_campaign_poll: 1
vantage_campaign_timeout: 120
YAML
cat >"$INV/group_vars/home_fiber.yml" <<YAML
vantage_site: "Home fiber"
vantage_aws_credentials: vault
vantage_aws_access_key_id: "{{ vault_aws_access_key_id }}"
vantage_aws_secret_access_key: "{{ vault_aws_secret_access_key }}"
vantage_ais_token: "{{ vault_ais_token }}"
YAML
cat >"$INV/group_vars/mobile.yml" <<YAML
vantage_site: "Mobile (LTE)"
vantage_aws_credentials: host
vantage_aws_host_credentials_file: "$T/home/.aws/credentials"
vantage_aws_profile: default
YAML
printf 'vault-pass-%s\n' "$RANDOM$RANDOM" >"$T/vault-pass"
printf 'vault_aws_access_key_id: AKIAVAULTVAULT000000\nvault_aws_secret_access_key: %s\nvault_ais_token: %s\n' \
  "$AWS_SECRET" "$AIS_TOKEN" >"$INV/group_vars/all/vault.yml"
ansible-vault encrypt --vault-password-file "$T/vault-pass" "$INV/group_vars/all/vault.yml" \
  >/dev/null 2>&1 || fail "ansible-vault encrypt"
grep -qF "$AWS_SECRET" "$INV/group_vars/all/vault.yml" && fail "vault file not encrypted"

play() { # NAME PLAYBOOK ARGS...: runs a playbook, output in $T/NAME.out
  local name=$1 pb=$2; shift 2
  ansible-playbook -i "$INV/hosts.yml" --vault-password-file "$T/vault-pass" "$DEPLOY/$pb" "$@" \
    >"$T/$name.out" 2>&1
  local rc=$?
  if grep -qF -e "$AWS_SECRET" -e "$HOST_SECRET" -e "$AIS_TOKEN" "$T/$name.out"; then
    fail "$name: a secret appears in Ansible's output"
  fi
  return $rc
}
recap_changed() { # NAME: sum of changed= in the play recap
  awk '/PLAY RECAP/{r=1} r && match($0, /changed=[0-9]+/) {s += substr($0, RSTART+8, RLENGTH-8)} END {print s+0}' "$T/$1.out"
}

# --- first run ------------------------------------------------------------------
if play site1 site.yml --diff -v; then ok "site.yml installs"; else
  fail "site.yml failed: $(tail -n 40 "$T/site1.out")"; exit 1; fi
[ "$(recap_changed site1)" -gt 0 ] || fail "first run changed nothing"

mode() { stat -c '%a %U' "$1" 2>/dev/null; }
want_mode() { # FILE MODE: mode and owner
  local got; got=$(mode "$1"); [ "$got" = "$2 $ME" ] || fail "$1: mode/owner '$got', want '$2 $ME'"
}
for a in fiber mobile; do
  st=$T/$a/var/lib/vantage-agent
  want_mode "$st/keys/$a.key_secret" 600
  want_mode "$st/keys/$a.key" 644
  want_mode "$st" 700
  cmp -s "$st/keys/$a.key" "$INV/keys/agents/$a.key" || fail "$a: public key not fetched to the controller"
  cmp -s "$st/keys/$a.key" "$T/coord/var/lib/vantage-coordinator/allow/$a.key" || fail "$a: key not in the allow-list"
  cmp -s "$T/coord/var/lib/vantage-coordinator/keys/coordinator.key" "$st/keys/coordinator.key" \
    || fail "$a: coordinator's public key not installed"
  "$T/$a/usr/local/bin/vantage" check --agent "$T/$a/etc/vantage/agent.cfg" >/dev/null 2>&1 \
    || fail "$a: agent.cfg does not pass vantage check --agent"
  grep -qF -e "$AWS_SECRET" -e "$HOST_SECRET" -e "$AIS_TOKEN" -e AKIA "$T/$a/etc/vantage/agent.cfg" \
    && fail "$a: agent.cfg holds a credential"
done
grep -qF 'site = "Home fiber";' "$T/fiber/etc/vantage/agent.cfg" || fail "fiber: site label missing from agent.cfg"
grep -qF "coordinator = \"tcp://127.0.0.1:$PORT\";" "$T/fiber/etc/vantage/agent.cfg" || fail "fiber: coordinator endpoint missing"
want_mode "$T/coord/var/lib/vantage-coordinator/keys/coordinator.key_secret" 600
want_mode "$T/fiber/etc/vantage/aws-credentials" 600
grep -qF "$AWS_SECRET" "$T/fiber/etc/vantage/aws-credentials" || fail "fiber: vault credentials not written"
want_mode "$T/fiber/etc/vantage/ais-token" 600
[ "$(cat "$T/fiber/etc/vantage/ais-token")" = "$AIS_TOKEN" ] || fail "fiber: AIS token not written"
grep -qF "ais_token_file = \"$T/fiber/etc/vantage/ais-token\";" "$T/fiber/etc/vantage/agent.cfg" \
  || fail "fiber: agent.cfg does not name the AIS token file"
want_mode "$T/mobile/etc/vantage/aws-credentials" 600
cmp -s "$T/home/.aws/credentials" "$T/mobile/etc/vantage/aws-credentials" || fail "mobile: host credentials not copied"
[ -e "$T/mobile/etc/vantage/ais-token" ] && fail "mobile: a token file without a token"
ok "keys, credentials and configs in place with private modes"

# --- the units ------------------------------------------------------------------
AU=$T/fiber/etc/systemd/system/vantage-agent.service
CU=$T/coord/etc/systemd/system/vantage-coordinator@.service
for u in "$AU" "$CU"; do
  [ -f "$u" ] || { fail "unit $u not written"; continue; }
  for k in 'NoNewPrivileges=yes' 'ProtectSystem=strict' 'PrivateTmp=yes' 'ProtectHome=yes' \
           'Restart=on-failure' "User=$ME" 'ReadWritePaths='; do
    grep -q "^$k" "$u" || fail "$(basename "$u") lacks $k"
  done
done
grep -qF -e "$AIS_TOKEN" -e "$AWS_SECRET" "$AU" && fail "agent unit holds a secret"
# verify the instance the campaign uses, with the campaign file it references in place
mkdir -p "$T/verify"
cp "$AU" "$T/verify/"
cp "$CU" "$T/verify/vantage-coordinator@deploytest.service"
sed -i 's/%i/deploytest/g' "$T/verify/vantage-coordinator@deploytest.service"
: >"$T/coord/etc/vantage/campaigns/deploytest.cfg"
(cd "$T/verify" && SYSTEMD_LOG_COLOR=0 systemd-analyze verify --man=no \
   ./vantage-agent.service ./vantage-coordinator@deploytest.service) >"$T/verify.out" 2>&1
vrc=$?
if [ $vrc -ne 0 ] || grep -i 'vantage' "$T/verify.out" | grep -q .; then
  fail "systemd-analyze verify: $(cat "$T/verify.out")"
else ok "units pass systemd-analyze verify"; fi
rm -f "$T/coord/etc/vantage/campaigns/deploytest.cfg"

# --- second run: nothing changes, and no key pair is replaced ----------------------
key_before=$(cat "$T/fiber/var/lib/vantage-agent/keys/fiber.key_secret" "$T/coord/var/lib/vantage-coordinator/keys/coordinator.key_secret" | sha256sum)
if play site2 site.yml; then
  c=$(recap_changed site2)
  [ "$c" = 0 ] && ok "second run: changed=0" || fail "second run changed $c: $(grep -B3 'changed:' "$T/site2.out" | head -n 40)"
else fail "second site.yml run failed: $(tail -n 40 "$T/site2.out")"; fi
key_after=$(cat "$T/fiber/var/lib/vantage-agent/keys/fiber.key_secret" "$T/coord/var/lib/vantage-coordinator/keys/coordinator.key_secret" | sha256sum)
[ "$key_before" = "$key_after" ] || fail "a second run replaced a key pair"

# --- a campaign ---------------------------------------------------------------------
start_agents() { # from the units' ExecStart, as systemd would
  for a in fiber mobile; do
    VANTAGE_LOG=info python3 "$HERE/unit_exec.py" "$T/$a/etc/systemd/system/vantage-agent.service" \
      >>"$T/agent-$a.log" 2>&1 &
    agent_pids+=($!)
  done
}
stop_agents() {
  for p in "${agent_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${agent_pids[@]}"; do wait "$p" 2>/dev/null || fail "agent $p did not stop cleanly"; done
  agent_pids=()
}
start_agents
cat >"$T/deploytest.cfg" <<CFG
name = "deploytest";
schedule = "parallel";
agent_wait = "60s";
agents = ( { name = "fiber"; site = "Home fiber"; }, { name = "mobile"; site = "Mobile (LTE)"; } );
jobs = ( { name = "pipeline"; kind = "null"; count = 200; } );
CFG
if play campaign run-campaign.yml -e "vantage_campaign_file=$T/deploytest.cfg"; then
  ok "run-campaign.yml ran the campaign"
else
  fail "run-campaign.yml failed: $(tail -n 40 "$T/campaign.out")"
  for a in fiber mobile; do echo "--- agent $a" >&2; tail -n 20 "$T/agent-$a.log" >&2; done
fi
R=$INV/results/deploytest/coord
if [ -f "$R/results.db" ]; then
  for a in fiber mobile; do
    n=$(sqlite3 "$R/results.db" "SELECT COUNT(*) FROM samples_v WHERE agent = '$a' AND job = 'pipeline'" 2>&1)
    [ "$n" = 200 ] && ok "$a: 200 samples stored and fetched" || fail "$a: $n samples in the fetched results.db, want 200"
  done
  s=$(sqlite3 "$R/results.db" "SELECT site FROM agents WHERE name = 'fiber'" 2>&1)
  [ "$s" = "Home fiber" ] || fail "site label of fiber in results: '$s'"
  [ -s "$R/report.txt" ] || fail "report.txt not fetched"
  "$VANTAGE" report "$R" >"$T/report.out" 2>&1 || fail "vantage report on the fetched results: $(tail "$T/report.out")"
else
  fail "no results.db fetched to $R"
fi
for p in "${agent_pids[@]}"; do kill -0 "$p" 2>/dev/null || fail "an agent (pid $p) exited during the campaign"; done

# A fresh run keeps the old output aside. The agents are restarted (as after
# site.yml or a reboot), which also has them recover their spools.
stop_agents
start_agents
sqlite3 "$R/results.db" "SELECT start_ns FROM campaign" >"$T/uuid1" 2>/dev/null
if play campaign2 run-campaign.yml -e "vantage_campaign_file=$T/deploytest.cfg" -e vantage_campaign_fresh=true; then
  ls -d "$T/coord/var/lib/vantage-coordinator/runs/deploytest."* >/dev/null 2>&1 \
    || fail "fresh run: the earlier output was not kept aside"
  n=$(sqlite3 "$R/results.db" "SELECT COUNT(*) FROM samples_v WHERE job = 'pipeline'" 2>&1)
  [ "$n" = 400 ] || fail "fresh run: $n samples fetched, want 400"
  sqlite3 "$R/results.db" "SELECT start_ns FROM campaign" >"$T/uuid2" 2>/dev/null
  cmp -s "$T/uuid1" "$T/uuid2" && fail "fresh run fetched the earlier campaign's results"
  ok "a second, fresh campaign"
else
  fail "second run-campaign.yml failed: $(tail -n 40 "$T/campaign2.out")"
fi

echo "$((failures == 0 ? 1 : 0)) passed, $((failures > 0 ? 1 : 0)) failed"
exit $((failures > 0))
