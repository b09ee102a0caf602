# Sourced by the tests that run a Node validator: installs its packages, pinned by the
# package-lock.json in DIR, with `npm ci`.
#   npm_ci_or_skip DIR WHAT
# Where the npm registry cannot be reached (no route, or a TLS-intercepting proxy whose CA
# this root does not trust, as in a pristine-root check of the set-up) the validator cannot
# run: npm_skipped then says why, and the test ends SKIPPED (77), never passed. Any other
# npm failure fails the test.
npm_ci_or_skip() {
  local dir=$1 what=$2
  npm_skipped=""
  if ! (cd "$dir" && npm ci --no-audit --no-fund --prefer-offline --loglevel=error \
          >/dev/null 2>"$dir/npm.log"); then
    # npm names a network failure "npm ERR! network ..." or by its code (a socket timeout
    # and a proxy's 5xx or 429 included).
    if grep -qE 'ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EAI_AGAIN|ERR_SOCKET_TIMEOUT|EHOSTUNREACH|ENETUNREACH|EPIPE|E5[0-9][0-9]|E429|npm ERR! network|CERT|certificate' "$dir/npm.log"; then
      npm_skipped="$what: npm registry unreachable ($(grep -m1 -oE 'code [A-Z_]+' "$dir/npm.log" || true))"
      echo "SKIPPING $npm_skipped"
    else
      cat "$dir/npm.log" >&2
      echo "FAIL: npm ci" >&2
      exit 1
    fi
  fi
}
