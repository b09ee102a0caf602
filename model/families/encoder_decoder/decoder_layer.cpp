#include "tsserve/model/decoder_layer.h"

#include <ATen/ATen.h>

#include "tsserve/model/row_linear.h"

namespace tsserve::model {

DecoderLayerImpl::DecoderLayerImpl(AttentionLayer self_attention_layer,
                                   AttentionLayer cross_attention_layer, int64_t d_model,
                                   int64_t d_ff, Activation activation, bool batch_invariant)
    : self_attention(std::move(self_attention_layer)),
      cross_attention(std::move(cross_attention_layer)),
      activation_(activation),
      batch_invariant_(batch_invariant) {
  register_module("self_attention", self_attention);
  register_module("cross_attention", cross_attention);
  conv1 = register_module("conv1", torch::nn::Conv1d(d_model, d_ff, 1));
  conv2 = register_module("conv2", torch::nn::Conv1d(d_ff, d_model, 1));
  auto norm_options = torch::nn::LayerNormOptions({d_model}).eps(1e-5);
  norm1 = register_module("norm1", torch::nn::LayerNorm(norm_options));
  norm2 = register_module("norm2", torch::nn::LayerNorm(norm_options));
  norm3 = register_module("norm3", torch::nn::LayerNorm(norm_options));
}

DecoderLayerOutput DecoderLayerImpl::forward(const at::Tensor& x, const at::Tensor& cross,
                                             bool need_weights) {
  AttentionMask causal;
  causal.causal = true;
  AttentionOutput own = self_attention->forward(x, x, x, causal, need_weights);
  const at::Tensor after_self = norm1->forward(x + own.context);
  AttentionOutput crossed =
      cross_attention->forward(after_self, cross, cross, AttentionMask{}, need_weights);
  const at::Tensor after_cross = norm2->forward(after_self + crossed.context);
  at::Tensor hidden = row_linear(after_cross, conv1->weight, conv1->bias, batch_invariant_);
  hidden = activation_ == Activation::kRelu ? at::relu(hidden) : at::gelu(hidden);
  const at::Tensor y = row_linear(hidden, conv2->weight, conv2->bias, batch_invariant_);
  return {norm3->forward(after_cross + y), std::move(own.weights), std::move(crossed.weights)};
}

}  // namespace tsserve::model
