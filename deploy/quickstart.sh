#!/usr/bin/env bash
# The main job, from a fresh clone: install, build, start tsserve with the bundled
# PatchTST (ETTh1), ask it for a forecast of the last window of a CSV over gRPC with
# tsserve-client (table, plot and attention heatmaps in build/quickstart/), run a short
# load test, show the metrics it exported, and stop it gracefully (SIGTERM drains).
#   bash deploy/quickstart.sh [CSV]      (default: ../shared/data/ETTh1.csv)
# To keep a server running instead: build/server/tsserve   (see tsserve --help)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TSSERVE_BUILD_DIR:-$root/build}
csv=${1:-$root/../shared/data/ETTh1.csv}
[ -f "$csv" ] || { echo "quickstart: no CSV at $csv; pass one in the ETTh1 layout" >&2; exit 2; }

bash "$root/deploy/build.sh" --target tsserve tsserve-client
client="$build/client/tsserve-client"
out="$build/quickstart"; mkdir -p "$out"
# tsserve prints "tsserve listening ..." on stdout once it serves; a FIFO waits for it.
fifo=$(mktemp -u); mkfifo "$fifo"
"$build/server/tsserve" --grpc-address 127.0.0.1:50051 --metrics-address 127.0.0.1:9464 \
  --http-console-sample "$csv" >"$fifo" &
server=$!
trap 'kill -TERM $server 2>/dev/null || true; rm -f "$fifo"' EXIT
exec 3<"$fifo"
read -r -t 300 ready <&3 || { echo "quickstart: tsserve did not start" >&2; exit 1; }
echo "$ready"

"$client" health --target 127.0.0.1:50051
"$client" forecast "$csv" --target 127.0.0.1:50051 --plot "$out/forecast.png" --plot-history 192 \
  --attention "$out/attention.png" --out "$out/forecast.csv"
echo "--- pictures: $out/forecast.png $out/attention.png; forecast CSV: $out/forecast.csv"
echo "--- the console (while a server runs): http://127.0.0.1:8000/console/"
echo "--- load test (4 calls in flight, 3 s):"
"$client" bench --target 127.0.0.1:50051 --concurrency 4 --duration-s 3 --warmup-s 0.5
echo "--- metrics (http://127.0.0.1:9464/metrics), excerpt:"
/usr/bin/python3 - <<'PY'
import urllib.request
text = urllib.request.urlopen("http://127.0.0.1:9464/metrics", timeout=10).read().decode()
# Lines that say something: the ready flag and model info, and the request, latency and batch
# counts that are not zero (every method has a zero code="OK" child from the start).
for line in text.splitlines():
    if line.startswith(("tsserve_ready", "tsserve_model_info")):
        print(line)
    elif line.startswith(("tsserve_requests_total{", "tsserve_request_duration_seconds_count",
                          "tsserve_batch_rows_count")) and float(line.rsplit(" ", 1)[1]) != 0:
        print(line)
PY
kill -TERM $server
trap 'rm -f "$fifo"' EXIT
wait $server && echo "tsserve drained and exited 0"
