#!/usr/bin/env bash
# CTest static_clang_tidy: clang-tidy-14 over the server's locking code, every finding an
# error: the checks of .clang-tidy, and Clang's thread-safety analysis (-Wthread-safety),
# which checks each member declared TSSERVE_GUARDED_BY a tsserve::Mutex
# (server/sync/mutex.h) is touched only with that mutex held.
#
# Covered: every source under server/ (outside server/sync/) that has a mutex: a .cpp that
# names a Mutex, a MutexLock, a guarded member or a std:: mutex or lock, and for each header
# that does, the .cpp beside it (its members' definitions, where a guarded member can be
# touched: they are private) or, for a header with no .cpp of its own, the first .cpp that
# includes it. A new lock joins the set by itself, annotated or not (plain std::mutex is
# refused outright by static_plain_mutex). All of server/ instead took ~11 min on 2 cores
# (measured: 6 min for the 57 sources without LibTorch, 10-60 s each with gRPC's headers,
# and 50-80 s each for the 9 with LibTorch, runtime/ and two of app/); none of the others
# holds a lock, and a LibTorch source that came to would be covered.
# server/app/'s sources are compiled with a LibTorch precompiled header, GCC's, which clang
# cannot read: it is dropped from their commands here, as they compile without it
# (inference_server.cpp, which holds two locks, then parses in ~6 s instead of 30+).
#
# The canary, first: tests/static/thread_safety_canary.cpp (a guarded member read without
# its mutex) is run through the very same clang-tidy invocation, with the compile command
# of a covered source. Its violation ("reading variable 'value_' requires holding mutex
# 'mutex_'") must be in that run's output, and the canary with its lock held must pass;
# otherwise the check fails, as the analysis would not be applied to the sources either.
#
#   tests/static/clang_tidy_check.sh SOURCE_DIR BUILD_DIR [--canary-only]
# BUILD_DIR holds compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS) and the generated
# protobuf headers. CLANG_TIDY overrides the program (default clang-tidy-14);
# TSSERVE_TIDY_WORK the scratch folder (default BUILD_DIR/static_clang_tidy).
# --canary-only runs the canary alone (static_clang_tidy_selftest).
set -euo pipefail
root=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
canary_only=${3:-}
tidy=${CLANG_TIDY:-clang-tidy-14}
canary_source=tests/static/thread_safety_canary.cpp
canary_expected="reading variable 'value_' requires holding mutex 'mutex_'"

if ! command -v "$tidy" >/dev/null; then
  echo "static_clang_tidy: $tidy not found: install Debian's clang-tidy-14 package" \
       "(deploy/install-deps.sh lists it)" >&2
  exit 1
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "static_clang_tidy: no $build/compile_commands.json: configure with CMake first" >&2
  exit 1
fi

work=${TSSERVE_TIDY_WORK:-$build/static_clang_tidy}
rm -rf "$work"
mkdir -p "$work/logs"

