#!/usr/bin/env bash
# The HTTP door from outside, with the clients people use: every command of the HTTP
# examples block of docs/api/http-json.md run as written (localhost:8000 pointed at this server's port), the
# JSON API's request and answer it wrote validated against docs/api/openapi.json, and
# client/python/rest_forecast.py (Python's standard library only) forecasting a CSV with
# its intervals; then SIGTERM: the server must drain and exit 0.
#   tests/e2e/http_examples_test.sh TSSERVE_BINARY WORK_DIR
set -euo pipefail
tsserve=$1
work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$work"; mkdir -p "$work"
command -v curl >/dev/null || { echo "FAIL: curl is not installed (deploy/install-deps.sh)" >&2; exit 1; }
source "$root/tests/e2e/tsserve_process.sh"
start_tsserve "$tsserve" "$work"
[ -n "$http_port" ] && [ "$http_port" != 0 ] || { echo "FAIL: no HTTP port" >&2; exit 1; }

# The docs' block, between its markers, with the address rewritten.
/usr/bin/python3 - "$root/docs/api/http-json.md" "$http_port" >"$work/examples.sh" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
block = re.search(r"<!-- http-examples -->\s*```sh\n(.*?)```\s*<!-- /http-examples -->", text, re.S)
if not block:
    sys.exit("docs/api/http-json.md: no http-examples block")
print(block.group(1).replace("localhost:8000", "127.0.0.1:" + sys.argv[2]))
PY
echo "--- the HTTP examples of docs/api/http-json.md:"; cat "$work/examples.sh"
out=$(cd "$work" && bash -euo pipefail "$work/examples.sh")
echo "--- their output:"; head -c 2000 <<<"$out"; echo
grep -q '{"ready":true}' <<<"$out" || { echo "FAIL: not ready" >&2; exit 1; }
grep -q '"platform":"pytorch_libtorch"' <<<"$out" || { echo "FAIL: no model metadata" >&2; exit 1; }
grep -q '"name":"forecast","datatype":"FP32","shape":\[1,96,7\]' <<<"$out" ||
  { echo "FAIL: no forecast" >&2; exit 1; }
grep -q '"models":\[{"name":"patchtst-etth1"' <<<"$out" || { echo "FAIL: no /v1 listing" >&2; exit 1; }
# The JSON API's request and answer, as the docs' examples wrote them, against its OpenAPI document.
/usr/bin/python3 "$root/tests/e2e/openapi_check.py" --examples "$work"

write_etth1_csv "$work/window.csv"
out=$(/usr/bin/python3 "$root/client/python/rest_forecast.py" "$work/window.csv" \
        --url "http://127.0.0.1:$http_port" --intervals)
head -3 <<<"$out"
[ "$(grep -cE '^ +[0-9]+  ' <<<"$out")" = 96 ] || { echo "FAIL: expected 96 forecast rows" >&2; exit 1; }
grep -q "^0.95 interval, step 1: " <<<"$out" || { echo "FAIL: no 95% interval" >&2; exit 1; }
stop_tsserve
echo "PASS"
