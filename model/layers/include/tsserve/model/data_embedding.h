#pragma once
// TSLib's DataEmbedding (layers/Embed.py), the input of Informer's and the Transformer's
// encoder and decoder: TokenEmbedding(x) + temporal embedding(marks) + position embedding,
// summed in that order (dropout is the identity in eval). Names give TSLib's keys:
// value_embedding.tokenConv.weight [D, c_in, 3], position_embedding.pe [1, 5000, D],
// temporal_embedding.* (temporal_embedding.h).

#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

#include <string>

#include "tsserve/model/positional_embedding.h"
#include "tsserve/model/temporal_embedding.h"

namespace tsserve::model {

// Conv1d(c_in -> D, kernel 3, circular padding 1, no bias) over time: each step's token
// reads its neighbours, the first and last steps each other's (the circular wrap).
class TokenEmbeddingImpl : public torch::nn::Module {
 public:
  TokenEmbeddingImpl(int64_t c_in, int64_t d_model);

  // x [B, L, c_in] -> [B, L, D].
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Conv1d tokenConv{nullptr};
};
TORCH_MODULE(TokenEmbedding);

class DataEmbeddingImpl : public torch::nn::Module {
 public:
  // embed: "timeF" (mark_columns time features), "fixed" or "learned" (tables by freq).
  DataEmbeddingImpl(int64_t c_in, int64_t d_model, const std::string& embed,
                    const std::string& freq, int64_t mark_columns, bool batch_invariant = true);

  // x [B, L, c_in], marks [B, L, C] -> [B, L, D]. L must be at most the position table's
  // 5000 steps (the config's validation sees to it).
  at::Tensor forward(const at::Tensor& x, const at::Tensor& marks);

  TokenEmbedding value_embedding{nullptr};
  PositionalEmbedding position_embedding{nullptr};
  // One of the two, by embed.
  TimeFeatureEmbedding time_feature_embedding{nullptr};
  TemporalEmbedding table_embedding{nullptr};
};
TORCH_MODULE(DataEmbedding);

}  // namespace tsserve::model
