#pragma once
// Informer's distilling layer between attention blocks: circular Conv1d(D, D, 3) ->
// BatchNorm1d -> ELU -> MaxPool1d(3, stride 2, padding 1), roughly halving the length.
// Names follow TSLib's ConvLayer (downConv, norm). Not part of PatchTST.

#include <torch/nn/module.h>
#include <torch/nn/modules/batchnorm.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/pimpl.h>

namespace tsserve::model {

class DistillingConvImpl : public torch::nn::Module {
 public:
  // padding: 2 as in TSLib (length 96 -> 49), 1 as in Informer's original (96 -> 48).
  DistillingConvImpl(int64_t d_model, int64_t padding);

  // [B, L, D] -> [B, L', D].
  at::Tensor forward(const at::Tensor& x);

  torch::nn::Conv1d downConv{nullptr};
  torch::nn::BatchNorm1d norm{nullptr};
};
TORCH_MODULE(DistillingConv);

}  // namespace tsserve::model
