#pragma once
// TSLib's DataEmbedding_inverted (layers/Embed.py): each variable's whole window becomes
// one token (a Linear seq_len -> d_model), and so does each time-mark series when marks are
// given, embedded by the same Linear after the variables. The iTransformer's tokens, and
// TimeXer's covariate tokens. Names give TSLib's keys: value_embedding.{weight,bias}.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace tsserve::model {

class DataEmbeddingInvertedImpl : public torch::nn::Module {
 public:
  DataEmbeddingInvertedImpl(int64_t seq_len, int64_t d_model, bool batch_invariant = true);

  // series [B, N, T], calendar [B, C, T] or undefined -> tokens [B, N + C, d_model].
  at::Tensor forward(const at::Tensor& series, const at::Tensor& calendar);

  torch::nn::Linear value_embedding{nullptr};

 private:
  bool batch_invariant_;
};
TORCH_MODULE(DataEmbeddingInverted);

}  // namespace tsserve::model
