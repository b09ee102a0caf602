#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang (AddressSanitizer and
# UndefinedBehaviorSanitizer; only the targets and the code they test, no LibTorch model)
# and runs each for a bounded time, starting from a copy of its seed corpus and its
# regression inputs. Fails on any crash, sanitizer report, leak, timeout or broken
# invariant, and says how to reproduce it.
#
#   tests/fuzz/run.sh [--build-dir DIR] [--seconds N] [--jobs J] [--targets a,b,...]
#
#   --build-dir DIR  the clang build (default: build-fuzz at the repository root)
#   --seconds N      fuzzing time per target (default 20)
#   --jobs J         targets fuzzed at once, and build parallelism (default: nproc)
#   --targets LIST   a subset, e.g. oip_request,server_config (default: all)
# Each target's grown corpus, log and any crash input stay in DIR/fuzz-runs/<target>/.
# Exits 77 (skipped) when clang++-14 or its libFuzzer runtime (libclang-rt-14-dev) is
# missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

build=$root/build-fuzz
seconds=20
jobs=$(nproc)
targets=(attention_selection checkpoint_file encode_request forecast_json_request forecast_request
         http_framing http_request_rules http_routes json_float_array oip_json_request
         observe_request oip_request series_snapshot server_config torch_pickle shared_store)
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --targets) IFS=, read -r -a targets <<<"$2"; shift 2 ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
  esac
done

clang=$(command -v clang++-14 || true)
if [ -z "$clang" ]; then
  echo "SKIPPED: clang++-14 is not installed (Debian: clang-14 libclang-rt-14-dev)"
  exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long) { return 0; }\n' \
  >"$probe/probe.cpp"
if ! "$clang" -fsanitize=fuzzer,address,undefined "$probe/probe.cpp" -o "$probe/probe" \
    2>"$probe/log"; then
  echo "SKIPPED: $clang cannot link libFuzzer (Debian: libclang-rt-14-dev):"
  cat "$probe/log"
  exit 77
fi

step() {  # step NAME COMMAND...: runs it, prints how long it took
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  echo "== $name: $((SECONDS - start)) s"
}

# Tests and benchmarks stay configured but unbuilt: only the fuzz targets named (by
# default all) are built.
step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER="$clang" -DTSSERVE_FUZZ=ON -DTSSERVE_BUILD_BENCHMARKS=OFF >/dev/null
step build cmake --build "$build" --target "${targets[@]/#/fuzz_}" -j "$jobs"

# halt_on_error and abort: the first report ends the run with the input saved.
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1

fuzz_one() {  # fuzz_one TARGET: fuzzes it for $seconds; libFuzzer's exit status goes to
  local target=$1 work=$build/fuzz-runs/$1 status=0  # $work/exit_status
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/artifacts"
  cp "$root/tests/fuzz/corpus/$target"/* "$work/corpus/"
  if [ -d "$root/tests/fuzz/regressions/$target" ]; then
    cp "$root/tests/fuzz/regressions/$target"/* "$work/corpus/"
  fi
  # -timeout: an input that takes 10 s is a hang; -rss_limit_mb bounds memory (LibTorch
  # and ASan's shadow take ~700 MB of it in the checkpoint targets).
  "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 \
    -error_exitcode=1 -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" \
    >"$work/log" 2>&1 || status=$?
  echo "$status" >"$work/exit_status"
}

echo "== fuzz: ${#targets[@]} targets x $seconds s, $jobs at a time"
for target in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  fuzz_one "$target" &
done
wait

failed=0
printf '%-20s %12s %9s %14s %8s  %s\n' target executions exec/s "corpus (seeds)" crashes result
for target in "${targets[@]}"; do
  work=$build/fuzz-runs/$target
  status=$(cat "$work/exit_status")
  log=$work/log
  execs=$(awk '/^stat::number_of_executed_units:/ {v = $2} END {print v}' "$log")
  rate=$(awk '/^stat::average_exec_per_sec:/ {v = $2} END {print v}' "$log")
  seeds=$(find "$root/tests/fuzz/corpus/$target" -type f | wc -l)
  corpus=$(find "$work/corpus" -type f | wc -l)
  crashes=$(find "$work/artifacts" -type f | wc -l)
  result=ok
  if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then result="FAILED (exit $status)"; failed=1; fi
  printf '%-20s %12s %9s %14s %8s  %s\n' "$target" "${execs:-?}" "${rate:-?}" \
    "$corpus ($seeds)" "$crashes" "$result"
done

if [ "$failed" -ne 0 ]; then
  for target in "${targets[@]}"; do
    work=$build/fuzz-runs/$target
    if [ -n "$(find "$work/artifacts" -type f)" ] || ! grep -q '^Done ' "$work/log"; then
      echo "---- $target: $work/log (last 40 lines)"
      tail -n 40 "$work/log"
      for artifact in "$work/artifacts"/*; do
        [ -e "$artifact" ] || continue
        echo "reproduce: $build/tests/fuzz/fuzz_$target $artifact"
        echo "then keep it: cp $artifact $root/tests/fuzz/regressions/$target/"
      done
    fi
  done
  exit 1
fi
