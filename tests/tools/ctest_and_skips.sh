#!/usr/bin/env bash
# CTest, then every skipped test named with its reason (tests/tools/skip_summary.py): the
# output ends with one line counting the skipped tests by kind of reason, and the run fails
# when a test skipped although this machine has what it needs (or skipped without a reason
# the summary knows), even if CTest itself passed. tests/run.sh runs the suite through it.
#   ctest_and_skips.sh BUILD_DIR [CTEST_OPTION ...]
# Exit: CTest's status when CTest failed, else the summary's (0: every skip stands).
set -uo pipefail
build=$(cd "$1" && pwd) || exit 2
shift
here=$(cd "$(dirname "$0")" && pwd)
junit=$build/Testing/ctest-junit.xml
mkdir -p "$build/Testing"
rm -f "$junit"  # a report from an earlier run must not stand in for this one
ctest --test-dir "$build" --output-junit "$junit" "$@"
ctest_status=$?
/usr/bin/python3 "$here/skip_summary.py" --junit "$junit" --build-dir "$build"
summary_status=$?
if [ "$ctest_status" -ne 0 ]; then
  exit "$ctest_status"
fi
exit "$summary_status"
