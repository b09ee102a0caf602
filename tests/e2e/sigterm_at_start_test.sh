#!/usr/bin/env bash
# SIGTERM the moment the server says it listens, with 2 intra-op threads (as the k8s
# ConfigMap runs it): it must still drain and exit 0, every time. Before the handler of
# server/app/stop_signals.h, about 1 start in 3 died of the signal (exit 143): OpenBLAS's
# load-time worker thread does not block SIGTERM, and took it before main reached sigwait.
#   tests/e2e/sigterm_at_start_test.sh TSSERVE_BINARY WORK_DIR [STARTS]
set -euo pipefail
tsserve=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
starts=${3:-12}
for i in $(seq 1 "$starts"); do
  rm -f "$work/stdout"; mkfifo "$work/stdout"
  "$tsserve" --threads 2 --grpc-address 127.0.0.1:0 --metrics-address 127.0.0.1:0 \
    >"$work/stdout" 2>"$work/tsserve.log" &
  server=$!
  exec 3<"$work/stdout"
  read -r -t 120 ready <&3 || { cat "$work/tsserve.log"; echo "FAIL: start $i: no listening line" >&2; exit 1; }
  kill -TERM "$server"
  status=0
  wait "$server" || status=$?
  exec 3<&-
  if [ "$status" -ne 0 ] || ! grep -q "stopped (drained)" "$work/tsserve.log"; then
    cat "$work/tsserve.log"
    echo "FAIL: start $i: exit $status after a SIGTERM right after '$ready'" >&2
    exit 1
  fi
done
echo "PASS: $starts starts, each SIGTERMed at once, drained and exited 0"
