#pragma once
// Which kernels compute a forward on this machine, to name in logs, test output and
// benchmark reports. The same model gives bitwise different (equally valid) results under
// different kernels, so a figure or a failure means little without them.
//
// Each choice can be forced from the environment, before the process first uses it:
//   TSSERVE_FUSED_ISA    avx512 | avx2 | sse2      (tsserve's fused kernels)
//   ATEN_CPU_CAPABILITY  avx512 | avx2 | default   (LibTorch's vectorised operators)
//   OPENBLAS_CORETYPE    Haswell | SkylakeX | ...  (OpenBLAS's GEMM kernels)

#include <string>
#include <vector>

namespace tsserve::model {

struct KernelChoices {
  std::string cpu_model;               // /proc/cpuinfo's "model name"; "" when unknown
  std::vector<std::string> cpu_flags;  // of avx2, fma, avx512f/vl/bw/dq, the ones present
  std::string fused_isa;               // "avx512", "avx2" or "sse2"; an error's text if refused
  std::string aten_capability;         // as ATen names it: "AVX512", "AVX2", "NO AVX"
  std::string blas_core;               // OpenBLAS's core type; "" when the BLAS is another
  std::vector<std::string> forced;     // "VARIABLE=value" for each forcing variable set
};

// Reads every choice (it makes ATen and the fused dispatcher decide, if they have not).
KernelChoices kernel_choices();

// One line: "CPU AMD EPYC (avx2 fma; no avx512f); fused kernels avx2; ATen AVX2;
// OpenBLAS Zen; forced: none".
std::string describe(const KernelChoices& choices);

// True when the CPU has the named flag (as /proc/cpuinfo spells it: "avx512f", ...).
bool cpu_has(const std::string& flag);

}  // namespace tsserve::model
