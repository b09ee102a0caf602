#include "tsserve/client/tensor_data.h"

#include <cstring>
#include <string>

namespace tsserve::client {
namespace {

int64_t element_count(const std::vector<int64_t>& shape) {
  int64_t count = 1;
  for (int64_t extent : shape) count *= extent;
  return count;
}

// The wire format is little-endian; so is every machine tsserve is built for.
static_assert(sizeof(float) == 4, "float32 expected");

}  // namespace

TensorData read_tensor(const v1::Tensor& tensor) {
  TensorData data;
  data.shape.assign(tensor.shape().begin(), tensor.shape().end());
  const int64_t count = element_count(data.shape);
  if (!tensor.raw_values().empty()) {
    if (static_cast<int64_t>(tensor.raw_values().size()) != 4 * count) {
      throw std::runtime_error("tensor raw_values has " +
                               std::to_string(tensor.raw_values().size()) +
                               " bytes; its shape needs " + std::to_string(4 * count));
    }
    data.values.resize(static_cast<size_t>(count));
    std::memcpy(data.values.data(), tensor.raw_values().data(), tensor.raw_values().size());
  } else {
    if (tensor.values_size() != count) {
      throw std::runtime_error("tensor has " + std::to_string(tensor.values_size()) +
                               " values; its shape needs " + std::to_string(count));
    }
    data.values.assign(tensor.values().begin(), tensor.values().end());
  }
  return data;
}

void write_tensor(const TensorData& data, bool raw, v1::Tensor* tensor) {
  tensor->Clear();
  for (int64_t extent : data.shape) tensor->add_shape(extent);
  if (raw) {
    tensor->set_raw_values(data.values.data(), data.values.size() * sizeof(float));
  } else {
    tensor->mutable_values()->Add(data.values.begin(), data.values.end());
  }
}

}  // namespace tsserve::client
