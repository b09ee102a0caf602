#!/usr/bin/env bash
# The JSON API's OpenAPI document checked by real validators: @apidevtools/swagger-parser
# (npm) validates docs/api/openapi.json as OpenAPI 3.1; openapi_check.py (jsonschema)
# validates its examples and a real tsserve's answers against it.
#   tests/e2e/openapi_test.sh TSSERVE_BINARY WORK_DIR
set -euo pipefail
tsserve=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)

mkdir -p "$work/node"
cp "$root/tests/e2e/openapi/package.json" "$root/tests/e2e/openapi/package-lock.json" \
   "$root/tests/e2e/openapi/validate_openapi.js" "$work/node/"
source "$root/tests/support/npm_ci.sh"
npm_ci_or_skip "$work/node" "swagger-parser validation of docs/api/openapi.json"
[ -n "$npm_skipped" ] || node "$work/node/validate_openapi.js" "$root/docs/api/openapi.json"

/usr/bin/python3 "$root/tests/e2e/openapi_check.py" --tsserve "$tsserve"
if [ -n "$npm_skipped" ]; then
  echo "SKIPPED: $npm_skipped (the examples and live answers passed)"
  exit 77
fi
echo "PASS"
