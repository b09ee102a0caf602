#pragma once
// A loaded model of any family, on its device and warmed up: the one interface every
// family's forecaster (model/families/<family>/) implements, and what the server holds
// whatever the family. Each forecaster owns its choice between the fused CPU kernels and
// the LibTorch modules, its placement (device, threads) and its warm-up; its forecast calls
// are its family's own (a row, a sample of N variables, a sample with its time marks).
//
// Thread safety: const members may be called from any thread once it is built.
//
// No LibTorch in this header, so the server's wiring includes it without LibTorch.

#include <cstdint>
#include <string>

#include "tsserve/model/cpu_kernels.h"
#include "tsserve/model/model_config.h"

namespace tsserve::model {

// How a forecaster is asked to run its model.
struct ForecasterOptions {
  // "cpu", "cuda", "cuda:N", or "auto" (cuda when LibTorch sees a GPU, else cpu).
  std::string device = "cpu";
  // Intra-op threads, LibTorch's and the BLAS's (intra_op_threads.h). Process-wide in
  // both, so the last forecaster made wins.
  int threads = 1;
  // Largest batch the warm-up runs, so first requests do not pay for allocations.
  int64_t warm_up_rows = 64;
  // Which forward serves forecasts on the CPU.
  CpuKernels cpu_kernels = CpuKernels::kFused;
};

// Which forward serves forecasts, for the start-up log and GetModelInfo.
struct ServingKernels {
  std::string name;             // "fused-avx512" | "fused-avx2" | "fused-sse2" | "torch"
  std::string fallback_reason;  // why "fused" was asked for and "torch" serves; "" otherwise
};

class Forecaster {
 public:
  virtual ~Forecaster() = default;

  virtual const ModelConfig& config() const = 0;
  // "cpu" or "cuda:N".
  virtual const std::string& device_name() const = 0;
  virtual int threads() const = 0;
  // Which forward serves forecasts and, when the fused kernels were asked for and do not
  // serve, why.
  virtual const ServingKernels& kernels() const = 0;
  // Bytes of the model's parameters and buffers (what a repository's memory bound counts);
  // repacked weights and LibTorch's caches are not included.
  virtual int64_t resident_bytes() const = 0;
};

// Whether the device option ("cpu", "cuda", "cuda:N", "auto") resolves to a GPU here.
// Throws ModelError as parse_device (placement.h) does for one it cannot use.
bool runs_on_cuda(const std::string& device);

}  // namespace tsserve::model
