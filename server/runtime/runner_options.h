#pragma once
// How a runner is asked to run the model (RunnerOptions) and what it ended up running
// (ServingKernels): plain data, so the server's wiring can hold them without LibTorch.

#include <cstdint>
#include <string>

#include "tsserve/model/cpu_kernels.h"

namespace tsserve::server {

struct RunnerOptions {
  // "cpu", "cuda", "cuda:N", or "auto" (cuda when LibTorch sees a GPU, else cpu).
  std::string device = "cpu";
  // Intra-op threads, LibTorch's and the BLAS's (intra_op_threads.h). Process-wide in
  // both, so the last runner made wins.
  int threads = 1;
  // Largest batch the warm-up runs, so first requests do not pay for allocations.
  int64_t warm_up_rows = 64;
  // Which forward serves forecasts on the CPU.
  model::CpuKernels cpu_kernels = model::CpuKernels::kFused;
};

// Which forward serves forecasts, for the start-up log and GetModelInfo.
struct ServingKernels {
  std::string name;             // "fused-avx512" | "fused-avx2" | "fused-sse2" | "torch"
  std::string fallback_reason;  // why "fused" was asked for and "torch" serves; "" otherwise
};

// Whether the device option ("cpu", "cuda", "cuda:N", "auto") resolves to a GPU here.
// Throws model::ModelError as parse_device (device.h) does for one it cannot use.
bool runs_on_cuda(const std::string& device);

}  // namespace tsserve::server
