#pragma once
// Where a forecaster runs its model, whatever the family: the --device option resolved,
// the intra-op threads set (process-wide: the last forecaster made wins), the model moved
// there in eval mode; and the moves of results back to the CPU.

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <torch/nn/module.h>

#include <cstdint>
#include <string>

#include "tsserve/model/encoder.h"
#include "tsserve/model/forecaster.h"

namespace tsserve::model {

struct Placement {
  at::Device device{at::kCPU};
  std::string device_name;  // "cpu" or "cuda:N"
  int threads = 1;
};

// Sets the threads, moves `model` to options.device in eval mode. Throws ModelError for
// threads < 1 or a device this LibTorch cannot use.
Placement place(torch::nn::Module& model, const ForecasterOptions& options);

// Parses a device option ("cpu", "cuda", "cuda:N", "auto"); throws ModelError naming the
// option and the choices, or saying that this LibTorch build has no CUDA.
at::Device parse_device(const std::string& text);

// `t` on the CPU (itself when it is there): forecasters hand their results back there.
at::Tensor to_cpu(const at::Tensor& t);

// An encoder's output and weights moved to the CPU.
EncoderOutput encoder_output_on_cpu(EncoderOutput out);

// Bytes of the module's parameters and buffers, its submodules' included.
int64_t module_bytes(const torch::nn::Module& module);

// What serves a family the fused CPU kernels do not cover: LibTorch, and why when the
// fused ones were asked for.
ServingKernels libtorch_kernels(const ForecasterOptions& options, const std::string& family);

}  // namespace tsserve::model
