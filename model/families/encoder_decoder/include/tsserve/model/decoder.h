#pragma once
// TSLib's Decoder: DecoderLayers, a final LayerNorm and the projection Linear(D -> c_out).
// Names give TSLib's keys: layers.<i>.*, norm.*, projection.*.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <vector>

#include "tsserve/model/decoder_layer.h"

namespace tsserve::model {

struct DecoderOutput {
  at::Tensor output;                      // [B, L, c_out]
  std::vector<at::Tensor> self_weights;   // per layer [B, H, L, L], when asked for
  std::vector<at::Tensor> cross_weights;  // per layer [B, H, L, S], when asked for
};

class DecoderImpl : public torch::nn::Module {
 public:
  DecoderImpl(std::vector<DecoderLayer> layers, int64_t d_model, int64_t c_out,
              bool batch_invariant = true);

  // x [B, L, D] (the decoder's embedded input), cross [B, S, D] (the encoder's output).
  DecoderOutput forward(const at::Tensor& x, const at::Tensor& cross, bool need_weights = false);

  torch::nn::LayerNorm norm{nullptr};
  torch::nn::Linear projection{nullptr};

 private:
  std::vector<DecoderLayer> layers_;
  bool batch_invariant_;
};
TORCH_MODULE(Decoder);

}  // namespace tsserve::model
