#pragma once
// The device a runner puts its model on, from the --device option, for every family.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>

#include <string>

namespace tsserve::server {

// Parses a device option ("cpu", "cuda", "cuda:N", "auto"); throws model::ModelError
// naming the option and the choices, or saying that this LibTorch build has no CUDA.
at::Device parse_device(const std::string& text);

// `t` on the CPU (itself when it is there): runners hand their results back on the CPU.
at::Tensor to_cpu(const at::Tensor& t);

}  // namespace tsserve::server
