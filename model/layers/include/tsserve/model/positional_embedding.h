#pragma once
// TSLib's sinusoidal position table, shared by PatchTST's patch embedding, the
// encoder-decoder's DataEmbedding and its FixedEmbedding (temporal_embedding.h): a layer,
// so no family includes another's embedding to reach it.

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/nn/pimpl.h>

#include <cstdint>

#include "tsserve/model/architecture_choices.h"

namespace tsserve::model {

// The sinusoid table [rows, D]: row p is sin(p * w_i) at 2i, cos(p * w_i) at 2i + 1, with
// w_i = exp(-2i * ln(10000) / D), in float32 as PyTorch computes it. TSLib fills both its
// position table and its FixedEmbedding (temporal_embedding.h) with it.
at::Tensor sinusoid_table(int64_t rows, int64_t d_model);

// Holds the [1, max_len, D] sinusoidal table as a persistent buffer named "pe".
class PositionalEmbeddingImpl : public torch::nn::Module {
 public:
  static constexpr int64_t kMaxLength = kMaxPositions;
  explicit PositionalEmbeddingImpl(int64_t d_model);

  at::Tensor pe;
};
TORCH_MODULE(PositionalEmbedding);

}  // namespace tsserve::model
