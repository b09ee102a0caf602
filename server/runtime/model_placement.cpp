#include "server/runtime/model_placement.h"

#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {
namespace {

int checked_threads(int threads) {
  if (threads < 1) throw model::ModelError("threads must be at least 1");
  return threads;
}

}  // namespace

ModelPlacement::ModelPlacement(torch::nn::Module& model, const RunnerOptions& options)
    : device_(parse_device(options.device)), threads_(checked_threads(options.threads)) {
  tsserve::model::set_intra_op_threads(threads_);
  device_name_ = device_.str();
  model.to(device_);
  model.eval();
}

model::EncoderOutput encoder_output_on_cpu(model::EncoderOutput out) {
  out.output = to_cpu(out.output);
  for (auto& layer : out.weights) layer = to_cpu(layer);
  return out;
}

ServingKernels libtorch_kernels(const RunnerOptions& options, const std::string& family) {
  ServingKernels kernels;
  kernels.name = "torch";
  if (options.cpu_kernels == model::CpuKernels::kFused) {
    kernels.fallback_reason = "the fused CPU kernels cover PatchTST and the iTransformer; " +
                              family + " runs on LibTorch";
  }
  return kernels;
}

}  // namespace tsserve::server
