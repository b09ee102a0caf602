#include "server/runtime/module_bytes.h"

namespace tsserve::server {

int64_t module_bytes(const torch::nn::Module& module) {
  int64_t bytes = 0;
  for (const at::Tensor& tensor : module.parameters(/*recurse=*/true))
    bytes += static_cast<int64_t>(tensor.numel() * tensor.element_size());
  for (const at::Tensor& tensor : module.buffers(/*recurse=*/true))
    bytes += static_cast<int64_t>(tensor.numel() * tensor.element_size());
  return bytes;
}

}  // namespace tsserve::server
