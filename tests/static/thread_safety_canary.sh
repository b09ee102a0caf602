#!/usr/bin/env bash
# CTest static_thread_safety_canary: proves the thread-safety check can fail. Compiles
# thread_safety_canary.cpp (a guarded member read without its mutex) with clang's
# -Wthread-safety -Werror against the real server/sync/ headers: it must be refused with
# the thread-safety diagnostic, and the same file with the lock held must compile, so the
# refusal is the planted bug and not some unrelated error.
#
#   tests/static/thread_safety_canary.sh SOURCE_DIR
# CLANGXX overrides the compiler (default clang++-14).
set -euo pipefail
root=$(cd "$1" && pwd)
clangxx=${CLANGXX:-clang++-14}
canary="$root/tests/static/thread_safety_canary.cpp"

if ! command -v "$clangxx" >/dev/null; then
  echo "static_thread_safety_canary: $clangxx not found: install Debian's clang-14 package" \
       "(deploy/install-deps.sh lists it)" >&2
  exit 1
fi
flags=(-std=c++17 -fsyntax-only -Wthread-safety -Werror -I "$root")

if output=$("$clangxx" "${flags[@]}" "$canary" 2>&1); then
  echo "FAIL: the unguarded read compiled: -Wthread-safety sees nothing through" \
       "server/sync/mutex.h" >&2
  exit 1
fi
expected="reading variable 'value_' requires holding mutex 'mutex_'"
if ! grep -qF "$expected" <<<"$output"; then
  echo "FAIL: refused, but not with \"$expected\":" >&2
  echo "$output" >&2
  exit 1
fi
if ! "$clangxx" "${flags[@]}" -DTSSERVE_CANARY_HOLDS_LOCK "$canary"; then
  echo "FAIL: the canary with its lock held does not compile (see above)" >&2
  exit 1
fi
echo "static_thread_safety_canary: the unguarded read is refused" \
     "(\"$expected\"), the guarded one compiles"
