#!/usr/bin/env bash
# TSSERVE_FUSED_ISA naming no instruction set, or one this CPU lacks, is refused at start
# with the variable named, never silently replaced by another set (kernel_choices.h).
#   tests/e2e/fused_isa_refused_test.sh TSSERVE_BINARY unknown|lacking
# unknown: a name that is no instruction set (neon). lacking: avx512 on a CPU without
# AVX-512, which cannot be shown on a CPU that has it: there that half says SKIPPED (77),
# naming the flag, so a PASS always means the whole half ran (CTest runs each half).
set -euo pipefail
tsserve=$1
half=${2:-}
root=$(cd "$(dirname "$0")/../.." && pwd)
model=$root/model/default/patchtst_etth1.pt

# $1: the variable's value; $2: what the refusal must say.
expect_refused() {
  local output status=0
  output=$(TSSERVE_FUSED_ISA="$1" timeout 120 "$tsserve" --model "$model" \
    --grpc-address 127.0.0.1:0 --http-address "" --metrics-address 127.0.0.1:0 2>&1) || status=$?
  if [ "$status" -eq 0 ] || [ "$status" -eq 124 ]; then
    echo "FAIL: TSSERVE_FUSED_ISA=$1 was not refused at start (exit $status)"
    exit 1
  fi
  if ! grep -qF -- "$2" <<<"$output"; then
    echo "FAIL: TSSERVE_FUSED_ISA=$1 refused without saying '$2':"
    echo "$output"
    exit 1
  fi
  echo "refused as it should be: TSSERVE_FUSED_ISA=$1 (exit $status)"
}

case $half in
  unknown)
    expect_refused neon 'TSSERVE_FUSED_ISA must be avx512, avx2 or sse2'
    ;;
  lacking)
    # The refusal needs a CPU without AVX-512 F/VL/BW/DQ (fused_dispatch.cpp asks all four).
    for flag in avx512f avx512vl avx512bw avx512dq; do
      if ! grep -qw "$flag" /proc/cpuinfo; then
        expect_refused avx512 'TSSERVE_FUSED_ISA=avx512, but this CPU lacks AVX-512'
        echo PASS
        exit 0
      fi
    done
    echo "SKIPPED: the refusal of TSSERVE_FUSED_ISA=avx512 needs a CPU without the flag avx512f, and this one has AVX-512 F/VL/BW/DQ"
    exit 77
    ;;
  *)
    echo "usage: $0 TSSERVE_BINARY unknown|lacking" >&2
    exit 2
    ;;
esac
echo PASS
