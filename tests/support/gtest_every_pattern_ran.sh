#!/usr/bin/env bash
# Runs a gtest binary with a --gtest_filter and fails unless every test it selected ran and
# passed, and every pattern of the filter selected a test:
#   gtest_every_pattern_ran.sh BINARY --gtest_filter=POS1:POS2:...[-NEG1:...] [ARGS...]
# A gtest skip (GTEST_SKIP) reads as Passed in a CTest test that runs many gtest cases, and
# a renamed suite drops out of a filter silently; here either fails the run: a pattern that
# selects nothing is named, a "[  SKIPPED ]" fails it, and "[  PASSED  ] N tests" must have
# N > 0. (gtest 1.12, Debian's, has no --gtest_fail_if_no_test_selected.)
set -uo pipefail
binary=$1
shift
filter=""
for arg in "$@"; do
  case $arg in --gtest_filter=*) filter=${arg#--gtest_filter=} ;; esac
done
[ -n "$filter" ] || { echo "gtest_every_pattern_ran.sh: no --gtest_filter given" >&2; exit 2; }
positive=${filter%%-*}
negative=""
[ "$positive" = "$filter" ] || negative=${filter#*-}

# Each positive pattern alone (less the negative ones) must select at least one test.
IFS=: read -r -a patterns <<<"$positive"
empty=()
for pattern in "${patterns[@]}"; do
  [ -n "$pattern" ] || continue
  listed=$("$binary" --gtest_list_tests "--gtest_filter=$pattern${negative:+-$negative}" 2>&1) ||
    { echo "$listed"; echo "FAIL: $binary --gtest_list_tests exited non-zero" >&2; exit 1; }
  grep -q '^  ' <<<"$listed" || empty+=("$pattern")
done
if [ ${#empty[@]} -gt 0 ]; then
  echo "FAIL: the filter's pattern(s) ${empty[*]} select no test of $binary (a suite renamed?)" >&2
  exit 1
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$binary" "$@" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" -eq 0 ] || exit "$status"
if grep -q '^\[  SKIPPED \]' "$log"; then
  echo "FAIL: a test skipped inside this run (listed above as [  SKIPPED ]): a skip is not a pass" >&2
  exit 1
fi
passed=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) tests\{0,1\}\..*/\1/p' "$log" | tail -n 1)
if [ -z "$passed" ] || [ "$passed" -eq 0 ]; then
  echo "FAIL: no test passed (\"[  PASSED  ] ${passed:-?} tests\"): the filter selected nothing" >&2
  exit 1
fi
echo "all $passed selected tests ran and passed"
