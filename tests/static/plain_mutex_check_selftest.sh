#!/usr/bin/env bash
# CTest static_plain_mutex_selftest: proves plain_mutex_check.sh can fail. Plants a small
# server/ tree in a temp folder: clean, it must pass (exit 0) although it holds what is
# allowed (server/sync/'s own std::mutex, a std::unique_lock<std::mutex>& parameter as
# Clock::wait_until takes, a comment naming std::mutex); then with each plain standard
# mutex or lock planted in turn (a std::mutex member, as live_series.h had; a
# std::lock_guard; a std::unique_lock that owns its lock; a std::shared_mutex; a
# std::scoped_lock; a std::recursive_mutex) it must exit 3 and name the planted FILE:LINE.
# Any other exit (a crash) fails this test.
#
#   tests/static/plain_mutex_check_selftest.sh SOURCE_DIR
set -uo pipefail
check="$(cd "$1" && pwd)/tests/static/plain_mutex_check.sh"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

plant_clean() {
  rm -rf "$scratch/server"
  mkdir -p "$scratch/server/sync" "$scratch/server/batching" "$scratch/server/app"
  printf '#pragma once\n#include <mutex>\nclass Mutex { std::mutex mutex_; };\n' \
    > "$scratch/server/sync/mutex.h"
  printf '#pragma once\n#include <mutex>\n// Like std::mutex, but annotated.\n%s\n' \
    'void wait_until(std::unique_lock<std::mutex>& lock);' > "$scratch/server/batching/clock.h"
  printf '#include "server/sync/mutex.h"\nclass Live {\n  Mutex mutex_;\n};\n' \
    > "$scratch/server/app/live_series.h"
}

failures=0
plant_clean
if ! out=$("$check" "$scratch" 2>&1); then
  echo "FAIL the clean tree was refused (exit $?):"; echo "$out"; failures=$((failures + 1))
fi

declare -A plants=(
  ["a std::mutex member"]='  std::mutex mutex_;'
  ["a std::lock_guard"]='  void f() { std::lock_guard<Mutex> lock(mutex_); }'
  ["a std::unique_lock that owns its lock"]='  void f() { std::unique_lock<std::mutex> lock(m_); }'
  ["a std::shared_mutex"]='  std::shared_mutex shared_;'
  ["a std::scoped_lock"]='  void f() { std::scoped_lock lock(a_, b_); }'
  ["a std::recursive_mutex"]='  std::recursive_mutex again_;'
)
for name in "${!plants[@]}"; do
  plant_clean
  printf '#include <mutex>\nclass Planted {\n%s\n};\n' "${plants[$name]}" \
    > "$scratch/server/app/planted.h"
  out=$("$check" "$scratch" 2>&1)
  code=$?
  if [ "$code" -ne 3 ]; then
    echo "FAIL $name: expected exit 3 (found), got $code:"; echo "$out"
    failures=$((failures + 1))
  elif ! grep -qF "server/app/planted.h:3: ${plants[$name]}" <<<"$out"; then
    echo "FAIL $name: exit 3, but server/app/planted.h:3 is not named:"; echo "$out"
    failures=$((failures + 1))
  fi
done
echo "$((${#plants[@]} + 1 - failures)) of $((${#plants[@]} + 1)) planted trees judged right"
[ "$failures" -eq 0 ]
