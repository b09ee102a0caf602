#!/bin/bash
# Each family served alone, `tsserve-client bench` at concurrency 1 and 8, without and with
# attention maps, one after the other on the same machine (BENCHMARKS.md, "Informer and
# Transformer"): the four bundled models (model/default/), then a Transformer (TSLib's
# encoder-decoder, Full attention, no distilling) with untrained weights written into the
# temp dir by make_bench_transformer.py, as none is bundled (Full attention does no
# data-dependent work, so its speed does not depend on the weights).
# Usage: bash tests/bench/families_bench.sh [SECONDS]
# TSSERVE_BIN_DIR: where server/tsserve and client/tsserve-client are (default: build/).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
bin="${TSSERVE_BIN_DIR:-$root/build}"
seconds="${1:-5}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
/usr/bin/python3 "$root/tests/bench/make_bench_transformer.py" --out "$logs"
for path in "$root"/model/default/{patchtst_etth1,itransformer_etth1,informer_etth1,timexer_etth1}.pt \
  "$logs/transformer_bench.pt"; do
  model="$(basename "$path" .pt)"
  label="$model"
  [[ "$path" == "$logs/"* ]] && label="$model (untrained)"
  fifo="$logs/$model.fifo"
  mkfifo "$fifo"
  "$bin/server/tsserve" --model "$path" --grpc-address 127.0.0.1:0 \
    --metrics-address 127.0.0.1:0 --http-address 127.0.0.1:0 --log-level warn >"$fifo" &
  server=$!
  exec 3<"$fifo"
  # The server prints "grpc_port=N http_port=M" once it serves: a bounded wait for it.
  read -r -t 300 ready <&3 || { echo "$label: tsserve did not start" >&2; exit 1; }
  port="$(sed -n 's/.*grpc_port=\([0-9]*\).*/\1/p' <<<"$ready")"
  for maps in "" "--attention"; do
    echo "== $label, concurrency 1 and 8 ${maps:-(no maps)}"
    "$bin/client/tsserve-client" bench --target "127.0.0.1:$port" --concurrency 1,8 \
      --duration-s "$seconds" --warmup-s 1 $maps | tail -4
  done
  kill -TERM "$server"
  wait "$server" || true
  exec 3<&-
done
