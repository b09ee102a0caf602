#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "codec_test_support.h"
#include "server/codec/v1/tensor_message.h"

namespace tsserve::server {
namespace {

using testing::invalid_argument;
using testing::little_endian_bytes;
using testing::ramp;
using testing::raw_tensor;
using testing::values_tensor;

constexpr TensorSpec kSeries{"series", 2, "[N, T_in]"};
using testing::kInf;
using testing::kNaN;

std::vector<float> read_all(const TensorView& view) {
  std::vector<float> data(static_cast<std::size_t>(view.size()));
  for (int64_t i = 0; i < view.size(); ++i) data[static_cast<std::size_t>(i)] = view.at(i);
  return data;
}

TEST(TensorCodecTest, ViewsValuesAndRawBytesAsTheSameFloats) {
  const std::vector<float> data = {1.5f, -2.0f, 3.25e-30f, 7.0e30f, 0.0f, -0.0f};
  const v1::Tensor packed = values_tensor({2, 3}, data);
  const v1::Tensor raw = raw_tensor({2, 3}, data);
  TensorView a;
  TensorView b;
  ASSERT_TRUE(view_tensor(packed, kSeries, &a).ok());
  ASSERT_TRUE(view_tensor(raw, kSeries, &b).ok());
  EXPECT_EQ(a.rank(), 2);
  EXPECT_EQ(a.dim(0), 2);
  EXPECT_EQ(a.dim(1), 3);
  EXPECT_EQ(a.size(), 6);
  EXPECT_EQ(read_all(a), data);
  EXPECT_EQ(read_all(b), data);
  EXPECT_TRUE(std::signbit(b.at(5)));  // bit-exact, -0 included
}

TEST(TensorCodecTest, RejectsBothEncodings) {
  v1::Tensor tensor = values_tensor({1, 2}, {1, 2});
  tensor.set_raw_values(little_endian_bytes({1, 2}));
  TensorView view;
  EXPECT_TRUE(invalid_argument(view_tensor(tensor, kSeries, &view),
                               {"series: both values and raw_values are set"}));
}

TEST(TensorCodecTest, RejectsAnotherRank) {
  TensorView view;
  EXPECT_TRUE(invalid_argument(view_tensor(values_tensor({1, 2, 1}, {1, 2}), kSeries, &view),
                               {"series.shape: expected 2 dimensions [N, T_in], got 3"}));
  EXPECT_TRUE(invalid_argument(view_tensor(v1::Tensor(), kSeries, &view),
                               {"series.shape: expected 2 dimensions", "got 0"}));
}

TEST(TensorCodecTest, RejectsNegativeDimensions) {
  TensorView view;
  EXPECT_TRUE(invalid_argument(view_tensor(values_tensor({-1, -2}, {1, 2}), kSeries, &view),
                               {"series.shape: dimension 0 of [-1, -2] is negative"}));
  EXPECT_TRUE(invalid_argument(view_tensor(values_tensor({0, -2}, {}), kSeries, &view),
                               {"dimension 1 of [0, -2] is negative"}));
}

TEST(TensorCodecTest, RejectsCountMismatches) {
  TensorView view;
  EXPECT_TRUE(invalid_argument(view_tensor(values_tensor({2, 3}, ramp(5)), kSeries, &view),
                               {"series: shape [2, 3] has 6 elements but values has 5"}));
  EXPECT_TRUE(invalid_argument(view_tensor(raw_tensor({2, 3}, ramp(7)), kSeries, &view),
                               {"shape [2, 3] has 6 elements but raw_values has 7 (28 bytes)"}));
  EXPECT_TRUE(invalid_argument(view_tensor(values_tensor({2, 3}, {}), kSeries, &view),
                               {"has 6 elements but neither values nor raw_values is set"}));
  v1::Tensor odd = raw_tensor({2, 3}, ramp(6));
  odd.mutable_raw_values()->push_back('\0');
  EXPECT_TRUE(invalid_argument(view_tensor(odd, kSeries, &view),
                               {"series.raw_values: 25 bytes, not a multiple of 4"}));
  // A product beyond int64 cannot match any data.
  EXPECT_TRUE(invalid_argument(
      view_tensor(values_tensor({int64_t{1} << 40, int64_t{1} << 40}, {1}), kSeries, &view),
      {"has too many elements but values has 1"}));
}

TEST(TensorCodecTest, AcceptsAnEmptyTensorWithNoData) {
  TensorView view;
  ASSERT_TRUE(view_tensor(values_tensor({0, 5}, {}), kSeries, &view).ok());
  EXPECT_EQ(view.size(), 0);
}

TEST(TensorCodecTest, FiniteChecksCatchEveryNonFiniteKind) {
  const float negative_nan = -kNaN;
  const float signalling_nan = std::numeric_limits<float>::signaling_NaN();
  // Positions in the first block, at block edges and in the tail of the blocked loops.
  for (int64_t at : {0, 15, 16, 29, 32, 36}) {
    for (float bad : {kNaN, negative_nan, signalling_nan, kInf, -kInf}) {
      std::vector<float> data = ramp(37);
      data[static_cast<std::size_t>(at)] = bad;
      const std::string bytes = little_endian_bytes(data);
      const auto* src = reinterpret_cast<const unsigned char*>(bytes.data());
      std::vector<float> copy(data.size());
      EXPECT_FALSE(copy_finite(src, 37, copy.data())) << at;
      EXPECT_FALSE(all_finite(src, 37)) << at;
      EXPECT_TRUE(all_finite(src, at)) << at;
      EXPECT_TRUE(copy_finite(src, at, copy.data())) << at;
      EXPECT_EQ(find_non_finite(src, 37), at);
      EXPECT_EQ(find_non_finite(src, at), at);
    }
  }
}

TEST(TensorCodecTest, ExtremeFiniteValuesPassAndCopyBitExactly) {
  const std::vector<float> data = {std::numeric_limits<float>::max(),
                                   std::numeric_limits<float>::lowest(),
                                   std::numeric_limits<float>::denorm_min(),
                                   std::numeric_limits<float>::min(),
                                   -0.0f,
                                   1.0f};
  // One byte of offset: the source is deliberately misaligned for float.
  const std::string bytes = "x" + little_endian_bytes(data);
  const auto* src = reinterpret_cast<const unsigned char*>(bytes.data()) + 1;
  std::vector<float> copy(data.size());
  EXPECT_TRUE(copy_finite(src, 6, copy.data()));
  EXPECT_TRUE(all_finite(src, 6));
  EXPECT_EQ(find_non_finite(src, 6), 6);
  EXPECT_EQ(std::memcmp(copy.data(), data.data(), data.size() * 4), 0);
}

TEST(TensorCodecTest, NonFiniteErrorNamesThePositionAndKind) {
  std::vector<float> data = ramp(12);
  data[7] = kNaN;
  data[8] = kInf;
  data[9] = -kInf;
  const v1::Tensor tensor = values_tensor({3, 4}, data);
  TensorView view;
  ASSERT_TRUE(view_tensor(tensor, kSeries, &view).ok());
  EXPECT_EQ(format_index(view, 7), "[1, 3]");
  EXPECT_TRUE(invalid_argument(non_finite_error(kSeries, view, 7),
                               {"series: value at [1, 3] is NaN; values must be finite"}));
  EXPECT_TRUE(
      invalid_argument(non_finite_error(kSeries, view, 8), {"value at [2, 0] is infinity"}));
  EXPECT_TRUE(invalid_argument(non_finite_error(kSeries, view, 9, " (variable \"x\")"),
                               {"value at [2, 1] (variable \"x\") is -infinity"}));
}

TEST(TensorCodecTest, ResolvesOutputEncoding) {
  bool raw = true;
  ASSERT_TRUE(resolve_output_encoding(v1::TENSOR_ENCODING_UNSPECIFIED, &raw).ok());
  EXPECT_FALSE(raw);
  ASSERT_TRUE(resolve_output_encoding(v1::TENSOR_ENCODING_RAW, &raw).ok());
  EXPECT_TRUE(raw);
  ASSERT_TRUE(resolve_output_encoding(v1::TENSOR_ENCODING_VALUES, &raw).ok());
  EXPECT_FALSE(raw);
  EXPECT_TRUE(
      invalid_argument(resolve_output_encoding(9, &raw), {"output_encoding: unknown value 9"}));
}

TEST(TensorCodecTest, WritesOnlyTheAskedEncoding) {
  const std::vector<float> data = ramp(6, -3.0f);
  v1::Tensor packed;
  v1::Tensor raw;
  raw.add_values(99.0f);  // stale content is cleared
  write_tensor(data.data(), {3, 2}, false, &packed);
  write_tensor(data.data(), std::vector<int64_t>{3, 2}, true, &raw);
  EXPECT_EQ(testing::tensor_shape(packed), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(testing::tensor_shape(raw), (std::vector<int64_t>{3, 2}));
  EXPECT_TRUE(packed.raw_values().empty());
  EXPECT_EQ(raw.values_size(), 0);
  EXPECT_EQ(std::vector<float>(packed.values().begin(), packed.values().end()), data);
  EXPECT_EQ(raw.raw_values(), little_endian_bytes(data));
}

TEST(TensorCodecTest, PreparedTensorTakesStoredFloats) {
  for (bool raw : {false, true}) {
    v1::Tensor tensor;
    unsigned char* dst = prepare_tensor({2, 2}, raw, &tensor);
    for (int i = 0; i < 4; ++i) store_float(dst, i, 0.5f * static_cast<float>(i));
    EXPECT_EQ(testing::tensor_floats(tensor), (std::vector<float>{0.0f, 0.5f, 1.0f, 1.5f}));
  }
  v1::Tensor empty;
  prepare_tensor({0, 3}, true, &empty);
  EXPECT_EQ(testing::tensor_shape(empty), (std::vector<int64_t>{0, 3}));
  EXPECT_TRUE(empty.raw_values().empty());
}

}  // namespace
}  // namespace tsserve::server
