#include "tsserve/model/placement.h"

#include <torch/cuda.h>

#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/model_error.h"

namespace tsserve::model {
namespace {

int checked_threads(int threads) {
  if (threads < 1) throw ModelError("threads must be at least 1");
  return threads;
}

}  // namespace

Placement place(torch::nn::Module& model, const ForecasterOptions& options) {
  Placement placement;
  placement.device = parse_device(options.device);
  placement.threads = checked_threads(options.threads);
  set_intra_op_threads(placement.threads);
  placement.device_name = placement.device.str();
  model.to(placement.device);
  model.eval();
  return placement;
}

at::Device parse_device(const std::string& text) {
  if (text == "cpu") return at::Device(at::kCPU);
  const bool cuda_available = torch::cuda::is_available();
  if (text == "auto") return cuda_available ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  if (text == "cuda" || text.rfind("cuda:", 0) == 0) {
    if (!cuda_available) {
      throw ModelError("device \"" + text +
                       "\": this LibTorch build has no CUDA support or sees no GPU "
                       "(use --device cpu, or auto to pick cuda only when present)");
    }
    int index = 0;
    if (text.size() > 5) {
      const std::string digits = text.substr(5);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
        throw ModelError("device \"" + text + "\": expected cuda:N with N a GPU index");
      }
      index = std::stoi(digits);
    }
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (index >= count) {
      throw ModelError("device \"" + text + "\": only " + std::to_string(count) +
                       " GPU(s) visible");
    }
    return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw ModelError("device \"" + text + "\": expected cpu, cuda, cuda:N or auto");
}

bool runs_on_cuda(const std::string& device) { return parse_device(device).is_cuda(); }

at::Tensor to_cpu(const at::Tensor& t) { return t.device().is_cpu() ? t : t.cpu(); }

EncoderOutput encoder_output_on_cpu(EncoderOutput out) {
  out.output = to_cpu(out.output);
  for (auto& layer : out.weights) layer = to_cpu(layer);
  return out;
}

int64_t module_bytes(const torch::nn::Module& module) {
  int64_t bytes = 0;
  for (const at::Tensor& tensor : module.parameters(/*recurse=*/true))
    bytes += static_cast<int64_t>(tensor.numel() * tensor.element_size());
  for (const at::Tensor& tensor : module.buffers(/*recurse=*/true))
    bytes += static_cast<int64_t>(tensor.numel() * tensor.element_size());
  return bytes;
}

ServingKernels libtorch_kernels(const ForecasterOptions& options, const std::string& family) {
  ServingKernels kernels;
  kernels.name = "torch";
  if (options.cpu_kernels == CpuKernels::kFused) {
    kernels.fallback_reason =
        "the fused CPU kernels do not cover " + family + " yet: it runs on LibTorch";
  }
  return kernels;
}

}  // namespace tsserve::model
