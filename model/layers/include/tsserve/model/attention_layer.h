#pragma once
// Multi-head wrapper: Q/K/V projections, an InnerAttention, the output projection.
// Parameter names equal TSLib's AttentionLayer state_dict keys
// ({query,key,value,out}_projection.{weight,bias}).

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <memory>

#include "tsserve/model/inner_attention.h"

namespace tsserve::model {

class AttentionLayerImpl : public torch::nn::Module {
 public:
  AttentionLayerImpl(std::shared_ptr<const InnerAttention> inner, int64_t d_model,
                     int64_t n_heads, bool batch_invariant = true);

  // queries [B, L, D], keys and values [B, S, D] -> output [B, L, D]; weights
  // [B, H, L, S] when need_weights.
  AttentionOutput forward(const at::Tensor& queries, const at::Tensor& keys,
                          const at::Tensor& values, const AttentionMask& mask = {},
                          bool need_weights = false);

  int64_t n_heads() const { return n_heads_; }

  torch::nn::Linear query_projection{nullptr}, key_projection{nullptr},
      value_projection{nullptr}, out_projection{nullptr};

 private:
  std::shared_ptr<const InnerAttention> inner_;
  int64_t d_model_;
  int64_t n_heads_;
  bool batch_invariant_;
};
TORCH_MODULE(AttentionLayer);

}  // namespace tsserve::model
