#include "tsserve/model/encoder.h"

#include <ATen/ATen.h>
#include <torch/nn/modules/linear.h>

#include "tsserve/model/model_error.h"

namespace tsserve::model {

EncoderImpl::EncoderImpl(std::vector<EncoderLayer> layers,
                         std::vector<DistillingConv> conv_layers, FinalNorm final_norm,
                         int64_t d_model)
    : layers_(std::move(layers)), conv_layers_(std::move(conv_layers)), final_norm_(final_norm) {
  if (!conv_layers_.empty() && conv_layers_.size() + 1 != layers_.size()) {
    throw ModelError("an encoder with distilling needs one conv layer fewer than attention "
                     "layers");
  }
  torch::nn::ModuleList attn_layers;
  for (const auto& layer : layers_) attn_layers->push_back(layer);
  register_module("attn_layers", attn_layers);
  if (!conv_layers_.empty()) {
    torch::nn::ModuleList convs;
    for (const auto& conv : conv_layers_) convs->push_back(conv);
    register_module("conv_layers", convs);
  }
  if (final_norm_ == FinalNorm::kBatch) {
    // TSLib wraps the BatchNorm as Sequential(Transpose, BatchNorm1d, Transpose); the
    // parameter-free identities keep its key names (norm.1.*).
    batch_norm_ = torch::nn::BatchNorm1d(d_model);
    register_module("norm", torch::nn::Sequential(torch::nn::Identity(), batch_norm_,
                                                  torch::nn::Identity()));
  } else if (final_norm_ == FinalNorm::kLayer) {
    layer_norm_ = register_module(
        "norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model}).eps(1e-5)));
  }
}

at::Tensor EncoderImpl::apply_final_norm(const at::Tensor& x) {
  switch (final_norm_) {
    case FinalNorm::kBatch:
      return batch_norm_->forward(x.transpose(1, 2)).transpose(1, 2);
    case FinalNorm::kLayer:
      return layer_norm_->forward(x);
    case FinalNorm::kNone:
      break;
  }
  return x;
}

EncoderOutput EncoderImpl::forward(const at::Tensor& x, const AttentionMask& mask,
                                   bool need_weights) {
  if (!conv_layers_.empty() && mask.has_key_padding()) {
    throw ModelError("key padding masks are not supported with distilling layers");
  }
  EncoderOutput out;
  at::Tensor hidden = x;
  for (size_t i = 0; i < layers_.size(); ++i) {
    EncoderLayerOutput layer_out = layers_[i]->forward(hidden, mask, need_weights);
    hidden = std::move(layer_out.output);
    if (need_weights) out.weights.push_back(std::move(layer_out.weights));
    if (i < conv_layers_.size()) hidden = conv_layers_[i]->forward(hidden);
  }
  out.output = apply_final_norm(hidden);
  return out;
}

}  // namespace tsserve::model
