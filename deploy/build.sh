#!/usr/bin/env bash
# Installs the dependencies (deploy/install-deps.sh) and builds tsserve into build/
# (or $TSSERVE_BUILD_DIR). Extra arguments go to `cmake --build` (e.g. --target X).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TSSERVE_BUILD_DIR:-$root/build}

bash "$root/deploy/install-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" "$@"
