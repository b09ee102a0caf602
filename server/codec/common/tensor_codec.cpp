#include "server/codec/common/tensor_codec.h"

#include <cmath>

namespace tsserve::server {
namespace {

grpc::Status invalid(const std::string& message) {
  return {grpc::StatusCode::INVALID_ARGUMENT, message};
}

std::string format_dims(const int64_t* begin, const int64_t* end) {
  std::string text = "[";
  for (const int64_t* d = begin; d != end; ++d) {
    if (d != begin) text += ", ";
    text += std::to_string(*d);
  }
  return text + "]";
}

std::string shape_text(const v1::Tensor& tensor) { return format_shape(tensor.shape()); }

int64_t product_of(const int64_t* begin, const int64_t* end) {
  int64_t product = 1;
  for (const int64_t* d = begin; d != end; ++d) product *= *d;
  return product;
}

unsigned char* prepare(const int64_t* begin, const int64_t* end, bool raw, v1::Tensor* out) {
  out->Clear();
  out->mutable_shape()->Add(begin, end);
  const int64_t count = product_of(begin, end);
  return raw ? resize_raw(out->mutable_raw_values(), count)
             : resize_values(out->mutable_values(), count);
}

}  // namespace

bool element_count(const google::protobuf::RepeatedField<int64_t>& shape, int64_t* count) {
  int64_t product = 1;
  for (int64_t d : shape) {
    if (d == 0) {
      *count = 0;
      return true;
    }
  }
  for (int64_t d : shape) {
    if (__builtin_mul_overflow(product, d, &product)) return false;
  }
  *count = product;
  return true;
}

std::string format_shape(const google::protobuf::RepeatedField<int64_t>& shape) {
  return format_dims(shape.data(), shape.data() + shape.size());
}

TensorView view_checked_floats(const google::protobuf::RepeatedField<int64_t>& shape,
                               const unsigned char* bytes, int64_t size) {
  TensorView view;
  view.shape_ = &shape;
  view.bytes_ = bytes;
  view.size_ = size;
  return view;
}

unsigned char* resize_raw(std::string* bytes, int64_t count) {
  bytes->resize(static_cast<std::size_t>(count) * 4);
  return reinterpret_cast<unsigned char*>(bytes->data());
}

unsigned char* resize_values(google::protobuf::RepeatedField<float>* values, int64_t count) {
  values->Reserve(values->size() + static_cast<int>(count));
  return reinterpret_cast<unsigned char*>(values->AddNAlreadyReserved(static_cast<int>(count)));
}

grpc::Status view_tensor(const v1::Tensor& tensor, const TensorSpec& spec, TensorView* out) {
  const std::string field = spec.field;
  const bool has_values = tensor.values_size() > 0;
  const bool has_raw = !tensor.raw_values().empty();
  if (has_values && has_raw) {
    return invalid(field + ": both values and raw_values are set; send the data in exactly one");
  }
  if (tensor.shape_size() != spec.rank) {
    return invalid(field + ".shape: expected " + std::to_string(spec.rank) + " dimensions " +
                   spec.dims + ", got " + std::to_string(tensor.shape_size()) +
                   (tensor.shape_size() == 0 ? " (shape is empty; is the field set?)" : ""));
  }
  for (int i = 0; i < tensor.shape_size(); ++i) {
    if (tensor.shape(i) < 0) {
      return invalid(field + ".shape: dimension " + std::to_string(i) + " of " +
                     shape_text(tensor) + " is negative; dimensions must be >= 0");
    }
  }
  int64_t count = 0;
  const bool fits = element_count(tensor.shape(), &count);
  if (has_raw && tensor.raw_values().size() % 4 != 0) {
    return invalid(field + ".raw_values: " + std::to_string(tensor.raw_values().size()) +
                   " bytes, not a multiple of 4 (little-endian float32)");
  }
  const int64_t carried = has_raw ? static_cast<int64_t>(tensor.raw_values().size() / 4)
                                  : static_cast<int64_t>(tensor.values_size());
  if (!fits || carried != count) {
    const std::string elements =
        fits ? std::to_string(count) + " elements" : std::string("too many elements");
    const std::string data = has_raw ? "raw_values has " + std::to_string(carried) + " (" +
                                           std::to_string(tensor.raw_values().size()) + " bytes)"
                             : has_values ? "values has " + std::to_string(carried)
                                          : std::string("neither values nor raw_values is set");
    return invalid(field + ": shape " + shape_text(tensor) + " has " + elements + " but " + data +
                   "; they must match");
  }
  out->shape_ = &tensor.shape();
  out->size_ = count;
  out->bytes_ = has_raw ? reinterpret_cast<const unsigned char*>(tensor.raw_values().data())
                        : reinterpret_cast<const unsigned char*>(tensor.values().data());
  return grpc::Status::OK;
}

// Both loops work in fixed blocks: GCC's -O2 vectoriser (the "very cheap" cost model)
// only takes loops whose trip count needs no epilogue, and the blocks make the checks and
// copies run 4 floats at a time (measured: 448 x 512 floats, ~5x faster than one element
// per iteration).
constexpr int64_t kBlock = 16;

bool copy_finite(const unsigned char* src, int64_t count, float* dst) {
  uint32_t bad = 0;
  int64_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    uint32_t block[kBlock];
    std::memcpy(block, src + 4 * i, sizeof block);
    for (int64_t j = 0; j < kBlock; ++j) bad |= static_cast<uint32_t>(non_finite_bits(block[j]));
    std::memcpy(dst + i, block, sizeof block);
  }
  for (; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + 4 * i, sizeof bits);
    bad |= static_cast<uint32_t>(non_finite_bits(bits));
    std::memcpy(dst + i, &bits, sizeof bits);
  }
  return bad == 0;
}

