#!/bin/bash
# Google Benchmark binaries compared in one run on a machine whose speed drifts: each
# round runs every binary in turn (--benchmark_min_time=0.2), and for each benchmark the
# fastest round and every round's time are printed, per binary. Used for A/B figures in
# BENCHMARKS.md (a binary built from the old commit beside the current one).
#   bash tests/bench/alternate_runs.sh FILTER ROUNDS BINARY...
set -euo pipefail
if [ $# -lt 3 ]; then
  sed -n '2,6p' "$0" >&2
  exit 2
fi
filter=$1
rounds=$2
shift 2
for _ in $(seq "$rounds"); do
  for binary in "$@"; do
    "$binary" --benchmark_min_time=0.2 --benchmark_filter="$filter" 2>/dev/null |
      awk -v b="$binary" '/^BM_/ {print b, $1, $2}'
  done
done | sort -k1,2 -k3,3g |
  awk '{key = $1 " " $2; if (!(key in fastest)) fastest[key] = $3; all[key] = all[key] " " $3}
       END {for (key in fastest) print key, "fastest", fastest[key], "rounds (sorted)", all[key]}' |
  sort -k2,2 -k1,1
