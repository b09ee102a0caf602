#!/usr/bin/env bash
# CTest static_eslint_selftest: proves eslint_check.sh can fail. Plants a small git tree
# in a temp folder (a console module under server/http/console/ that imports and touches
# `document`, a Node script under tests/ that requires and reads `process`, and the
# repository's own eslint.config.js): clean, it must pass (exit 0); then with each fault
# planted in turn (a 121-column line in the console module; an undefined variable in the
# Node script; a browser global in the Node script; `require` in the console module; an
# unused variable; a tracked file in a new folder with an over-long line) it must exit 3
# and name the planted file and rule. The same tree without .git (every *.js found) must
# be judged alike: clean passes, an over-long line fails. Any other exit fails this test;
# exit 77 (the npm registry cannot be reached) skips it.
#
#   tests/static/eslint_check_selftest.sh SOURCE_DIR WORK_DIR
set -uo pipefail
source_root=$(cd "$1" && pwd)
check="$source_root/tests/static/eslint_check.sh"
mkdir -p "$2"
work=$(cd "$2" && pwd)
scratch=$(cd "$(mktemp -d)" && pwd -P)
trap 'rm -rf "$scratch"' EXIT

long_line="// $(printf 'x%.0s' $(seq 1 118))"  # 121 columns

plant_clean() {
  rm -rf "$scratch/tree"
  mkdir -p "$scratch/tree/server/http/console" "$scratch/tree/tests/e2e" "$scratch/tree/tests/static/eslint"
  cp "$source_root/tests/static/eslint/eslint.config.js" "$scratch/tree/tests/static/eslint/"
  printf '%s\n' '// A console module.' 'import { helper } from "./helper.js";' '' \
    'export function show() {' '  document.title = helper(window.location.hash);' '}' \
    > "$scratch/tree/server/http/console/view.js"
  printf '%s\n' 'export function helper(text) {' '  return text.slice(1);' '}' \
    > "$scratch/tree/server/http/console/helper.js"
  printf '%s\n' '"use strict";' 'const fs = require("node:fs");' '' \
    'console.log(fs.existsSync(process.argv[1]));' > "$scratch/tree/tests/e2e/check.js"
  (cd "$scratch/tree" && git init -q && git add .)
}

failures=0
runs=0
# expect NAME WANT_EXIT [FILE RULE]: runs the check on the planted tree.
expect() {
  local name=$1 want=$2 file=${3:-} rule=${4:-} out code
  runs=$((runs + 1))
  out=$("$check" "$scratch/tree" "$work" 2>&1)
  code=$?
  if [ "$code" -eq 77 ]; then
    echo "SKIPPED: $(grep -m1 -oE 'the ESLint check: npm registry unreachable.*' <<<"$out")"
    exit 77
  fi
  if [ "$code" -ne "$want" ]; then
    echo "FAIL $name: expected exit $want, got $code:"; echo "$out"
    failures=$((failures + 1))
  elif [ -n "$file" ] && ! { grep -qF "$scratch/tree/$file" <<<"$out" && grep -qE "error .* $rule\$" <<<"$out"; }; then
    echo "FAIL $name: exit $want, but $file and $rule are not both named:"; echo "$out"
    failures=$((failures + 1))
  fi
}

plant_clean
expect "the clean tree" 0

plant_clean
echo "$long_line" >> "$scratch/tree/server/http/console/view.js"
expect "a 121-column line in the console" 3 server/http/console/view.js max-len

plant_clean
echo 'console.log(undeclared);' >> "$scratch/tree/tests/e2e/check.js"
expect "an undefined variable in a Node script" 3 tests/e2e/check.js no-undef

plant_clean
echo 'console.log(document.title);' >> "$scratch/tree/tests/e2e/check.js"
expect "a browser global in a Node script" 3 tests/e2e/check.js no-undef

plant_clean
printf '%s\n' 'export const fs = require("node:fs");' >> "$scratch/tree/server/http/console/helper.js"
expect "require in a console module" 3 server/http/console/helper.js no-undef

plant_clean
printf '%s\n' 'export function unused() {' '  const left = 1;' '}' \
  >> "$scratch/tree/server/http/console/helper.js"
expect "an unused variable" 3 server/http/console/helper.js no-unused-vars

plant_clean
mkdir -p "$scratch/tree/tools/bench"
printf '%s\n' '"use strict";' "$long_line" > "$scratch/tree/tools/bench/new.js"
(cd "$scratch/tree" && git add tools/bench/new.js)
expect "a tracked file in a new folder" 3 tools/bench/new.js max-len

plant_clean
rm -rf "$scratch/tree/.git"
expect "the clean tree without git" 0

plant_clean
rm -rf "$scratch/tree/.git"
echo "$long_line" >> "$scratch/tree/tests/e2e/check.js"
expect "a 121-column line, without git" 3 tests/e2e/check.js max-len

echo "$((runs - failures)) of $runs planted trees judged right"
[ "$failures" -eq 0 ]
