#!/usr/bin/env bash
# Every libFuzzer target of tests/fuzz for a short, bounded time (run.sh's
# default, about 3.5 minutes in all) from the committed seed corpora, which
# include the inputs of bugs found before. Fails on any crash, leak,
# sanitizer report or broken parser property. Builds with clang in its own
# directory under the test build (incremental after the first run).
# A long run is `tests/fuzz/run.sh SECONDS [TARGET...]`.
set -euo pipefail
src=${VANTAGE_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
export VANTAGE_FUZZ_BUILD=${VANTAGE_FUZZ_BUILD:-$PWD/fuzz-build}
exec "$src/tests/fuzz/run.sh" "${VANTAGE_FUZZ_SECONDS:-18}"
