#!/usr/bin/env bash
# The console's cost to the server: gRPC Forecast throughput (tsserve-client bench,
# closed loop) with no page open and with the console open in headless chromium on its
# accuracy view (which polls GET /v1/accuracy every 10 s), in turn, ROUNDS rounds of
# SECONDS each, on one server. Prints each round's requests/s and p50, and what the page
# asked for. Needs the console check's npm packages (tests/e2e/console_test.sh installs them).
#   bash tests/bench/console_cost.sh [ROUNDS] [SECONDS]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
rounds=${1:-3} seconds=${2:-10}
build=$root/build
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
(cd "$root/tests/e2e/console" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error >/dev/null)
"$build/server/tsserve" --grpc-address 127.0.0.1:0 --http-address 127.0.0.1:0 \
  --metrics-address 127.0.0.1:0 --log-level warn >"$work/ports" &
server=$!
for _ in $(seq 100); do [ -s "$work/ports" ] && break; sleep 0.2; done
grpc=$(grep -o 'grpc_port=[0-9]*' "$work/ports" | cut -d= -f2)
http=$(grep -o 'http_port=[0-9]*' "$work/ports" | cut -d= -f2)
bench() {
  "$build/client/tsserve-client" bench --target "127.0.0.1:$grpc" --concurrency 8 \
    --duration-s "$seconds" --warmup-s 1 2>/dev/null | awk '/^conc/ {print $3 " req/s, p50 " $5 " ms, p99 " $7 " ms"}'
}
for round in $(seq "$rounds"); do
  echo "round $round, no page:      $(bench)"
  node "$root/tests/e2e/console/hold_page.js" "http://127.0.0.1:$http/console/#accuracy" >"$work/page" &
  page=$!
  for _ in $(seq 100); do grep -q open "$work/page" && break; sleep 0.2; done
  echo "round $round, console open: $(bench)"
  kill -TERM $page
  wait $page
  echo "  the page: $(tail -1 "$work/page")"
done
