#!/bin/sh
# Rewrites the generated option tables in docs/campaign-format.md and
# docs/agent-config.md from the built binary (the unit tests fail until
# they match the option tables in the code).
#   docs/update-reference.sh [path/to/vantage]     (default: build/vantage)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
vantage=${1:-$here/../build/vantage}
update() { # FILE -- reference command...
    file=$1; shift
    ref=$(mktemp)
    "$@" > "$ref"
    awk -v ref="$ref" '
        /^<!-- BEGIN OPTIONS/ { print; while ((getline line < ref) > 0) print line; skip = 1; next }
        /^<!-- END OPTIONS -->/ { skip = 0 }
        !skip { print }' "$file" > "$file.tmp"
    mv "$file.tmp" "$file"
    rm -f "$ref"
}
update "$here/campaign-format.md" "$vantage" check --reference
update "$here/agent-config.md" "$vantage" check --reference --agent
