#!/usr/bin/env bash
# config_reference_check.sh can fail: a current copy of the page passes, and a copy with a
# stale default, a missing option row or no page at all is refused with its diff.
#   tests/tools/config_reference_check_selftest.sh GENERATOR
set -euo pipefail
generator=$1
check="$(cd "$(dirname "$0")" && pwd)/config_reference_check.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$generator" >"$work/current.md"

bash "$check" "$generator" "$work/current.md" >/dev/null || { echo "FAIL: a current page was refused" >&2; exit 1; }

# expect_refused NAME PATTERN: the check refuses $work/NAME and its output matches PATTERN.
expect_refused() {
  local out
  if out=$(bash "$check" "$generator" "$work/$1" 2>&1); then
    echo "FAIL: the check passed $1" >&2; exit 1
  fi
  grep -qE -- "$2" <<<"$out" || { echo "$out"; echo "FAIL: $1: no '$2' in the report" >&2; exit 1; }
  echo "refused as expected: $1"
}
# A default changed in the table but not on the page (a planted 447 for the 448 rows).
sed 's/^\(| `--max-batch-rows` .*\)| `[0-9]*` |/\1| `447` |/' "$work/current.md" >"$work/stale-default.md"
cmp -s "$work/current.md" "$work/stale-default.md" && { echo "FAIL: could not plant the stale default" >&2; exit 1; }
expect_refused stale-default.md '^-\| `--max-batch-rows`.*`447`'
# An option the page does not list.
grep -v '^| `--idle-spin-us`' "$work/current.md" >"$work/missing-option.md"
expect_refused missing-option.md '^\+\| `--idle-spin-us`'
# No page at all.
expect_refused absent.md 'regenerate with'
echo "PASS"
