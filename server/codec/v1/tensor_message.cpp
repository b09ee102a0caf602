#include "server/codec/v1/tensor_message.h"

#include <cstring>
#include <string>

namespace tsserve::server {
namespace {

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

Status view_tensor(const v1::Tensor& tensor, const TensorSpec& spec, TensorView* out) {
  const std::string field = spec.field;
  const bool has_values = tensor.values_size() > 0;
  const bool has_raw = !tensor.raw_values().empty();
  if (has_values && has_raw) {
    return invalid_argument(field +
                            ": both values and raw_values are set; send the data in exactly one");
  }
  if (tensor.shape_size() != spec.rank) {
    return invalid_argument(
        field + ".shape: expected " + std::to_string(spec.rank) + " dimensions " + spec.dims +
        ", got " + std::to_string(tensor.shape_size()) +
        (tensor.shape_size() == 0 ? " (shape is empty; is the field set?)" : ""));
  }
  for (int i = 0; i < tensor.shape_size(); ++i) {
    if (tensor.shape(i) < 0) {
      return invalid_argument(field + ".shape: dimension " + std::to_string(i) + " of " +
                              shape_text(tensor) + " is negative; dimensions must be >= 0");
    }
  }
  int64_t count = 0;
  const bool fits = element_count(tensor.shape(), &count);
  if (has_raw && tensor.raw_values().size() % 4 != 0) {
    return invalid_argument(field + ".raw_values: " + std::to_string(tensor.raw_values().size()) +
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
    return invalid_argument(field + ": shape " + shape_text(tensor) + " has " + elements + " but " +
                            data + "; they must match");
  }
  *out = view_checked_floats(
      tensor.shape(),
      has_raw ? reinterpret_cast<const unsigned char*>(tensor.raw_values().data())
              : reinterpret_cast<const unsigned char*>(tensor.values().data()),
      count);
  return Status();
}

Status resolve_output_encoding(int encoding, bool* raw) {
  switch (encoding) {
    case v1::TENSOR_ENCODING_UNSPECIFIED:
    case v1::TENSOR_ENCODING_VALUES:
      *raw = false;
      return Status();
    case v1::TENSOR_ENCODING_RAW:
      *raw = true;
      return Status();
    default:
      return invalid_argument("output_encoding: unknown value " + std::to_string(encoding) +
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
