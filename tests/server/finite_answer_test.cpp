// The last guard (server/codec/common/finite_answer.h): a forecast, encoding or attention
// weight that is not finite is never sent; each protocol refuses with OUT_OF_RANGE naming
// the variable (or token) in its own field names.

#include <gtest/gtest.h>

#include <limits>

#include "codec_test_support.h"
#include "oip_test_support.h"
#include "server/codec/oip/oip_response_encoder.h"
#include "server/codec/v1/encode_response_encoder.h"
#include "server/codec/v1/forecast_response_encoder.h"

namespace tsserve::server {
namespace {

using testing::has_status;
using testing::ramp;
using testing::small_model;

using testing::kInf;
using testing::kNaN;

::testing::AssertionResult out_of_range(const Status& status,
                                        const std::vector<std::string>& parts) {
  return has_status(status, StatusCode::kOutOfRange, parts);
}

// B samples of N variables of the small model (T 8, F 4), decoded, scaler off.
ForecastInput decoded(int64_t samples, int64_t variables) {
  ForecastInput input;
  input.series_rows = samples * variables;
  input.samples = samples;
  input.rows = ramp(input.series_rows * 8);
  input.input_points_used = 8;
  return input;
}

ForecastOutput output_for(int64_t rows) {
  ForecastOutput output;
  output.forecast = ramp(rows * 4, -1.3f);
  return output;
}

AttentionBlock block(int32_t layer, int32_t row) {
  AttentionBlock b;
  b.layer = layer;
  b.variable = row;
  b.shape = {2, 2, 2};
  b.weights = ramp(8);
  return b;
}

Status encode_v1(const ForecastInput& input, ForecastOutput output) {
  v1::ForecastResponse response;
  return encode_forecast_response(input, small_model(), std::move(output), &response);
}

TEST(FiniteAnswerTest, V1ForecastNamesTheVariableAndPoint) {
  ForecastInput input = decoded(1, 3);
  ForecastOutput output = output_for(3);
  EXPECT_TRUE(encode_v1(input, output).ok());
  output.forecast[1 * 4 + 2] = kInf;
  EXPECT_TRUE(out_of_range(encode_v1(input, output),
                           {"forecast: point 2 of variable 1 is infinity",
                            "outside float32's range", "send the series in smaller numbers"}));
  input.variable_names = {"a", "b", "c"};
  output.forecast[1 * 4 + 2] = kNaN;
  EXPECT_TRUE(
      out_of_range(encode_v1(input, output), {"forecast: point 2 of variable \"b\" is NaN"}));
}

// A finite model value that unscaling pushes past float's range (std 3 of column c).
TEST(FiniteAnswerTest, V1ForecastIsJudgedAsSentInTheDataUnits) {
  ForecastInput input = decoded(1, 3);
  input.scaler_applied = true;
  input.scaler_column = {0, 1, 2};
  ForecastOutput output = output_for(3);
  output.forecast[2 * 4 + 0] = -2e38f;
  EXPECT_TRUE(
      out_of_range(encode_v1(input, output), {"forecast: point 0 of variable 2 is -infinity once "
                                              "unscaled (the model's value is -2e+38)"}));
  input.scaler_column = {0, 2, 1};  // column b (std 0.5) halves it: sent as is
  EXPECT_TRUE(encode_v1(input, output).ok());
}

TEST(FiniteAnswerTest, V1AttentionWeightsMustBeFinite) {
  ForecastInput input = decoded(1, 3);
  input.attention.enabled = true;
  input.attention.layers = {0, 1};
  input.attention.variables = {2};
  ForecastOutput output = output_for(3);
  output.attention = {block(0, 2), block(1, 2)};
  EXPECT_TRUE(encode_v1(input, output).ok());
  output.attention[1].weights[5] = kNaN;
  EXPECT_TRUE(out_of_range(encode_v1(input, output),
                           {"attention: the map of variable 2, layer 1 has a weight that is NaN"}));
}

TEST(FiniteAnswerTest, OipNamesItsOutputsTheSampleAndTheVariable) {
  const ForecastInput input = decoded(2, 3);
  ForecastOutput output = output_for(6);
  output.forecast[(1 * 3 + 2) * 4 + 3] = kInf;  // sample 1, variable 2, point 3
  OipReply reply;
  reply.outputs = {OipOutput::kForecast};
  inference::ModelInferResponse response;
  EXPECT_TRUE(out_of_range(
      encode_model_infer_response(input, reply, small_model(), ForecastOutput(output), &response),
      {"outputs[0] (\"forecast\"): point 3 of sample 1, variable 2 is infinity"}));

  ForecastInput with_maps = input;
  with_maps.attention.enabled = true;
  with_maps.attention.layers = {0};
  with_maps.attention.variables = {4};  // sample 1, variable 1
  output = output_for(6);
  output.attention = {block(0, 4)};
  output.attention[0].weights[0] = -kInf;
  reply.outputs = {OipOutput::kAttention, OipOutput::kForecast};
  EXPECT_TRUE(out_of_range(
      encode_model_infer_response(with_maps, reply, small_model(), std::move(output), &response),
      {"outputs[0] (\"attention\"): the map of sample 1, variable 1, layer 0 has a weight that is "
       "-infinity"}));
}

TEST(FiniteAnswerTest, EncodeNamesTheToken) {
  EncodeInput input;
  input.tokens = 2;
  input.values = ramp(2 * 6);
  EncodeOutput output;
  output.output = ramp(2 * 6);
  output.output[6 + 4] = kNaN;
  v1::EncodeResponse response;
  EXPECT_TRUE(out_of_range(
      encode_encode_response(input, small_model(), EncodeOutput(output), &response),
      {"output: token 1 of 2 holds a value that is NaN", "send the tokens in smaller numbers"}));
  output.output[6 + 4] = 1.0f;
  EXPECT_TRUE(encode_encode_response(input, small_model(), EncodeOutput(output), &response).ok());
}

}  // namespace
}  // namespace tsserve::server
