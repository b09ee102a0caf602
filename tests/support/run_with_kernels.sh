#!/usr/bin/env bash
# Runs a test command with one kernel choice forced and the others left to the machine:
#   run_with_kernels.sh KIND=VALUE COMMAND [ARGS...]
#   fused=avx512|avx2|sse2          TSSERVE_FUSED_ISA   (tsserve's fused kernels)
#   aten=avx512|avx2|default        ATEN_CPU_CAPABILITY (LibTorch's vectorised operators)
#   openblas=Haswell|Sandybridge|SkylakeX|Cooperlake   OPENBLAS_CORETYPE (GEMM kernels)
#   own=own                         nothing forced (the machine's own choices)
# A choice the CPU cannot run exits 77, CTest's SKIP_RETURN_CODE, saying which flag is
# missing: CTest lists it as skipped, never as passed. (Forcing it would crash on an
# illegal instruction, or be ignored by a library that falls back without a word.)
set -euo pipefail
choice=$1
shift
kind=${choice%%=*}
value=${choice#*=}
unset TSSERVE_FUSED_ISA ATEN_CPU_CAPABILITY OPENBLAS_CORETYPE

flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
needs() {
  for flag in "$@"; do
    case "$flags" in
      *" $flag "*) ;;
      *)
        echo "SKIPPED: $choice needs the CPU flag $flag, which this CPU ($cpu) lacks"
        exit 77
        ;;
    esac
  done
}
avx512=(avx512f avx512vl avx512bw avx512dq)

case "$kind=$value" in
  own=own | fused=sse2 | aten=default) ;;
  fused=avx2 | aten=avx2 | openblas=Haswell) needs avx2 fma ;;
  openblas=Sandybridge) needs avx ;;
  fused=avx512 | aten=avx512) needs "${avx512[@]}" ;;
  openblas=SkylakeX) needs "${avx512[@]}" avx512cd ;;
  openblas=Cooperlake) needs "${avx512[@]}" avx512cd avx512_bf16 ;;
  *)
    echo "run_with_kernels.sh: unknown choice '$choice' (see the usage at the top)" >&2
    exit 2
    ;;
esac
case "$kind" in
  fused) export TSSERVE_FUSED_ISA="$value" ;;
  aten) export ATEN_CPU_CAPABILITY="$value" ;;
  openblas) export OPENBLAS_CORETYPE="$value" ;;
esac
echo "kernel choice: $choice on $cpu"
exec "$@"
