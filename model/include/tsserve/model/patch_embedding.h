#pragma once
// PatchTST's patch embedding: replication-pad the series by `stride` on the right, cut
// windows of patch_len every stride, project each window to D (Linear, no bias), add the
// sinusoidal position embedding. Names: value_embedding.weight, position_embedding.pe.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

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

class PatchEmbeddingImpl : public torch::nn::Module {
 public:
  PatchEmbeddingImpl(int64_t d_model, int64_t patch_len, int64_t stride,
                     bool batch_invariant = true);

  // series [R, T] (already normalised) -> tokens [R, P, D].
  at::Tensor forward(const at::Tensor& series);

  torch::nn::Linear value_embedding{nullptr};
  PositionalEmbedding position_embedding{nullptr};

 private:
  int64_t patch_len_;
  int64_t stride_;
  bool batch_invariant_;
};
TORCH_MODULE(PatchEmbedding);

}  // namespace tsserve::model
