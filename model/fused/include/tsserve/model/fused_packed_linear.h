#pragma once
// A Linear layer (y = x W^T + b) packed once for the fused kernels' panel GEMM
// (model/fused/kernels/fused_panel_gemm.h): the output features in panels of kFusedPad columns,
// each panel [in][kFusedPad] contiguous, so the register tile's weight vectors for one
// input index are one cache line and a tile walks its panel front to back.
// Plain C++: the LibTorch side hands in PyTorch's [out][in] floats.

#include <cstdint>

#include "tsserve/model/fused_aligned.h"
#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

struct FusedPackedLinear {
  int64_t in = 0;
  int64_t out = 0;
  int64_t padded_out = 0;  // out rounded up to kFusedPad
  FusedFloats panels;      // [padded_out / kFusedPad][in][kFusedPad], zero padded
  FusedFloats bias;        // [padded_out], zero padded

  int64_t panel_count() const { return padded_out / kFusedPad; }
};

// weight: [out][in] row-major (a Linear's weight, or a kernel-1 Conv1d's [out][in][1]);
// bias: [out], or null for none (zeros).
FusedPackedLinear pack_linear(const float* weight, const float* bias, int64_t out, int64_t in);

}  // namespace tsserve::model
