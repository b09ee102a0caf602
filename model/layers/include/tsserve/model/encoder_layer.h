#pragma once
// Post-norm Transformer encoder block (TSLib's EncoderLayer):
//   x = norm1(x + attention(x)); y = conv2(act(conv1(x))); out = norm2(x + y).
// conv1/conv2 are kernel-1 Conv1d layers (weights [out, in, 1]), i.e. Linear over D.

#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "tsserve/model/architecture_choices.h"
#include "tsserve/model/attention_layer.h"

namespace tsserve::model {

struct EncoderLayerOutput {
  at::Tensor output;   // [B, L, D]
  at::Tensor weights;  // [B, H, L, L] when asked for
};

class EncoderLayerImpl : public torch::nn::Module {
 public:
  EncoderLayerImpl(AttentionLayer attention, int64_t d_model, int64_t d_ff,
                   Activation activation, bool batch_invariant = true);

  EncoderLayerOutput forward(const at::Tensor& x, const AttentionMask& mask = {},
                             bool need_weights = false);

  AttentionLayer attention{nullptr};
  torch::nn::Conv1d conv1{nullptr}, conv2{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr};

 private:
  int64_t d_model_;
  int64_t d_ff_;
  Activation activation_;
  bool batch_invariant_;
};
TORCH_MODULE(EncoderLayer);

}  // namespace tsserve::model
