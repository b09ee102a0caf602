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
log="$work/tsserve.log"

# The server prints one "tsserve listening ..." line on stdout once it serves; reading it
# through a FIFO waits for exactly that event (bounded by read -t), no polling.
rm -f "$work/stdout"; mkfifo "$work/stdout"
"$tsserve" --grpc-address 127.0.0.1:0 --metrics-address 127.0.0.1:0 >"$work/stdout" 2>"$log" &
server=$!
trap 'kill -KILL $server 2>/dev/null || true' EXIT
exec 3<"$work/stdout"
read -r -t 120 ready <&3 || { cat "$log"; echo "FAIL: tsserve did not report listening" >&2; exit 1; }
port=$(echo "$ready" | sed -n 's/.*grpc_port=\([0-9]*\).*/\1/p')
[ -n "$port" ] || { echo "FAIL: unexpected first line: $ready" >&2; exit 1; }

# A CSV in the ETTh1 layout (date + the 7 scaler columns), 400 rows, seeded.
/usr/bin/python3 - "$work/window.csv" <<'PY'
import math, random, sys
random.seed(7)
cols = ["HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"]
with open(sys.argv[1], "w") as f:
    f.write("date," + ",".join(cols) + "\n")
    for r in range(400):
        f.write("2018-01-%02d %02d:00:00," % (1 + r // 24, r % 24) +
                ",".join("%.4f" % (5 + i + 2 * math.sin(r / 12 + i) + random.gauss(0, 0.2)) for i in range(7)) + "\n")
PY
out=$(/usr/bin/python3 "$root/client/python/forecast_from_csv.py" --target "127.0.0.1:$port" "$work/window.csv")
echo "$out" | head -4
echo "$out" | grep -q "scaler applied: True" || { echo "FAIL: scaler not applied" >&2; exit 1; }
[ "$(echo "$out" | grep -cE '^ +[0-9]+ ')" = 96 ] || { echo "FAIL: expected 96 forecast rows" >&2; exit 1; }

/usr/bin/python3 "$root/tests/e2e/reflection_check.py" "127.0.0.1:$port" "$work"

kill -TERM $server
trap - EXIT
if wait $server; then echo "tsserve drained and exited 0"; else echo "FAIL: exit $?" >&2; cat "$log"; exit 1; fi
grep -q "stopped (drained)" "$log" || { cat "$log"; echo "FAIL: no drain" >&2; exit 1; }
