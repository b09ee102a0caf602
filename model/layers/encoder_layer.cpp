#include "tsserve/model/encoder_layer.h"

#include <ATen/ATen.h>

#include "tsserve/model/row_linear.h"

namespace tsserve::model {

EncoderLayerImpl::EncoderLayerImpl(AttentionLayer attention_layer, int64_t d_model,
                                   int64_t d_ff, Activation activation, bool batch_invariant)
    : attention(std::move(attention_layer)),
      d_model_(d_model),
      d_ff_(d_ff),
      activation_(activation),
      batch_invariant_(batch_invariant) {
  register_module("attention", attention);
  conv1 = register_module("conv1", torch::nn::Conv1d(d_model_, d_ff_, 1));
  conv2 = register_module("conv2", torch::nn::Conv1d(d_ff_, d_model_, 1));
  auto norm_options = torch::nn::LayerNormOptions({d_model_}).eps(1e-5);
  norm1 = register_module("norm1", torch::nn::LayerNorm(norm_options));
  norm2 = register_module("norm2", torch::nn::LayerNorm(norm_options));
}

EncoderLayerOutput EncoderLayerImpl::forward(const at::Tensor& x, const AttentionMask& mask,
                                             bool need_weights) {
  AttentionOutput attended = attention->forward(x, x, x, mask, need_weights);
  const at::Tensor normed = norm1->forward(x + attended.context);
  at::Tensor hidden = row_linear(normed, conv1->weight, conv1->bias, batch_invariant_);
  hidden = activation_ == Activation::kRelu ? at::relu(hidden) : at::gelu(hidden);
  const at::Tensor y = row_linear(hidden, conv2->weight, conv2->bias, batch_invariant_);
  return {norm2->forward(normed + y), std::move(attended.weights)};
}

}  // namespace tsserve::model