cd "$root"
# What has a mutex: tsserve's (Mutex, MutexLock, a guarded member) or the standard's.
has_mutex='\bMutex\b|MutexLock|TSSERVE_(PT_)?GUARDED_BY|std::(recursive_|shared_|timed_|recursive_timed_|shared_timed_)?mutex\b|std::(lock_guard|scoped_lock|unique_lock|shared_lock)\b'
mapfile -t mutex_headers < <(grep -rlE "$has_mutex" server --include='*.h' \
                               | grep -v '^server/sync/' | sort)
{
  for header in "${mutex_headers[@]}"; do
    if [ -f "${header%.h}.cpp" ]; then
      echo "${header%.h}.cpp"
    else
      includer=$(grep -rlF "#include \"$header\"" server --include='*.cpp' | sort | head -n 1)
      if [ -z "$includer" ]; then
        echo "static_clang_tidy: $header has a mutex but no .cpp under server/ includes it" \
             "(nothing would analyse it)" >&2
        echo "UNCOVERED"
      else
        echo "$includer"
      fi
    fi
  done
  grep -rlE "$has_mutex" server --include='*.cpp' | grep -v '^server/sync/' || true
} | sort -u > "$work/sources.txt"
if grep -qx UNCOVERED "$work/sources.txt"; then exit 1; fi
mapfile -t sources < "$work/sources.txt"
if [ ${#sources[@]} -eq 0 ]; then
  echo "static_clang_tidy: found no source with a mutex under $root/server" >&2
  exit 1
fi

# The build's compile commands, less GCC's precompiled header (see above), and the canary
# with the compile command of the first covered source.
sed -e 's# -include [^ ]*/cmake_pch\.hxx##g' -e 's# -Winvalid-pch##g' \
    "$build/compile_commands.json" > "$work/compile_commands.json"
for source in "${sources[@]}"; do
  if ! grep -q "\"file\": \"$root/$source\"" "$work/compile_commands.json"; then
    echo "static_clang_tidy: $source is not in compile_commands.json: reconfigure" >&2
    exit 1
  fi
done
python3 - "$work/compile_commands.json" "$root/${sources[0]}" "$root/$canary_source" <<'PY'
import json, re, sys
path, model, canary = sys.argv[1:]
entries = json.load(open(path))
entry = dict(next(e for e in entries if e["file"] == model))
entry["file"] = canary
if "command" in entry:
    entry["command"] = entry["command"].replace(model, canary)
    entry["command"] = re.sub(r" -o \S+", " -o static_clang_tidy_canary.o", entry["command"], 1)
else:
    entry["arguments"] = [canary if a == model else a for a in entry["arguments"]]
entries.append(entry)
json.dump(entries, open(path, "w"), indent=1)
PY

# The one clang-tidy invocation: the canary and every source go through it.
run_tidy() {
  "$tidy" -p "$work" --quiet --warnings-as-errors="*" \
          --extra-arg=-Wthread-safety --extra-arg=-Werror=thread-safety \
          --extra-arg=-Wno-unknown-warning-option "$@"
}
export -f run_tidy
export tidy work

canary_log="$work/logs/canary.log"
if run_tidy "$canary_source" > "$canary_log" 2>&1; then canary_status=0; else canary_status=$?; fi
if [ "$canary_status" -eq 0 ] || ! grep -qF "$canary_expected" "$canary_log"; then
  cat "$canary_log"
  echo "static_clang_tidy: FAIL: the canary's unguarded read ($canary_source) is not" \
       "reported by this clang-tidy run (exit $canary_status, no \"$canary_expected\"):" \
       "the thread-safety analysis is not applied" >&2
  exit 1
fi
if ! run_tidy --extra-arg=-DTSSERVE_CANARY_HOLDS_LOCK "$canary_source" \
       > "$work/logs/canary_locked.log" 2>&1; then
  cat "$work/logs/canary_locked.log"
  echo "static_clang_tidy: FAIL: the canary with its lock held has findings (above), so" \
       "its refusal is not the planted read alone" >&2
  exit 1
fi
echo "static_clang_tidy: the canary's unguarded read is reported by this run" \
     "(\"$canary_expected\"); with its lock held it passes"
if [ "$canary_only" = "--canary-only" ]; then exit 0; fi

echo "static_clang_tidy: ${#sources[@]} sources, $(nproc) at a time: ${sources[*]}"
# One log per source, so parallel runs do not interleave; failures are printed whole.
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} bash -c '
  log="$work/logs/$(echo "$1" | tr / _).log"
  run_tidy "$1" > "$log" 2>&1 || echo "$1" >> "$work/failed"
' _ {}

if [ -s "$work/failed" ]; then
  while read -r source; do
    echo "=== $source"
    cat "$work/logs/$(echo "$source" | tr / _).log"
  done < "$work/failed"
  echo "static_clang_tidy: $(wc -l < "$work/failed") of ${#sources[@]} sources have findings" >&2
  exit 1
fi
echo "static_clang_tidy: no findings"
