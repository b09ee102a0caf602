#!/usr/bin/env bash
# The browser console (/console/) in Debian's chromium, headless, driven by puppeteer-core
# (tests/e2e/console/console_check.js says what it checks) against a real tsserve.
#   console_test.sh TSSERVE WORK ETTH1_CSV [SCREENSHOT_DIR]
# SCREENSHOT_DIR: where the views' pictures go (default WORK/screenshots; docs/console to
# refresh docs/console.md's). Skipped (77) without ETTh1.csv, or where the npm registry cannot
# be reached; fails without chromium (tests/run.sh installs it).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tsserve=$1 work=$2 csv=$3
shots=${4:-$work/screenshots}
if [ ! -f "$csv" ]; then
  echo "SKIPPED: no $csv (the dataset beside the project)"
  exit 77
fi
chromium=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$chromium" ]; then
  echo "FAIL: no browser at $chromium (Debian: apt-get install chromium)" >&2
  exit 1
fi
mkdir -p "$work/node"
work=$(cd "$work" && pwd)
root=$(cd "$here/../.." && pwd)
# The check's Node packages, pinned by package-lock.json, installed in the work folder, not
# in the source tree (which may be read-only): the check runs from there, told the tree.
cp "$here/console/package.json" "$here/console/package-lock.json" \
   "$here/console/console_check.js" "$work/node/"
# shellcheck source=../support/npm_ci.sh
source "$here/../support/npm_ci.sh"
npm_ci_or_skip "$work/node" "the console check"
if [ -n "$npm_skipped" ]; then
  echo "SKIPPED: $npm_skipped"
  exit 77
fi
CHROMIUM=$chromium TSSERVE_SOURCE_ROOT=$root \
  node "$work/node/console_check.js" "$tsserve" "$work" "$csv" "$shots"
