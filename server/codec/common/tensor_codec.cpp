#include "server/codec/common/tensor_codec.h"

#include <cmath>

namespace tsserve::server {
namespace {

std::string format_dims(const int64_t* begin, const int64_t* end) {
  std::string text = "[";
  for (const int64_t* d = begin; d != end; ++d) {
    if (d != begin) text += ", ";
    text += std::to_string(*d);
  }
  return text + "]";
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
  return view_checked_floats(shape.data(), shape.size(), bytes, size);
}

TensorView view_checked_floats(const int64_t* shape, int rank, const unsigned char* bytes,
                               int64_t size) {
  TensorView view;
  view.shape_ = shape;
  view.rank_ = rank;
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

// Both loops work in fixed blocks: GCC's -O2 vectoriser (the "very cheap" cost model)
// only takes loops whose trip count needs no epilogue, and the blocks make the checks and
// copies run 4 floats at a time rather than one element per iteration (BENCHMARKS.md
// profiles the server: these checks are a small part of a call's CPU).
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

Status non_finite_error(const TensorSpec& spec, const TensorView& view, int64_t index,
                        const std::string& note) {
  const float value = view.at(index);
  const char* what = std::isnan(value) ? "NaN" : value > 0 ? "infinity" : "-infinity";
  return invalid_argument(std::string(spec.field) + ": value at " + format_index(view, index) +
                          note + " is " + what +
                          "; values must be finite (fill gaps before sending)");
}

}  // namespace tsserve::server
