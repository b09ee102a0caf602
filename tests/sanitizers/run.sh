#!/usr/bin/env bash
# Builds tsserve with sanitizers (cmake/sanitizers.cmake) and runs its tests there, with
# the runtime options below and the suppression files beside this script (each entry says
# why the report is not our bug; our own code's reports are fixed, never suppressed).
#
#   tests/sanitizers/run.sh address   # ASan + UBSan + LSan: everything built, the whole
#                                     # CTest suite run (less the checks named below)
#   tests/sanitizers/run.sh thread    # TSan: the batcher, codecs and in-process gRPC server
#                                     # (server_tests, server_integration_tests), the
#                                     # client library and the CLI against real servers
#                                     # (client_tests, client_cli_tests)
# Options, after the mode:
#   --build-dir DIR   default: build-asan / build-tsan at the repository root
#   --server-tests    server_tests alone (batcher with real threads, fake clock, codecs,
#                     config, metrics): no LibTorch, so quick to build; CI runs this
#   --jobs N          build and ctest parallelism (default: nproc)
# Prints the time of each step; exits with the status of the first step that failed.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
here=$root/tests/sanitizers

usage() { sed -n '2,17p' "$0" >&2; exit 2; }
[ $# -ge 1 ] || usage
mode=$1
shift
build=""
subset=full
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case $1 in
    --build-dir) build=$2; shift 2 ;;
    --server-tests) subset=server; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    *) echo "run.sh: unknown option '$1'" >&2; usage ;;
  esac
done

case $mode in
  address)
    sanitize="address;undefined"
    build=${build:-$root/build-asan}
    # halt_on_error: the first report ends the process, so the test that caused it fails.
    # detect_stack_use_after_return and the init-order checks catch what the defaults miss.
    export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1"
    export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$here/ubsan.supp"
    ;;
  thread)
    sanitize="thread"
    build=${build:-$root/build-tsan}
    # halt_on_error: a race fails the test that raced; second_deadlock_stack: both stacks
    # of a lock-order inversion; ignore_noninstrumented_modules: memcpy, malloc/free and
    # the like called from inside uninstrumented libraries (libgrpc, LibTorch, OpenBLAS)
    # are not checked, since the locks and atomics that order those calls are invisible
    # too (TSan's documented setting for uninstrumented libraries). Our code is checked.
    # history_size=7: the most memory of past accesses per thread, so both stacks of a
    # report are restored (a lost one cannot be matched against the suppressions).
    export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1:history_size=7:suppressions=$here/tsan.supp:print_suppressions=0"
    ;;
  *) usage ;;
esac

step() {  # step NAME COMMAND...: runs it; says how long it took on stderr
  local name=$1 start=$SECONDS status=0
  shift
  echo "== $name: $*" >&2
  "$@" || status=$?
  echo "== $name: $((SECONDS - start)) s, exit $status" >&2
  return $status
}

# The benchmarks are left out: they measure speed, which sanitizers change by design.
step configure cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DTSSERVE_SANITIZE=$sanitize" -DTSSERVE_BUILD_BENCHMARKS=OFF >/dev/null

# gtest_discover_tests runs each test binary while building, so the options above apply
# to the build too.
ctest_args=(--output-on-failure --timeout 1500 -j "$jobs")

# expect_report KIND PATTERN: the canary's deliberate KIND bug must end it with a failing
# status and PATTERN in the report, or this build cannot be trusted to report ours.
expect_report() {
  local kind=$1 pattern=$2 out status=0
  out=$("$build/tests/sanitizers/sanitizer_canary" "$kind" 2>&1) || status=$?
  if [ "$status" -eq 0 ] || ! grep -q "$pattern" <<<"$out"; then
    printf '%s\n' "$out" >&2
    echo "FAIL: the $kind canary was not reported ('$pattern' expected; exit $status)" >&2
    return 1
  fi
  echo "reported as expected: $kind ('$pattern', exit $status)"
}
canaries() {  # (step runs this in an || list, where set -e is off: hence the &&)
  if [ "$mode" = thread ]; then
    expect_report data-race "WARNING: ThreadSanitizer: data race"
  else
    expect_report heap-use-after-free "ERROR: AddressSanitizer: heap-use-after-free" &&
      expect_report signed-overflow "runtime error: signed integer overflow" &&
      expect_report leak "ERROR: LeakSanitizer: detected memory leaks"
  fi
}

# TSan sees the interleavings a run happens to take: the suites whose threads meet (the
# batcher's workers and submitters, the fake clock's waiters) run again, 20 times over, in
# one process (a few seconds; BatchTaskTest's racing completions loop on their own).
repeat_threaded_suites() {
  "$build/tests/server/server_tests" --gtest_brief=1 --gtest_repeat=20 \
    --gtest_filter='DynamicBatcherTest.*:FakeClockTest.*'
}

if [ "$subset" = server ]; then
  step build cmake --build "$build" -j "$jobs" --target sanitizer_canary server_tests
  step canaries canaries
  # Tests of targets not built here show up as <target>_NOT_BUILT.
  step test ctest --test-dir "$build/tests/server" "${ctest_args[@]}" -E '_NOT_BUILT$'
  [ "$mode" = address ] || step repeat repeat_threaded_suites
elif [ "$mode" = thread ]; then
  step build cmake --build "$build" -j "$jobs" --target sanitizer_canary server_tests \
    server_integration_tests client_tests client_cli_tests
  step canaries canaries
  step test-server ctest --test-dir "$build/tests/server" "${ctest_args[@]}" -E '_NOT_BUILT$'
  step repeat repeat_threaded_suites
  step test-client ctest --test-dir "$build/tests/client" "${ctest_args[@]}" -E '_NOT_BUILT$'
else
  step build cmake --build "$build" -j "$jobs"
  step canaries canaries
  # Left out: deploy_image builds and runs the container image (its own, unsanitized
  # build); deploy_prometheus_config and deploy_alert_rules run promtool on YAML, no code
  # of ours.
  step test ctest --test-dir "$build" "${ctest_args[@]}" -LE image \
    -E '^deploy_(prometheus_config|alert_rules)$'
fi
