#pragma once
// Shared by the request codec's tests: tensors, a small model, status assertions.

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "server/request/model_shape.h"
#include "server/status/status.h"
#include "tsserve/v1/tensor.pb.h"

namespace tsserve::server::testing {

inline constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
inline constexpr float kInf = std::numeric_limits<float>::infinity();

inline v1::Tensor values_tensor(const std::vector<int64_t>& shape, const std::vector<float>& data) {
  v1::Tensor tensor;
  tensor.mutable_shape()->Add(shape.begin(), shape.end());
  tensor.mutable_values()->Add(data.begin(), data.end());
  return tensor;
}

// Little-endian float32 bytes, built byte by byte (not by memcpy) so the test does not
// share the codec's assumption about the host.
inline std::string little_endian_bytes(const std::vector<float>& data) {
  std::string bytes;
  bytes.reserve(data.size() * 4);
  for (float value : data) {
    uint32_t bits;
    std::memcpy(&bits, &value, 4);
    for (int shift = 0; shift < 32; shift += 8)
      bytes.push_back(static_cast<char>((bits >> shift) & 0xff));
  }
  return bytes;
}

inline std::vector<float> floats_from_little_endian(const std::string& bytes) {
  std::vector<float> data(bytes.size() / 4);
  for (std::size_t i = 0; i < data.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b) {
      bits |= uint32_t{static_cast<unsigned char>(bytes[4 * i + b])} << (8 * b);
    }
    std::memcpy(&data[i], &bits, 4);
  }
  return data;
}

inline v1::Tensor raw_tensor(const std::vector<int64_t>& shape, const std::vector<float>& data) {
  v1::Tensor tensor;
  tensor.mutable_shape()->Add(shape.begin(), shape.end());
  tensor.set_raw_values(little_endian_bytes(data));
  return tensor;
}

// The elements of an output tensor, whichever encoding it uses; fails when both are set.
inline std::vector<float> tensor_floats(const v1::Tensor& tensor) {
  EXPECT_FALSE(tensor.values_size() > 0 && !tensor.raw_values().empty());
  if (!tensor.raw_values().empty()) return floats_from_little_endian(tensor.raw_values());
  return {tensor.values().begin(), tensor.values().end()};
}

inline std::vector<int64_t> tensor_shape(const v1::Tensor& tensor) {
  return {tensor.shape().begin(), tensor.shape().end()};
}

// Distinct, exactly representable values: element i is base + i * 0.25.
inline std::vector<float> ramp(int64_t count, float base = 1.0f) {
  std::vector<float> data(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = base + 0.25f * static_cast<float>(i);
  return data;
}

// [rows, cols] -> [cols, rows].
inline std::vector<float> transpose(const std::vector<float>& data, int64_t rows, int64_t cols) {
  std::vector<float> out(data.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = data[r * cols + c];
  }
  return out;
}

// T = 8, F = 4, D = 6, H = 2, 3 layers, P = 2; a scaler over columns a, b, c.
inline ModelShape small_model() {
  ModelShape model;
  model.name = "small";
  model.version = "7";
  model.seq_len = 8;
  model.pred_len = 4;
  model.d_model = 6;
  model.n_heads = 2;
  model.e_layers = 3;
  model.patch_count = 2;
  model.map_sides = {2, 2, 2};  // PatchTST: P for every layer
  model.scaler_columns = {"a", "b", "c"};
  model.scaler_mean = {1.5, -2.0, 10.125};
  model.scaler_std = {2.0, 0.5, 3.0};
  return model;
}

inline ModelShape small_model_without_scaler() {
  ModelShape model = small_model();
  model.scaler_columns.clear();
  model.scaler_mean.clear();
  model.scaler_std.clear();
  return model;
}

// Passes when `status` has `code` and its message contains every one of `parts`.
inline ::testing::AssertionResult has_status(const Status& status, StatusCode code,
                                             const std::vector<std::string>& parts) {
  if (status.code() != code) {
    return ::testing::AssertionFailure() << "code " << status.code() << ", expected " << code
                                         << "; message: \"" << status.message() << "\"";
  }
  for (const std::string& part : parts) {
    if (status.message().find(part) == std::string::npos) {
      return ::testing::AssertionFailure()
             << "message \"" << status.message() << "\" lacks \"" << part << "\"";
    }
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult invalid_argument(const Status& status,
                                                   const std::vector<std::string>& parts) {
  return has_status(status, StatusCode::kInvalidArgument, parts);
}

}  // namespace tsserve::server::testing
