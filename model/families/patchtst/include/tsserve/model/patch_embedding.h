#pragma once
// PatchTST's patch embedding: replication-pad the series by `stride` on the right, cut
// windows of patch_len every stride, project each window to D (Linear, no bias), add the
// sinusoidal position embedding (positional_embedding.h). Names: value_embedding.weight,
// position_embedding.pe.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include "tsserve/model/positional_embedding.h"

namespace tsserve::model {

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
