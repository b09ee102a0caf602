#!/usr/bin/env bash
# The shell blocks README.md and docs/ mark <!-- runnable -->, run against a real tsserve
# with the bundled model (tests/tools/doc_blocks.py: a failing block or an output of
# another shape fails, by FILE:LINE); then SIGTERM: the server must drain and exit 0.
#   tests/e2e/doc_blocks_test.sh TSSERVE_BINARY CLIENT_BINARY WORK_DIR [DOC_BLOCKS_OPTION ...]
# Extra options go to doc_blocks.py: --write fills the output blocks from this run
# (tests/tools/regenerate_docs.sh), --root DIR and FILE ... run another tree's blocks.
# Fails without ../shared/data/ETTh1.csv: the dataset ships beside the project (CI has it),
# so its absence is a broken set-up, not a reason to skip the docs' examples.
set -euo pipefail
tsserve=$1
client=$2
work=$3
shift 3
root=$(cd "$(dirname "$0")/../.." && pwd)
# The docs' examples forecast the dataset beside the project, as a reader's first steps do.
if [ ! -f "$root/../shared/data/ETTh1.csv" ]; then
  echo "FAIL: no $root/../shared/data/ETTh1.csv (the dataset the docs' examples read)" >&2
  exit 1
fi
rm -rf "$work"; mkdir -p "$work"
command -v curl >/dev/null || { echo "FAIL: curl is not installed (deploy/install-deps.sh)" >&2; exit 1; }
source "$root/tests/e2e/tsserve_process.sh"
start_tsserve "$tsserve" "$work"
[ -n "$http_port" ] && [ "$http_port" != 0 ] && [ -n "$metrics_port" ] && [ "$metrics_port" != 0 ] ||
  { echo "FAIL: no HTTP or metrics port" >&2; exit 1; }

# The server is stopped and its drain checked whatever the blocks did.
status=0
/usr/bin/python3 "$root/tests/tools/doc_blocks.py" --root "$root" --run \
  --grpc-port "$port" --http-port "$http_port" --metrics-port "$metrics_port" \
  --client "$client" --tsserve "$tsserve" "$@" || status=$?
stop_tsserve
[ "$status" = 0 ] || { echo "FAIL: doc_blocks.py exited $status (problems above)" >&2; exit "$status"; }
echo "PASS"
