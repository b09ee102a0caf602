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
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/e2e/tsserve_process.sh"
for i in $(seq 1 "$starts"); do
  start_tsserve "$tsserve" "$work" --threads 2
  stop_tsserve  # SIGTERM at once; fails unless drained and exit 0
done
echo "PASS: $starts starts, each SIGTERMed at once, drained and exited 0"
