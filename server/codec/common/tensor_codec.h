#pragma once
// A request's tensor data as little-endian float32, whichever protocol carried it: a view
// in place (TensorView), the finiteness checks and messages, and the output buffers'
// sizing. Each protocol's codec finds the bytes in its own messages and checks their
// structure (tsserve.v1's Tensor: codec/v1/tensor_message.h; the Open Inference Protocol's
// InferTensorContents: codec/oip/oip_request_decoder.cpp), then views them here.
//
// Packed float fields are already little-endian float32 bytes in memory, exactly like
// raw bytes, so both are read as 4-byte little-endian floats through memcpy (never a
// reinterpret_cast to float*: raw bytes may be unaligned). Finiteness is left to the
// consumer, which checks it while it copies, so each element is read once; the bulk
// helpers below do that.

#include <google/protobuf/repeated_field.h>

#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "server/status/status.h"

namespace tsserve::server {

// raw_values are little-endian IEEE-754 float32 and are copied to and from floats with
// memcpy, which is a byte-for-byte identity only on such a host. A big-endian port would
// byte-swap in view/copy/store below.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "tensor_codec copies little-endian float32 bytes as floats; add byte swapping");
static_assert(std::numeric_limits<float>::is_iec559 && sizeof(float) == 4,
              "tensor_codec needs IEEE-754 binary32 floats");

// Names a Tensor field in messages: {"series", 2, "[N, T_in]"}.
struct TensorSpec {
  const char* field;
  int rank;
  const char* dims;
};

// A structurally valid input tensor's data, not copied. Valid while the message (or the
// buffers) it was made from is alive and unchanged. Elements may still be NaN or infinite.
class TensorView {
 public:
  int rank() const { return rank_; }
  int64_t dim(int i) const { return shape_[i]; }
  int64_t size() const { return size_; }  // element count, the product of the shape
  // The data: size() little-endian float32 values, any alignment.
  const unsigned char* bytes() const { return bytes_; }
  // REQUIRES: 0 <= i < size().
  float at(int64_t i) const {
    float value;
    std::memcpy(&value, bytes_ + 4 * i, sizeof value);
    return value;
  }

 private:
  friend TensorView view_checked_floats(const int64_t*, int, const unsigned char*, int64_t);

  const int64_t* shape_ = nullptr;
  int rank_ = 0;
  const unsigned char* bytes_ = nullptr;
  int64_t size_ = 0;
};

// A view of `bytes`, `size` little-endian floats whose structure the caller has checked (`size`
// is the product of `shape`, every dimension >= 0). `shape` and `bytes` must outlive it.
TensorView view_checked_floats(const google::protobuf::RepeatedField<int64_t>& shape,
                               const unsigned char* bytes, int64_t size);
// The same for a shape of `rank` dimensions at `shape` (a decoder's own buffers).
TensorView view_checked_floats(const int64_t* shape, int rank, const unsigned char* bytes,
                               int64_t size);

// The product of `shape` in *count; false when it does not fit an int64.
// REQUIRES: every dimension >= 0.
bool element_count(const google::protobuf::RepeatedField<int64_t>& shape, int64_t* count);

// "[2, 336, 7]".
std::string format_shape(const google::protobuf::RepeatedField<int64_t>& shape);

// Whether the float with these bits is NaN or infinite (all exponent bits set).
inline bool non_finite_bits(uint32_t bits) { return (bits & 0x7f800000u) == 0x7f800000u; }

// Copies `count` floats from `src` (little-endian, any alignment) to `dst`; false when one
// of them is not finite (all `count` are copied anyway). One branch-free pass.
bool copy_finite(const unsigned char* src, int64_t count, float* dst);

// Whether all `count` floats at `src` are finite. One branch-free pass.
bool all_finite(const unsigned char* src, int64_t count);

// The index of the first non-finite float among `count` at `src`, or `count`.
int64_t find_non_finite(const unsigned char* src, int64_t count);

// "[1, 17]": flat index `index` of `view` as a multi-index.
std::string format_index(const TensorView& view, int64_t index);

// "series: value at [1, 17] is NaN; values must be finite" (or "is infinity",
// "is -infinity"), for flat index `index` of `view`; `note`, when given, follows the
// position, e.g. " (variable \"HUFL\")".
Status non_finite_error(const TensorSpec& spec, const TensorView& view, int64_t index,
                        const std::string& note = {});

// Sizes one encoding for `count` floats and returns where they go (little-endian, possibly
// unaligned for float: write them with store_float()). resize_values() leaves the new
// elements uninitialised: the caller writes every one.
unsigned char* resize_raw(std::string* bytes, int64_t count);
unsigned char* resize_values(google::protobuf::RepeatedField<float>* values, int64_t count);

inline void store_float(unsigned char* dst, int64_t i, float value) {
  std::memcpy(dst + 4 * i, &value, sizeof value);
}

}  // namespace tsserve::server
