#pragma once
// A loaded module's parameters and buffers by state_dict name, as contiguous float32 CPU
// tensors checked against the element count the config gives, and packed for the fused
// kernels (fused_packed_linear.h): what a family reads when it packs its weights.

#include <ATen/core/Tensor.h>
#include <torch/nn/module.h>
#include <torch/ordered_dict.h>

#include <cstdint>
#include <string>

#include "tsserve/model/fused_aligned.h"
#include "tsserve/model/fused_packed_linear.h"

namespace tsserve::model {

class ModuleTensors {
 public:
  // `owner` names the reader in messages ("fused iTransformer").
  ModuleTensors(const torch::nn::Module& module, std::string owner);

  // The named parameter or buffer, a float32 CPU copy holding exactly `numel` elements.
  // Throws ModelError naming it when it is absent or of another size.
  at::Tensor get(const std::string& name, int64_t numel) const;

  // prefix.weight [out, in] (or a kernel-1 Conv1d's [out, in, 1]) and prefix.bias [out],
  // packed as the panel GEMM's right-hand operand.
  FusedPackedLinear linear(const std::string& prefix, int64_t out, int64_t in) const;

  // The named tensor's floats (a norm's weight, an embedding table).
  FusedFloats floats(const std::string& name, int64_t numel) const;

 private:
  torch::OrderedDict<std::string, at::Tensor> params_;
  torch::OrderedDict<std::string, at::Tensor> buffers_;
  std::string owner_;
};

}  // namespace tsserve::model
