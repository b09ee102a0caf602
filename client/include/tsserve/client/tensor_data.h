#pragma once
// tsserve.v1.Tensor <-> plain shape + float32 values, in either wire encoding.

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "tsserve/v1/tensor.pb.h"

namespace tsserve::client {

struct TensorData {
  std::vector<int64_t> shape;
  std::vector<float> values;  // row-major

  int64_t dim(size_t axis) const { return shape.at(axis); }
};

// Reads `values` or `raw_values` (little-endian float32), whichever is set; throws
// std::runtime_error when the element count does not match the shape.
TensorData read_tensor(const v1::Tensor& tensor);

// Fills `tensor` with `data` as packed floats (raw = false) or raw bytes (raw = true).
void write_tensor(const TensorData& data, bool raw, v1::Tensor* tensor);

}  // namespace tsserve::client
