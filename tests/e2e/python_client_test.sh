#!/usr/bin/env bash
# End to end with real processes: the tsserve binary on loopback port 0 (bundled model),
# the Python example client forecasting from a CSV in the ETTh1 layout, server reflection
# listing the services, then SIGTERM: the server must drain and exit 0.
#   tests/e2e/python_client_test.sh TSSERVE_BINARY WORK_DIR
set -euo pipefail
tsserve=$1
work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
source "$root/tests/e2e/tsserve_process.sh"
start_tsserve "$tsserve" "$work"

write_etth1_csv "$work/window.csv"
out=$(/usr/bin/python3 "$root/client/python/forecast_from_csv.py" --target "127.0.0.1:$port" "$work/window.csv")
# Here-strings, not `echo | head`: a reader that stops early (head, grep -q) would end
# echo with SIGPIPE, and pipefail would fail the test at random.
head -4 <<<"$out"
grep -q "scaler applied: True" <<<"$out" || { echo "FAIL: scaler not applied" >&2; exit 1; }
[ "$(grep -cE '^ +[0-9]+ ' <<<"$out")" = 96 ] || { echo "FAIL: expected 96 forecast rows" >&2; exit 1; }

/usr/bin/python3 "$root/tests/e2e/reflection_check.py" "127.0.0.1:$port" "$work"

# The /v1 JSON example (client/python/json_forecast.py): the same window by column, with
# timestamps and both bands; 96 steps of the 7 columns, the forecast's times following the
# CSV's last hour, and the 0.8 band inside the 0.95 one.
v1=$(/usr/bin/python3 "$root/client/python/json_forecast.py" --url "http://127.0.0.1:$http_port" \
       --intervals "$work/window.csv")
head -3 <<<"$v1"
grep -q "^model patchtst-etth1 version .*: 96 steps of HUFL, HULL, MUFL, MULL, LUFL, LULL, OT$" <<<"$v1" ||
  { echo "FAIL: /v1 example: unexpected header" >&2; exit 1; }
[ "$(grep -cE '^ +[0-9]+ 2018-01-' <<<"$v1")" = 96 ] ||
  { echo "FAIL: /v1 example: expected 96 timestamped rows" >&2; exit 1; }
grep -q "^ *1 2018-01-17T16:00:00" <<<"$v1" ||
  { echo "FAIL: /v1 example: the first step is not the hour after the CSV's last" >&2; exit 1; }
grep -q "^0.8 interval, step 1: \[" <<<"$v1" && grep -q "^0.95 interval, step 1: \[" <<<"$v1" ||
  { echo "FAIL: /v1 example: missing interval bands" >&2; exit 1; }

stop_tsserve
