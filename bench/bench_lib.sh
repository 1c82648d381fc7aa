# shellcheck shell=bash
# Shared by the bench scripts: compile one bench program against the
# libraries of an already built tree. Usage: bench_cc SRC BUILD_DIR FILE.c OUTPUT
bench_cc() {
  local src=$1 bdir=$2 file=$3 out=$4 libs=() deps=()
  read -ra deps <<<"$(pkg-config --libs sqlite3 jansson libconfig libczmq libzmq msgpack libcurl libcrypto expat)"
  for l in coordinator proto agent common; do
    [ -f "$bdir/libvantage_$l.a" ] && libs+=("$bdir/libvantage_$l.a")
  done
  cc -O2 -std=c17 -D_GNU_SOURCE -DVANTAGE_VERSION='"bench"' -I"$src/common" -I"$src/proto" \
    -I"$src/coordinator" -I"$src/agent" "$file" "${libs[@]}" "${libs[@]}" \
    "${deps[@]}" -lm -lpthread -o "$out"
}

# Prints the size of a store file in MB.
bench_size() {
  awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "results.db: %.0f MB\n", b / 1e6 }'
}
