#!/usr/bin/env bash
# CTest static_eslint: ESLint over every tracked *.js file (the console's modules, the
# tests' validators and browser drivers, the bench's), with eslint/eslint.config.js: the
# recommended rules and no line over 120 columns, the console as browser ES modules and the
# rest as Node CommonJS. ESLint and its rules are pinned by eslint/package-lock.json and
# installed with `npm ci` in WORK_DIR (not in the source tree, which may be read-only); the
# lint runs from the source root. The files: `git ls-files '*.js'` where SOURCE_DIR is a
# git work tree; otherwise every *.js outside node_modules/ and build folders (those with
# a CMakeCache.txt).
#
#   tests/static/eslint_check.sh SOURCE_DIR WORK_DIR
# Exit 0: clean; 3: ESLint found problems (listed, FILE LINE:COLUMN and rule); 77: skipped,
# the npm registry cannot be reached; anything else: the check itself failed (no npm:
# deploy/install-deps.sh installs it). static_eslint_selftest plants faults in a small
# tree and expects exit 3 naming each.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$1" && pwd)
mkdir -p "$2/node"
work=$(cd "$2" && pwd)

cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
   [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
  mapfile -d '' -t listed < <(git ls-files -z -- '*.js')
  files=()
  for f in "${listed[@]}"; do [ -f "$f" ] && files+=("$f"); done
  how="tracked"
else
  mapfile -d '' -t files < <(find . \( -name node_modules -o -name .git \
                                       -o \( -type d -exec test -e '{}/CMakeCache.txt' \; \) \) -prune \
                                    -o -type f -name '*.js' -printf '%P\0' | sort -z)
  how="found (no git work tree)"
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "static_eslint: no *.js file in $root" >&2
  exit 1
fi

cp "$here/eslint/package.json" "$here/eslint/package-lock.json" "$here/eslint/eslint.config.js" \
   "$work/node/"
# shellcheck source=../support/npm_ci.sh
source "$here/../support/npm_ci.sh"
npm_ci_or_skip "$work/node" "the ESLint check"
if [ -n "$npm_skipped" ]; then
  echo "SKIPPED: $npm_skipped"
  exit 77
fi

code=0
"$work/node/node_modules/.bin/eslint" --config "$work/node/eslint.config.js" --max-warnings 0 \
  -- "${files[@]}" || code=$?
case $code in
  0) echo "static_eslint: ${#files[@]} $how *.js files clean (recommended rules, max-len 120)" ;;
  1) echo "static_eslint: ESLint found problems in the files above (tests/static/eslint/eslint.config.js)" >&2
     exit 3 ;;
  *) echo "static_eslint: ESLint itself failed (exit $code)" >&2
     exit 1 ;;
esac
