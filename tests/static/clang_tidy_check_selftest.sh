#!/usr/bin/env bash
# CTest static_clang_tidy_selftest: proves static_clang_tidy fails when its clang-tidy run
# does not apply the thread-safety analysis. Runs clang_tidy_check.sh --canary-only (the
# canary, tests/static/thread_safety_canary.cpp, through the check's own clang-tidy
# invocation) twice: with clang-tidy-14 as it is, it must pass, reporting the canary's
# unguarded read; with a planted clang-tidy that switches the analysis off
# (--extra-arg=-Wno-thread-safety-analysis added to every call, as a .clang-tidy or a
# compile command could), it must exit 1 saying the canary was not reported.
#
#   tests/static/clang_tidy_check_selftest.sh SOURCE_DIR BUILD_DIR
# CLANG_TIDY overrides the program (default clang-tidy-14).
set -uo pipefail
root=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
check="$root/tests/static/clang_tidy_check.sh"
tidy=${CLANG_TIDY:-clang-tidy-14}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

out=$(TSSERVE_TIDY_WORK="$scratch/as_is" CLANG_TIDY="$tidy" "$check" "$root" "$build" \
      --canary-only 2>&1)
code=$?
if [ "$code" -ne 0 ] || ! grep -qF "the canary's unguarded read is reported by this run" <<<"$out"; then
  echo "FAIL with $tidy as it is, the canary run did not pass (exit $code):"; echo "$out"
  failures=$((failures + 1))
fi

tidy_path=$(command -v "$tidy" || echo "$tidy")
printf '#!/bin/sh\nexec "%s" "$@" --extra-arg=-Wno-thread-safety-analysis\n' "$tidy_path" \
  > "$scratch/clang-tidy-without-analysis"
chmod +x "$scratch/clang-tidy-without-analysis"
out=$(TSSERVE_TIDY_WORK="$scratch/off" CLANG_TIDY="$scratch/clang-tidy-without-analysis" \
      "$check" "$root" "$build" --canary-only 2>&1)
code=$?
if [ "$code" -ne 1 ] || ! grep -qF "FAIL: the canary's unguarded read" <<<"$out"; then
  echo "FAIL with the analysis switched off, the check did not fail on the canary" \
       "(exit $code):"; echo "$out"
  failures=$((failures + 1))
fi
echo "$((2 - failures)) of 2 runs judged right (the analysis on: the canary reported;" \
     "off: the check fails)"
[ "$failures" -eq 0 ]
