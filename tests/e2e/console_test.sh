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
mkdir -p "$work"
# shellcheck source=../support/npm_ci.sh
source "$here/../support/npm_ci.sh"
npm_ci_or_skip "$here/console" "the console check"
[ -z "$npm_skipped" ] || exit 77
CHROMIUM=$chromium node "$here/console/console_check.js" "$tsserve" "$work" "$csv" "$shots"
