#!/usr/bin/env bash
# CTest static_clang_tidy: clang-tidy-14 over the server's locking code, every finding an
# error: the checks of .clang-tidy, and Clang's thread-safety analysis (-Wthread-safety),
# which checks each member declared TSSERVE_GUARDED_BY a tsserve::Mutex
# (server/sync/mutex.h) is touched only with that mutex held.
#
# Covered: the sources under server/ that declare a guarded member, use a MutexLock, or are
# the .cpp beside a header that declares guarded members (its members' definitions, where a
# guarded member can be touched: they are private). That is the set where the analysis has
# something to check; a new guarded member joins it by itself. All of server/ instead took
# ~11 min on 2 cores (measured: 6 min for the 57 sources without LibTorch, 10-60 s each
# with gRPC's headers, and 50-80 s each for the 9 with LibTorch, runtime/ and two of app/);
# none of the others holds a lock, and a LibTorch source that came to would be covered.
# server/app/'s sources are compiled with a LibTorch precompiled header, GCC's, which clang
# cannot read: it is dropped from their commands here, as they compile without it
# (inference_server.cpp, which holds two locks, then parses in ~6 s instead of 30+).
#
#   tests/static/clang_tidy_check.sh SOURCE_DIR BUILD_DIR
# BUILD_DIR holds compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS) and the generated
# protobuf headers. CLANG_TIDY overrides the program (default clang-tidy-14).
set -euo pipefail
root=$(cd "$1" && pwd)
build=$(cd "$2" && pwd)
tidy=${CLANG_TIDY:-clang-tidy-14}

if ! command -v "$tidy" >/dev/null; then
  echo "static_clang_tidy: $tidy not found: install Debian's clang-tidy-14 package" \
       "(deploy/install-deps.sh lists it)" >&2
  exit 1
fi
if [ ! -f "$build/compile_commands.json" ]; then
  echo "static_clang_tidy: no $build/compile_commands.json: configure with CMake first" >&2
  exit 1
fi

work="$build/static_clang_tidy"
rm -rf "$work"
mkdir -p "$work/logs"

cd "$root"
mapfile -t guarded_headers < <(grep -rlE 'TSSERVE_(PT_)?GUARDED_BY' server --include='*.h' \
                                 | grep -v '^server/sync/')
{
  for header in "${guarded_headers[@]}"; do
    [ -f "${header%.h}.cpp" ] && echo "${header%.h}.cpp"
  done
  grep -rlE 'TSSERVE_(PT_)?GUARDED_BY|MutexLock' server --include='*.cpp' || true
} | sort -u > "$work/sources.txt"
mapfile -t sources < "$work/sources.txt"
if [ ${#sources[@]} -eq 0 ]; then
  echo "static_clang_tidy: found no source with a guarded member under $root/server" >&2
  exit 1
fi

# The build's compile commands, less GCC's precompiled header (see above).
sed -e 's# -include [^ ]*/cmake_pch\.hxx##g' -e 's# -Winvalid-pch##g' \
    "$build/compile_commands.json" > "$work/compile_commands.json"
for source in "${sources[@]}"; do
  if ! grep -q "\"file\": \"$root/$source\"" "$work/compile_commands.json"; then
    echo "static_clang_tidy: $source is not in compile_commands.json: reconfigure" >&2
    exit 1
  fi
done

echo "static_clang_tidy: ${#sources[@]} sources, $(nproc) at a time: ${sources[*]}"
# One log per source, so parallel runs do not interleave; failures are printed whole.
printf '%s\n' "${sources[@]}" | xargs -P "$(nproc)" -I{} sh -c '
  log="$1/logs/$(echo "$2" | tr / _).log"
  "$0" -p "$1" --quiet --warnings-as-errors="*" \
       --extra-arg=-Wthread-safety --extra-arg=-Werror=thread-safety \
       --extra-arg=-Wno-unknown-warning-option "$2" > "$log" 2>&1 || echo "$2" >> "$1/failed"
' "$tidy" "$work" {}

if [ -s "$work/failed" ]; then
  while read -r source; do
    echo "=== $source"
    cat "$work/logs/$(echo "$source" | tr / _).log"
  done < "$work/failed"
  echo "static_clang_tidy: $(wc -l < "$work/failed") of ${#sources[@]} sources have findings" >&2
  exit 1
fi
echo "static_clang_tidy: no findings"
