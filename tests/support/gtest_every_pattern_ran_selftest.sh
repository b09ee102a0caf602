#!/usr/bin/env bash
# Proves gtest_every_pattern_ran.sh fails where a kernels_* rerun must: a stand-in gtest
# binary that passes (accepted), passes 0 tests, skips one, fails, or whose filter has a
# pattern that selects nothing (each refused); then the real model_tests, when given, with
# a pattern naming no suite (refused) and one real suite (accepted).
#   gtest_every_pattern_ran_selftest.sh [MODEL_TESTS_BINARY]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
check=$here/gtest_every_pattern_ran.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/fake_gtest" <<'FAKE'
#!/bin/sh
for a in "$@"; do
  if [ "$a" = --gtest_list_tests ]; then
    case "$*" in *Renamed*) echo "Other." ;; *) printf 'Suite.\n  Case\n' ;; esac
    exit 0
  fi
done
case $FAKE_MODE in
  pass) echo "[  PASSED  ] 3 tests." ;;
  zero) echo "[  PASSED  ] 0 tests." ;;
  skip) printf '[  PASSED  ] 2 tests.\n[  SKIPPED ] 1 test, listed below:\n[  SKIPPED ] A.B\n' ;;
  fail) echo "[  FAILED  ] A.B"; exit 1 ;;
esac
FAKE
chmod +x "$work/fake_gtest"
failures=0
# expect WANT(0|fail) WHAT NEEDLE MODE FILTER [BINARY]
expect() {
  local want=$1 what=$2 needle=$3 mode=$4 filter=$5 binary=${6:-$work/fake_gtest} out status=0
  out=$(FAKE_MODE=$mode bash "$check" "$binary" "--gtest_filter=$filter" 2>&1) || status=$?
  if { [ "$want" = 0 ] && [ "$status" -ne 0 ]; } || { [ "$want" = fail ] && [ "$status" -eq 0 ]; } ||
     ! grep -qF -- "$needle" <<<"$out"; then
    echo "FAIL: $what: wanted ${want/0/exit 0} with '$needle', got exit $status:"
    tail -n 5 <<<"$out"
    failures=$((failures + 1))
  else
    echo "ok: $what"
  fi
}
expect 0 "every test ran and passed" "all 3 selected tests ran and passed" pass 'A.*:B*-C*'
expect fail "zero tests passed" "the filter selected nothing" zero 'A.*'
expect fail "a test skipped" "a skip is not a pass" skip 'A.*'
expect fail "a test failed" "[  FAILED  ] A.B" fail 'A.*'
expect fail "a pattern selects nothing" "pattern(s) Renamed.* select no test" pass 'A.*:Renamed.*-C*'
if [ $# -ge 1 ]; then
  expect fail "model_tests: a suite renamed away" "pattern(s) NoSuchSuiteAnywhere.* select no test" \
    pass 'KernelChoices.*:NoSuchSuiteAnywhere.*' "$1"
  expect 0 "model_tests: a real suite" "selected tests ran and passed" pass 'KernelChoices.*' "$1"
fi
[ "$failures" -eq 0 ] || { echo "FAIL: $failures"; exit 1; }
echo PASS
