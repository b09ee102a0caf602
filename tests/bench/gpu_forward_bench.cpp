// The bundled model's forward on a CUDA device (not run by CI): rows/s at 7, 56, 448 and
// 4096 series rows (1, 8, 64 and ~585 ETTh1 windows of 7 variables), for both linear-layer
// paths (batch_invariant 1: one GEMM shape per row; 0: one GEMM over all rows).
//
//   build/tests/bench/gpu_forward_bench [checkpoint.pt]
//
// Each figure is the median of 25 samples; a sample is 20 forwards between two device
// synchronisations (after 20 warm-up forwards), so launch overhead is counted, as a server
// would pay it. Inputs are a seeded random walk, copied to the device before timing; the
// forecast stays on the device (the copy back is not timed).

#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "tsserve/model/patchtst_checkpoint.h"

namespace {

using namespace tsserve::model;

double median_ms_per_forward(PatchTST& model, const at::Tensor& series) {
  constexpr int kWarmup = 20, kSamples = 25, kPerSample = 20;
  for (int i = 0; i < kWarmup; ++i) model->forecast_rows(series);
  torch::cuda::synchronize();
  std::vector<double> ms;
  for (int s = 0; s < kSamples; ++s) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kPerSample; ++i) model->forecast_rows(series);
    torch::cuda::synchronize();
    const std::chrono::duration<double, std::milli> dt = std::chrono::steady_clock::now() - t0;
    ms.push_back(dt.count() / kPerSample);
  }
  std::nth_element(ms.begin(), ms.begin() + kSamples / 2, ms.end());
  return ms[kSamples / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const std::string checkpoint = argc > 1 ? argv[1] : TSSERVE_DEFAULT_MODEL;
  if (!torch::cuda::is_available()) {
    std::fprintf(stderr, "gpu_forward_bench: no CUDA device visible to LibTorch\n");
    return 2;
  }
  std::printf("checkpoint %s\n%8s %10s %12s %14s\n", checkpoint.c_str(), "rows", "invariant",
              "ms/forward", "rows/s");
  for (const bool invariant : {true, false}) {
    ModelConfig config = load_model_config(config_path_for(checkpoint));
    config.batch_invariant = invariant;
    PatchTST model = load_patchtst(checkpoint, config);
    model->to(torch::kCUDA);
    at::InferenceMode guard;
    for (const int64_t rows : {7, 56, 448, 4096}) {
      torch::manual_seed(7);
      const at::Tensor series =
          (torch::randn({rows, config.seq_len}).cumsum(1) * 0.2).to(torch::kCUDA);
      const double ms = median_ms_per_forward(model, series);
      std::printf("%8lld %10d %12.3f %14.0f\n", static_cast<long long>(rows), invariant ? 1 : 0,
                  ms, static_cast<double>(rows) * 1e3 / ms);
    }
  }
  return 0;
}
