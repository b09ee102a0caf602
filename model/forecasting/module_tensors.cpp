#include "tsserve/model/module_tensors.h"

#include <ATen/ATen.h>

#include <utility>

#include "tsserve/model/model_error.h"

namespace tsserve::model {

ModuleTensors::ModuleTensors(const torch::nn::Module& module, std::string owner)
    : params_(module.named_parameters()),
      buffers_(module.named_buffers()),
      owner_(std::move(owner)) {}

at::Tensor ModuleTensors::get(const std::string& name, int64_t numel) const {
  const at::Tensor* found = params_.find(name);
  if (!found) found = buffers_.find(name);
  if (!found) throw ModelError(owner_ + ": the model has no tensor " + name);
  at::Tensor t = found->detach().to(at::kCPU, at::kFloat).contiguous();
  if (t.numel() != numel) {
    throw ModelError(owner_ + ": " + name + " has " + std::to_string(t.numel()) +
                     " elements, expected " + std::to_string(numel));
  }
  return t;
}

FusedPackedLinear ModuleTensors::linear(const std::string& prefix, int64_t out, int64_t in) const {
  const at::Tensor weight = get(prefix + ".weight", out * in);
  const at::Tensor bias = get(prefix + ".bias", out);
  return pack_linear(weight.data_ptr<float>(), bias.data_ptr<float>(), out, in);
}

FusedFloats ModuleTensors::floats(const std::string& name, int64_t numel) const {
  const at::Tensor t = get(name, numel);
  return FusedFloats(t.data_ptr<float>(), t.data_ptr<float>() + numel);
}

}  // namespace tsserve::model
