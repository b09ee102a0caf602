#include "tsserve/model/cpu_kernels.h"

#include "tsserve/model/model_error.h"

namespace tsserve::model {

CpuKernels parse_cpu_kernels(const std::string& text, const std::string& field) {
  if (text == "torch") return CpuKernels::kTorch;
  if (text == "fused") return CpuKernels::kFused;
  throw ModelError(field + " must be \"torch\" or \"fused\", got \"" + text + "\"");
}

std::string to_string(CpuKernels kernels) {
  return kernels == CpuKernels::kFused ? "fused" : "torch";
}

}  // namespace tsserve::model
