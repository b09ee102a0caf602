#!/bin/bash
# Each bundled family served alone, `tsserve-client bench` at concurrency 1 and 8, without
# and with attention maps, one after the other on the same machine (BENCHMARKS.md,
# "Informer and Transformer"). Usage: bash tests/bench/families_bench.sh [SECONDS]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
seconds="${1:-5}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
for model in patchtst_etth1 itransformer_etth1 informer_etth1; do
  fifo="$logs/$model.fifo"
  mkfifo "$fifo"
  "$root/build/server/tsserve" --model "$root/model/default/$model.pt" --grpc-address 127.0.0.1:0 \
    --metrics-address 127.0.0.1:0 --http-address 127.0.0.1:0 --log-level warn >"$fifo" &
  server=$!
  exec 3<"$fifo"
  # The server prints "grpc_port=N http_port=M" once it serves: a bounded wait for it.
  read -r -t 300 ready <&3 || { echo "$model: tsserve did not start" >&2; exit 1; }
  port="$(sed -n 's/.*grpc_port=\([0-9]*\).*/\1/p' <<<"$ready")"
  for maps in "" "--attention"; do
    echo "== $model, concurrency 1 and 8 ${maps:-(no maps)}"
    "$root/build/client/tsserve-client" bench --target "127.0.0.1:$port" --concurrency 1,8 \
      --duration-s "$seconds" --warmup-s 1 $maps | tail -4
  done
  kill -TERM "$server"
  wait "$server" || true
  exec 3<&-
done