bool all_finite(const unsigned char* src, int64_t count) {
  uint32_t bad = 0;
  int64_t i = 0;
  for (; i + kBlock <= count; i += kBlock) {
    uint32_t block[kBlock];
    std::memcpy(block, src + 4 * i, sizeof block);
    for (int64_t j = 0; j < kBlock; ++j) bad |= static_cast<uint32_t>(non_finite_bits(block[j]));
  }
  for (; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + 4 * i, sizeof bits);
    bad |= static_cast<uint32_t>(non_finite_bits(bits));
  }
  return bad == 0;
}

int64_t find_non_finite(const unsigned char* src, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    uint32_t bits;
    std::memcpy(&bits, src + 4 * i, sizeof bits);
    if (non_finite_bits(bits)) return i;
  }
  return count;
}

std::string format_index(const TensorView& view, int64_t index) {
  std::vector<int64_t> position(static_cast<std::size_t>(view.rank()));
  for (int i = view.rank() - 1; i >= 0; --i) {
    const int64_t extent = view.dim(i);
    position[static_cast<std::size_t>(i)] = extent == 0 ? 0 : index % extent;
    index = extent == 0 ? 0 : index / extent;
  }
  return format_dims(position.data(), position.data() + position.size());
}

grpc::Status non_finite_error(const TensorSpec& spec, const TensorView& view, int64_t index,
                              const std::string& note) {
  const float value = view.at(index);
  const char* what = std::isnan(value) ? "NaN" : value > 0 ? "infinity" : "-infinity";
  return invalid(std::string(spec.field) + ": value at " + format_index(view, index) + note +
                 " is " + what + "; values must be finite (fill gaps before sending)");
}

grpc::Status resolve_output_encoding(int encoding, bool* raw) {
  switch (encoding) {
    case v1::TENSOR_ENCODING_UNSPECIFIED:
    case v1::TENSOR_ENCODING_VALUES:
      *raw = false;
      return grpc::Status::OK;
    case v1::TENSOR_ENCODING_RAW:
      *raw = true;
      return grpc::Status::OK;
    default:
      return invalid("output_encoding: unknown value " + std::to_string(encoding) +
                     "; expected TENSOR_ENCODING_VALUES (1) or TENSOR_ENCODING_RAW (2)");
  }
}

unsigned char* prepare_tensor(std::initializer_list<int64_t> shape, bool raw, v1::Tensor* out) {
  return prepare(shape.begin(), shape.end(), raw, out);
}

unsigned char* prepare_tensor(const std::vector<int64_t>& shape, bool raw, v1::Tensor* out) {
  return prepare(shape.data(), shape.data() + shape.size(), raw, out);
}

void write_tensor(const float* data, std::initializer_list<int64_t> shape, bool raw,
                  v1::Tensor* out) {
  unsigned char* dst = prepare(shape.begin(), shape.end(), raw, out);
  const int64_t count = product_of(shape.begin(), shape.end());
  if (count > 0) std::memcpy(dst, data, static_cast<std::size_t>(count) * 4);
}

void write_tensor(const float* data, const std::vector<int64_t>& shape, bool raw, v1::Tensor* out) {
  unsigned char* dst = prepare(shape.data(), shape.data() + shape.size(), raw, out);
  const int64_t count = product_of(shape.data(), shape.data() + shape.size());
  if (count > 0) std::memcpy(dst, data, static_cast<std::size_t>(count) * 4);
}

}  // namespace tsserve::server
