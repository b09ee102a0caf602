#!/usr/bin/env bash
# The figures of the load part (overload, drain under load, replica loss), from longer
# runs than CTest's: real tsserve processes on loopback, the real tsserve-client bench.
#   tests/reliability/load/run_figures.sh [BUILD_DIR] [STAGE_SECONDS]
# BUILD_DIR defaults to build/; it must hold server/tsserve and client/tsserve-client.
# Timings depend on what else runs on the machine: compare ratios within one run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
stage_s=${2:-5}
tsserve=$build/server/tsserve
client=$build/client/tsserve-client
for binary in "$tsserve" "$client"; do
  [ -x "$binary" ] || { echo "missing $binary: build the tsserve and tsserve-client targets" >&2; exit 1; }
done
work=$build/load-figures
mkdir -p "$work"
python=/usr/bin/python3
common=(--tsserve "$tsserve" --client "$client")

echo "== machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== overload, time-bounded queue (--max-queue-wait-ms 100)"
"$python" "$here/overload.py" "${common[@]}" --work "$work/overload" --stage-s "$stage_s" \
  --multiples 2,4,8 --max-queue-wait-ms 100
echo
echo "== overload, rows-bounded queue only (the default: --max-queue-rows 8192, no time bound)"
"$python" "$here/overload.py" "${common[@]}" --work "$work/overload-rows" --stage-s "$stage_s" \
  --multiples 2,4,8 --max-queue-wait-ms 0 --report-only
echo
echo "== drain under load"
"$python" "$here/drain.py" "${common[@]}" --work "$work/drain" --warm-calls 500
echo
echo "== replica loss"
"$python" "$here/replica_loss.py" "${common[@]}" --work "$work/replica_loss" --phase-calls 300
