#include "tsserve/model/distilling_conv.h"

#include <ATen/ATen.h>

namespace tsserve::model {

DistillingConvImpl::DistillingConvImpl(int64_t d_model, int64_t padding) {
  downConv = register_module(
      "downConv", torch::nn::Conv1d(torch::nn::Conv1dOptions(d_model, d_model, 3)
                                        .padding(padding)
                                        .padding_mode(torch::kCircular)));
  norm = register_module("norm", torch::nn::BatchNorm1d(d_model));
}

at::Tensor DistillingConvImpl::forward(const at::Tensor& x) {
  at::Tensor y = norm->forward(downConv->forward(x.permute({0, 2, 1})));
  y = at::max_pool1d(at::elu(y), /*kernel_size=*/{3}, /*stride=*/{2}, /*padding=*/{1});
  return y.transpose(1, 2);
}

}  // namespace tsserve::model
