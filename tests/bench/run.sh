#!/usr/bin/env bash
# One command for BENCHMARKS.md: installs the dependencies, builds the server, the client
# and the micro-benchmarks, then measures everything side by side
# (tests/bench/run_benchmarks.py; its --help lists the options, e.g. --quick, --threads N,
# --device cuda). Takes about 10 minutes on 2 cores with the defaults.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bash "$root/deploy/build.sh" --target tsserve tsserve-client model_bench grpc_floor_server observe_bench
# ONNX Runtime, the peer the fused forward is compared with: the CPU library ships inside
# the npm package; its install script (which downloads from elsewhere) stays off.
if command -v npm >/dev/null; then
  (cd "$root/tests/bench/onnx" && npm install --ignore-scripts --no-audit --no-fund >/dev/null)
fi
exec /usr/bin/python3 "$root/tests/bench/run_benchmarks.py" "$@"
