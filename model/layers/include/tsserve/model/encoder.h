#pragma once
// A stack of EncoderLayers, optional distilling convolutions between them, and a final
// norm. Names follow TSLib's Encoder: attn_layers.<i>, conv_layers.<i>, and
// norm.1.* (BatchNorm between two transposes, TSLib since mid-2024) or norm.* (LayerNorm,
// TFB and older TSLib).

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/container/sequential.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <vector>

#include "tsserve/model/architecture_choices.h"
#include "tsserve/model/distilling_conv.h"
#include "tsserve/model/encoder_layer.h"

namespace tsserve::model {

struct EncoderOutput {
  at::Tensor output;                 // [B, L', D]
  std::vector<at::Tensor> weights;   // per layer [B, H, L_i, L_i], when asked for
};

class EncoderImpl : public torch::nn::Module {
 public:
  // conv_layers: empty, or one fewer than layers (Informer distilling).
  EncoderImpl(std::vector<EncoderLayer> layers, std::vector<DistillingConv> conv_layers,
              FinalNorm final_norm, int64_t d_model);

  // Key padding is refused with distilling layers (they change the length).
  EncoderOutput forward(const at::Tensor& x, const AttentionMask& mask = {},
                        bool need_weights = false);

  const std::vector<EncoderLayer>& layers() const { return layers_; }

 private:
  at::Tensor apply_final_norm(const at::Tensor& x);

  std::vector<EncoderLayer> layers_;
  std::vector<DistillingConv> conv_layers_;
  FinalNorm final_norm_;
  torch::nn::BatchNorm1d batch_norm_{nullptr};
  torch::nn::LayerNorm layer_norm_{nullptr};
};
TORCH_MODULE(Encoder);

}  // namespace tsserve::model
