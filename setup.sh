#!/usr/bin/env bash
# setup.sh: vantage's two set-up commands on a Debian 12 machine.
#   ./setup.sh demo   install what is missing, build, start the local servers, run the main job
#   ./setup.sh test   install what is missing, build with sanitizers, run every test
# Both are idempotent: packages already there are not reinstalled, builds are
# incremental and the local servers are reused.
set -euo pipefail
cd "$(dirname "$0")"
ROOT=$(pwd)

# Debian packages: build, libraries, the local S3 server, test tools.
PACKAGES=(
  build-essential cmake pkg-config git
  libczmq-dev libzmq3-dev libcurl4-openssl-dev libssl-dev libmsgpack-dev libconfig-dev
  libexpat1-dev libjansson-dev libsqlite3-dev libcmocka-dev sqlite3
  ceph-mon ceph-osd radosgw ceph-common uuid-runtime curl
  python3 python3-boto3 python3-msgpack
  chromium clang libclang-rt-14-dev llvm
  ansible ansible-lint
)

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }

install_packages() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${#missing[@]} Debian packages: ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
}

build() { # dir cmake-args...
  local dir=$1; shift
  say "building in $dir"
  cmake -S . -B "$dir" "$@" >/dev/null
  cmake --build "$dir" -j"$(nproc)"
}

case ${1:-} in
  demo)
    install_packages
    build build -DCMAKE_BUILD_TYPE=Release -DVANTAGE_SANITIZE=OFF -DVANTAGE_WERROR=OFF
    exec "$ROOT/tests/demo.sh" "$ROOT/build/vantage"
    ;;
  test)
    install_packages
    build build-test -DCMAKE_BUILD_TYPE=Debug -DVANTAGE_WERROR=ON -DVANTAGE_SANITIZE=ON
    say "running the tests (servers start once, in the servers/start fixture)"
    rc=0
    (cd build-test && ctest --output-on-failure -j2 --timeout 900) || rc=$?
    tests/servers.sh stop || true
    exit $rc
    ;;
  *)
    echo "usage: ./setup.sh demo|test" >&2
    exit 2
    ;;
esac
