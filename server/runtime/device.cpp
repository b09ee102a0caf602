#include "server/runtime/device.h"

#include <torch/cuda.h>

#include "server/runtime/runner_options.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {

at::Device parse_device(const std::string& text) {
  if (text == "cpu") return at::Device(at::kCPU);
  const bool cuda_available = torch::cuda::is_available();
  if (text == "auto") return cuda_available ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
  if (text == "cuda" || text.rfind("cuda:", 0) == 0) {
    if (!cuda_available) {
      throw model::ModelError("device \"" + text +
                              "\": this LibTorch build has no CUDA support or sees no GPU "
                              "(use --device cpu, or auto to pick cuda only when present)");
    }
    int index = 0;
    if (text.size() > 5) {
      const std::string digits = text.substr(5);
      if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
        throw model::ModelError("device \"" + text + "\": expected cuda:N with N a GPU index");
      }
      index = std::stoi(digits);
    }
    const auto count = static_cast<int>(torch::cuda::device_count());
    if (index >= count) {
      throw model::ModelError("device \"" + text + "\": only " + std::to_string(count) +
                              " GPU(s) visible");
    }
    return at::Device(at::kCUDA, static_cast<c10::DeviceIndex>(index));
  }
  throw model::ModelError("device \"" + text + "\": expected cpu, cuda, cuda:N or auto");
}

at::Tensor to_cpu(const at::Tensor& t) { return t.device().is_cpu() ? t : t.cpu(); }

bool runs_on_cuda(const std::string& device) { return parse_device(device).is_cuda(); }

}  // namespace tsserve::server
