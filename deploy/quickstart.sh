#!/usr/bin/env bash
# The main job, from a fresh clone: install, build, and forecast the next 96 hours from
# the last 336 rows of a CSV with the bundled PatchTST (trained on ETTh1).
#   bash deploy/quickstart.sh [CSV]      (default: ../shared/data/ETTh1.csv)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
csv=${1:-$root/../shared/data/ETTh1.csv}
[ -f "$csv" ] || { echo "quickstart: no CSV at $csv; pass one in the ETTh1 layout" >&2; exit 2; }

bash "$root/deploy/build.sh" --target tsserve-forecast-csv
"${TSSERVE_BUILD_DIR:-$root/build}/model/tsserve-forecast-csv" "$csv"
