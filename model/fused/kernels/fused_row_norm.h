#pragma once
// LayerNorm over each row of a row-major [rows][ld] block (one token per row), in place:
// PyTorch's arithmetic (biased variance, eps inside the root), the mean and the variance
// summed lane-wise over whole vectors, the lanes then folded in one fixed order and the
// tail (features % lanes) added last. A row's result depends on that row alone.

#include <cmath>
#include <cstddef>

#include "fused_lane_folds.h"
#include "fused_vector.h"

namespace tsserve::model::TSSERVE_FUSED_NAMESPACE {
namespace {

TSSERVE_STAGE void layer_norm_rows(float* x, int rows, ptrdiff_t ld, int features,
                                   const float* weight, const float* bias) {
  const int full = features / kLanes * kLanes;
  const float inv_n = 1.0f / static_cast<float>(features);
  for (int r = 0; r < rows; ++r) {
    float* row = x + r * ld;
    vf sum{};
    for (int j = 0; j < full; j += kLanes) sum += load(row + j);
    float total = lane_sum(sum);
    for (int j = full; j < features; ++j) total += row[j];
    const float mean = total * inv_n;
    const vf mean_v = splat(mean);
    vf squares{};
    for (int j = 0; j < full; j += kLanes) {
      const vf centred = load(row + j) - mean_v;
      squares += centred * centred;
    }
    float square_total = lane_sum(squares);
    for (int j = full; j < features; ++j) square_total += (row[j] - mean) * (row[j] - mean);
    // Correctly rounded root and division, as PyTorch's.
    const float rstd = 1.0f / std::sqrt(square_total * inv_n + 1e-5f);
    const vf rstd_v = splat(rstd);
    for (int j = 0; j < full; j += kLanes) {
      store(row + j, (load(row + j) - mean_v) * rstd_v * load(weight + j) + load(bias + j));
    }
    for (int j = full; j < features; ++j) row[j] = (row[j] - mean) * rstd * weight[j] + bias[j];
  }
}

}  // namespace
}  // namespace tsserve::model::TSSERVE_FUSED_NAMESPACE
