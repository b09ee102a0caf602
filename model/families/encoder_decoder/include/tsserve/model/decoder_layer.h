#pragma once
// Post-norm Transformer decoder block (TSLib's DecoderLayer, layers/Transformer_EncDec.py):
//   x = norm1(x + self_attention(x, x, x, causal));
//   x = norm2(x + cross_attention(x, enc, enc));
//   out = norm3(x + conv2(act(conv1(x))))      (kernel-1 Conv1d layers: Linear over D).
// Names give TSLib's keys: self_attention.*, cross_attention.*, conv1.*, conv2.*, norm1..3.*.

#include <torch/nn/module.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include "tsserve/model/architecture_choices.h"
#include "tsserve/model/attention_layer.h"

namespace tsserve::model {

struct DecoderLayerOutput {
  at::Tensor output;         // [B, L, D]
  at::Tensor self_weights;   // [B, H, L, L] when asked for
  at::Tensor cross_weights;  // [B, H, L, S] when asked for
};

class DecoderLayerImpl : public torch::nn::Module {
 public:
  DecoderLayerImpl(AttentionLayer self_attention, AttentionLayer cross_attention, int64_t d_model,
                   int64_t d_ff, Activation activation, bool batch_invariant = true);

  // x [B, L, D], cross (the encoder's output) [B, S, D]. The self-attention is causal (TSLib's
  // TriangularCausalMask / ProbMask), the cross-attention unmasked.
  DecoderLayerOutput forward(const at::Tensor& x, const at::Tensor& cross,
                             bool need_weights = false);

  AttentionLayer self_attention{nullptr}, cross_attention{nullptr};
  torch::nn::Conv1d conv1{nullptr}, conv2{nullptr};
  torch::nn::LayerNorm norm1{nullptr}, norm2{nullptr}, norm3{nullptr};

 private:
  Activation activation_;
  bool batch_invariant_;
};
TORCH_MODULE(DecoderLayer);

}  // namespace tsserve::model
