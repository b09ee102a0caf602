#pragma once
// Where a family's runner runs its model: what every runner does first, whatever the
// family. Sets the intra-op threads (process-wide: the last runner made wins), resolves the
// --device option and moves the model there in eval mode.

#include <torch/nn/module.h>

#include <string>

#include "server/runtime/device.h"
#include "server/runtime/runner_options.h"
#include "tsserve/model/encoder.h"

namespace tsserve::server {

class ModelPlacement {
 public:
  // Throws model::ModelError for threads < 1 or a device this LibTorch cannot use.
  ModelPlacement(torch::nn::Module& model, const RunnerOptions& options);

  at::Device device() const { return device_; }
  // "cpu" or "cuda:N".
  const std::string& device_name() const { return device_name_; }
  int threads() const { return threads_; }

 private:
  at::Device device_;
  std::string device_name_;
  int threads_;
};

// An encoder's output and weights moved to the CPU, where the batch processors read them.
model::EncoderOutput encoder_output_on_cpu(model::EncoderOutput out);

// What serves a family the fused CPU kernels do not cover: LibTorch, and why when the
// fused ones were asked for.
ServingKernels libtorch_kernels(const RunnerOptions& options, const std::string& family);

}  // namespace tsserve::server
