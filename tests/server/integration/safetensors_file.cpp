#include "safetensors_file.h"

#include <ATen/ATen.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace tsserve::server::testing {
namespace {

const char* safetensors_dtype(at::ScalarType type) {
  switch (type) {
    case at::kFloat:
      return "F32";
    case at::kDouble:
      return "F64";
    case at::kLong:
      return "I64";
    default:
      throw std::runtime_error(std::string("write_safetensors: unsupported dtype ") +
                               c10::toString(type));
  }
}

}  // namespace

void write_safetensors(const std::string& path, const model::StateDict& tensors) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  std::vector<at::Tensor> data;
  uint64_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    const at::Tensor dense = tensor.cpu().contiguous();
    const uint64_t bytes = dense.numel() * dense.element_size();
    // Unsigned numbers: the format's sizes and offsets are, and the reader insists.
    const std::vector<uint64_t> shape(dense.sizes().begin(), dense.sizes().end());
    header[name] = {{"dtype", safetensors_dtype(dense.scalar_type())},
                    {"shape", shape},
                    {"data_offsets", {offset, offset + bytes}}};
    offset += bytes;
    data.push_back(dense);
  }
  const std::string text = header.dump();
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  const uint64_t length = text.size();  // little-endian on every machine tsserve builds for
  file.write(reinterpret_cast<const char*>(&length), sizeof length);
  file.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const at::Tensor& tensor : data) {
    file.write(static_cast<const char*>(tensor.data_ptr()),
               static_cast<std::streamsize>(tensor.numel() * tensor.element_size()));
  }
  if (!file.flush()) throw std::runtime_error("write_safetensors: cannot write " + path);
}

}  // namespace tsserve::server::testing
