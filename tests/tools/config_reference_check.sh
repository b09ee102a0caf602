#!/usr/bin/env bash
# docs/configuration.md must be exactly what tsserve-config-reference prints now: the page
# is generated from the server's option table, so an option added, renamed or given a new
# default fails here (with the diff) until the page is regenerated.
#   tests/tools/config_reference_check.sh GENERATOR [PAGE]   (PAGE: docs/configuration.md)
# PAGE can be any copy: config_reference_check_selftest.sh hands it planted stale ones.
set -euo pipefail
generator=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
page=${2:-$root/docs/configuration.md}
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
"$generator" >"$fresh"
if diff -u --label "$page" --label "tsserve-config-reference" "$page" "$fresh"; then
  echo "PASS: $page is current"
else
  echo "FAIL: $page differs from the option table (diff above: - the page, + the table);" \
       "regenerate with: bash tests/tools/regenerate_docs.sh" >&2
  exit 1
fi
