#include "tsserve/model/decoder.h"

#include <ATen/ATen.h>
#include <torch/nn/modules/container/modulelist.h>

#include "tsserve/model/row_linear.h"

namespace tsserve::model {

DecoderImpl::DecoderImpl(std::vector<DecoderLayer> layers, int64_t d_model, int64_t c_out,
                         bool batch_invariant)
    : layers_(std::move(layers)), batch_invariant_(batch_invariant) {
  torch::nn::ModuleList list;
  for (const auto& layer : layers_) list->push_back(layer);
  register_module("layers", list);
  norm = register_module("norm",
                         torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model}).eps(1e-5)));
  projection = register_module("projection", torch::nn::Linear(d_model, c_out));
}

DecoderOutput DecoderImpl::forward(const at::Tensor& x, const at::Tensor& cross,
                                   bool need_weights) {
  DecoderOutput out;
  at::Tensor hidden = x;
  for (auto& layer : layers_) {
    DecoderLayerOutput layer_out = layer->forward(hidden, cross, need_weights);
    hidden = std::move(layer_out.output);
    if (need_weights) {
      out.self_weights.push_back(std::move(layer_out.self_weights));
      out.cross_weights.push_back(std::move(layer_out.cross_weights));
    }
  }
  out.output =
      row_linear(norm->forward(hidden), projection->weight, projection->bias, batch_invariant_);
  return out;
}

}  // namespace tsserve::model
