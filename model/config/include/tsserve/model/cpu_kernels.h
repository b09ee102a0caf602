#pragma once
// Which forward serves forecasts on the CPU (the server's --cpu-kernels): the LibTorch
// modules or the fused kernels (row_forecaster.h). Plain C++, so options can name it
// without LibTorch.

#include <string>

namespace tsserve::model {

enum class CpuKernels { kTorch, kFused };

// "torch" | "fused"; ModelError naming `field` and the accepted values otherwise.
CpuKernels parse_cpu_kernels(const std::string& text, const std::string& field);
std::string to_string(CpuKernels kernels);

}  // namespace tsserve::model
