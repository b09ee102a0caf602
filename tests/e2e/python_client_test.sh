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

stop_tsserve
