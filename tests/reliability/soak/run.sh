#!/usr/bin/env bash
# Soak run: a real tsserve (bundled model) under mixed valid and invalid traffic, its
# resident memory sampled into a CSV; prints the summary and exits 1 on any failure.
#
#   bash tests/reliability/soak/run.sh [--minutes 10] [--out DIR] [--build DIR] [--png]
#   bash tests/reliability/soak/run.sh --seconds 50 ...      (the short CI version)
#
# Defaults: 10 minutes, the binaries of build/, output in BUILD/soak/, a PNG of the memory
# curve. Further options go to soak.py (--concurrency N, --sample-s S, --warmup-s S).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../../.." && pwd)

build=$root/build
seconds=600
out=""
png=(--png)
extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) seconds=$(awk -v m="$2" 'BEGIN { print m * 60 }'); shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-png) png=(); shift ;;
    --png) png=(--png); shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) extra+=("$1"); shift ;;
  esac
done
out=${out:-$build/soak}

for binary in "$build/server/tsserve" "$build/client/tsserve-client"; do
  [ -x "$binary" ] || { echo "soak: $binary is missing; build the tsserve and tsserve-client targets" >&2; exit 2; }
done
if ! /usr/bin/python3 -c 'import grpc, grpc_tools' 2>/dev/null; then
  echo "soak: SKIPPED: /usr/bin/python3 lacks grpcio or grpc_tools (python3-grpcio, python3-grpc-tools)" >&2
  exit 77
fi
if [ ${#png[@]} -gt 0 ] && ! /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  echo "soak: no matplotlib; no PNG" >&2
  png=()
fi

mkdir -p "$out"
exec /usr/bin/python3 "$here/soak.py" --tsserve "$build/server/tsserve" \
  --client "$build/client/tsserve-client" --seconds "$seconds" --out "$out" \
  ${png[@]+"${png[@]}"} ${extra[@]+"${extra[@]}"}
