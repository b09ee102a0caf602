#pragma once
// TSLib's FlattenHead (PatchTST's and TimeXer's): each variable's encoder output [D, L]
// flattened D-major and mapped to the forecast by one Linear (head.linear.*). The families
// flatten and apply it themselves (row_linear.h), so this holds the Linear alone.

#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

namespace tsserve::model {

class FlattenHeadImpl : public torch::nn::Module {
 public:
  FlattenHeadImpl(int64_t inputs, int64_t pred_len);
  torch::nn::Linear linear{nullptr};
};
TORCH_MODULE(FlattenHead);

}  // namespace tsserve::model
