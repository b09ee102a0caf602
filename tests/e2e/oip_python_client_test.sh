#!/usr/bin/env bash
# End to end over the Open Inference Protocol (KServe v2) with real processes: the tsserve
# binary on loopback port 0 (bundled model), a Python client whose stubs are generated
# here from proto/inference/grpc_service.proto, then SIGTERM: the server must drain and
# exit 0.
#   tests/e2e/oip_python_client_test.sh TSSERVE_BINARY WORK_DIR
set -euo pipefail
tsserve=$1
work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work"
source "$root/tests/e2e/tsserve_process.sh"
start_tsserve "$tsserve" "$work"

rm -rf "$work/stubs"
/usr/bin/python3 "$root/tests/e2e/oip_client_check.py" "127.0.0.1:$port" "$work/stubs"

stop_tsserve
