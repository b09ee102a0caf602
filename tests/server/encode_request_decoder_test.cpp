#include "server/codec/v1/encode_request_decoder.h"

#include <gtest/gtest.h>

#include <limits>

#include "codec_test_support.h"

namespace tsserve::server {
namespace {

using testing::invalid_argument;
using testing::ramp;
using testing::raw_tensor;
using testing::small_model;
using testing::values_tensor;

// L tokens of the small model's width D = 6.
v1::EncodeRequest tokens_request(int64_t length, const std::vector<float>& data, bool raw = false,
                                 int64_t width = 6) {
  v1::EncodeRequest request;
  *request.mutable_tokens() =
      raw ? raw_tensor({length, width}, data) : values_tensor({length, width}, data);
  return request;
}

Status decode(const v1::EncodeRequest& request, EncodeInput* out, RequestLimits limits = {}) {
  return decode_encode_request(request, small_model(), limits, out);
}

TEST(EncodeRequestDecoderTest, ValuesAndRawGiveIdenticalTokens) {
  const std::vector<float> data = ramp(5 * 6, -7.5f);
  EncodeInput packed;
  EncodeInput raw;
  ASSERT_TRUE(decode(tokens_request(5, data), &packed).ok());
  ASSERT_TRUE(decode(tokens_request(5, data, true), &raw).ok());
  EXPECT_EQ(packed.tokens, 5);
  EXPECT_EQ(packed.values, data);
  EXPECT_EQ(raw.values, data);
  EXPECT_FALSE(packed.attention.enabled);
  EXPECT_FALSE(packed.request_id.empty());
}

TEST(EncodeRequestDecoderTest, RejectsAWidthOtherThanDModel) {
  EncodeInput input;
  EXPECT_TRUE(invalid_argument(decode(tokens_request(2, ramp(16), false, 8), &input),
                               {"tokens.shape: width D = 8 in [2, 8]", "d_model = 6"}));
}

TEST(EncodeRequestDecoderTest, RejectsZeroTokens) {
  EncodeInput input;
  EXPECT_TRUE(invalid_argument(decode(tokens_request(0, {}), &input),
                               {"tokens: no tokens (L = 0", "at least one"}));
  EXPECT_TRUE(invalid_argument(decode(v1::EncodeRequest(), &input),
                               {"tokens.shape: expected 2 dimensions [L, D], got 0"}));
}

TEST(EncodeRequestDecoderTest, RejectsMoreTokensThanTheLimit) {
  RequestLimits limits;
  limits.max_encode_tokens = 3;
  EncodeInput input;
  EXPECT_TRUE(decode(tokens_request(3, ramp(18)), &input, limits).ok());
  EXPECT_TRUE(invalid_argument(decode(tokens_request(4, ramp(24)), &input, limits),
                               {"tokens: 4 tokens; at most 3", "max_encode_tokens"}));
  limits.max_encode_tokens = 0;  // no limit
  EXPECT_TRUE(decode(tokens_request(50, ramp(300)), &input, limits).ok());
  EXPECT_EQ(input.tokens, 50);
}

TEST(EncodeRequestDecoderTest, RejectsTensorRuleBreaks) {
  EncodeInput input;
  v1::EncodeRequest both = tokens_request(1, ramp(6));
  both.mutable_tokens()->set_raw_values(testing::little_endian_bytes(ramp(6)));
  EXPECT_TRUE(invalid_argument(decode(both, &input), {"tokens: both values and raw_values"}));
  EXPECT_TRUE(invalid_argument(decode(tokens_request(2, ramp(11)), &input),
                               {"tokens: shape [2, 6] has 12 elements but values has 11"}));
  v1::EncodeRequest rank1;
  *rank1.mutable_tokens() = values_tensor({6}, ramp(6));
  EXPECT_TRUE(invalid_argument(decode(rank1, &input),
                               {"tokens.shape: expected 2 dimensions [L, D], got 1"}));
  EXPECT_TRUE(invalid_argument(decode(tokens_request(-1, {}, false, -6), &input),
                               {"tokens.shape: dimension 0 of [-1, -6] is negative"}));
}

TEST(EncodeRequestDecoderTest, RejectsNonFiniteTokens) {
  for (bool raw : {false, true}) {
    std::vector<float> data = ramp(3 * 6);
    data[2 * 6 + 4] = std::numeric_limits<float>::quiet_NaN();
    data[2 * 6 + 5] = std::numeric_limits<float>::infinity();
    EncodeInput input;
    EXPECT_TRUE(invalid_argument(decode(tokens_request(3, data, raw), &input),
                                 {"tokens: value at [2, 4] is NaN; values must be finite"}));
  }
}

TEST(EncodeRequestDecoderTest, ResolvesAttentionForOneSequence) {
  v1::EncodeRequest request = tokens_request(2, ramp(12));
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->add_layers(2);
  request.mutable_attention()->set_average_heads(true);
  request.set_output_encoding(v1::TENSOR_ENCODING_RAW);
  request.set_request_id("enc-1");
  EncodeInput input;
  ASSERT_TRUE(decode(request, &input).ok());
  EXPECT_TRUE(input.attention.enabled);
  EXPECT_TRUE(input.attention.average_heads);
  EXPECT_EQ(input.attention.layers, (std::vector<int32_t>{2}));
  EXPECT_EQ(input.attention.variables, (std::vector<int32_t>{0}));
  EXPECT_TRUE(input.raw_output);
  EXPECT_EQ(input.request_id, "enc-1");

  request.mutable_attention()->add_variables(0);
  EXPECT_TRUE(invalid_argument(decode(request, &input),
                               {"attention.variables: must be empty in an Encode request"}));
  request.mutable_attention()->set_enabled(false);
  ASSERT_TRUE(decode(request, &input).ok());
  EXPECT_FALSE(input.attention.enabled);
}

TEST(EncodeRequestDecoderTest, RejectsUnknownOutputEncoding) {
  v1::EncodeRequest request = tokens_request(1, ramp(6));
  request.set_output_encoding(static_cast<v1::TensorEncoding>(3));
  EncodeInput input;
  EXPECT_TRUE(invalid_argument(decode(request, &input), {"output_encoding: unknown value 3"}));
}

}  // namespace
}  // namespace tsserve::server
