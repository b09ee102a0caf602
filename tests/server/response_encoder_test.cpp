#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "server/codec/v1/encode_response_encoder.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "server/codec/v1/forecast_response_encoder.h"

namespace tsserve::server {
namespace {

using testing::has_status;
using testing::ramp;
using testing::small_model;
using testing::tensor_floats;
using testing::tensor_shape;
using testing::transpose;
using testing::values_tensor;

// A decoded request as the runner sees it: N variables of the small model (T 8, F 4).
ForecastInput decoded(int64_t variables, bool by_time = true, bool raw = false) {
  ForecastInput input;
  input.request_id = "req-1";
  input.series_rows = variables;
  input.rows = ramp(variables * 8);
  input.input_points_used = 8;
  input.variables_by_time = by_time;
  input.raw_output = raw;
  return input;
}

ForecastOutput output_for(int64_t variables) {
  ForecastOutput output;
  output.forecast = ramp(variables * 4, -1.3f);
  output.queue_seconds = 0.25;
  output.compute_seconds = 0.5;
  output.batch_rows = 17;
  return output;
}

// A map of the small model (H = 2) over `tokens` tokens (Forecast: P = patch_count = 2).
AttentionBlock block(int32_t layer, int32_t variable, bool averaged = false, int64_t tokens = 2) {
  AttentionBlock b;
  b.layer = layer;
  b.variable = variable;
  b.heads_averaged = averaged;
  b.shape =
      averaged ? std::vector<int64_t>{tokens, tokens} : std::vector<int64_t>{2, tokens, tokens};
  b.weights =
      ramp((averaged ? 1 : 2) * tokens * tokens, static_cast<float>(100 * variable + 10 * layer));
  return b;
}

TEST(ForecastResponseEncoderTest, FillsEveryFieldWithoutAScaler) {
  const ForecastInput input = decoded(3);
  ForecastOutput output = output_for(3);
  const std::vector<float> forecast = output.forecast;
  v1::ForecastResponse response;
  ASSERT_TRUE(encode_forecast_response(input, small_model(), std::move(output), &response).ok());
  EXPECT_EQ(tensor_shape(response.forecast()), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(response.forecast().values_size(), 12);
  EXPECT_EQ(tensor_floats(response.forecast()), forecast);
  EXPECT_EQ(response.model_name(), "small");
  EXPECT_EQ(response.model_version(), "7");
  EXPECT_EQ(response.timing().queue_seconds(), 0.25);
  EXPECT_EQ(response.timing().compute_seconds(), 0.5);
  EXPECT_EQ(response.timing().batch_rows(), 17);
  EXPECT_EQ(response.request_id(), "req-1");
  EXPECT_EQ(response.input_points_used(), 8);
  EXPECT_FALSE(response.scaler_applied());
  EXPECT_EQ(response.attention_size(), 0);
}

TEST(ForecastResponseEncoderTest, UnscalesExactlyWithEachVariablesColumn) {
  const ModelShape model = small_model();
  ForecastInput input = decoded(2);
  input.scaler_applied = true;
  input.scaler_column = {2, 0};  // named "c", "a"
  ForecastOutput output = output_for(2);
  const std::vector<float> forecast = output.forecast;
  v1::ForecastResponse response;
  ASSERT_TRUE(encode_forecast_response(input, model, std::move(output), &response).ok());
  EXPECT_TRUE(response.scaler_applied());
  const std::vector<float> got = tensor_floats(response.forecast());
  ASSERT_EQ(got.size(), 8u);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const std::size_t c = static_cast<std::size_t>(input.scaler_column[i / 4]);
    const auto expected = static_cast<float>(
        static_cast<double>(forecast[i]) * model.scaler_std[c] + model.scaler_mean[c]);
    EXPECT_EQ(got[i], expected) << "element " << i;
  }
  EXPECT_EQ(got[0], static_cast<float>(-1.3f * 3.0 + 10.125));  // spelled out once
}

TEST(ForecastResponseEncoderTest, UnscalesInDoubleThenRoundsToFloat) {
  ModelShape model = small_model();
  model.scaler_mean = {0.1, 12345.678, -1e-3};
  model.scaler_std = {0.3, 0.011, 7.77};
  ForecastInput input = decoded(3);
  input.scaler_applied = true;
  input.scaler_column = {1, 2, 0};
  ForecastOutput output;
  for (int i = 0; i < 12; ++i) output.forecast.push_back(0.37f * static_cast<float>(i) - 2.1f);
  const std::vector<float> forecast = output.forecast;
  v1::ForecastResponse response;
  ASSERT_TRUE(encode_forecast_response(input, model, std::move(output), &response).ok());
  const std::vector<float> got = tensor_floats(response.forecast());
  ASSERT_EQ(got.size(), 12u);
  int differs_from_float_math = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const auto c = static_cast<std::size_t>(input.scaler_column[i / 4]);
    ASSERT_EQ(got[i], static_cast<float>(static_cast<double>(forecast[i]) * model.scaler_std[c] +
                                         model.scaler_mean[c]))
        << i;
    const float in_float = forecast[i] * static_cast<float>(model.scaler_std[c]) +
                           static_cast<float>(model.scaler_mean[c]);
    if (in_float != got[i]) ++differs_from_float_math;
  }
  EXPECT_GT(differs_from_float_math, 0);
}

TEST(ForecastResponseEncoderTest, TransposesForTimeByVariables) {
  ForecastOutput output = output_for(3);
  const std::vector<float> forecast = output.forecast;
  v1::ForecastResponse response;
  ASSERT_TRUE(
      encode_forecast_response(decoded(3, false), small_model(), std::move(output), &response)
          .ok());
  EXPECT_EQ(tensor_shape(response.forecast()), (std::vector<int64_t>{4, 3}));
  const std::vector<float> got = tensor_floats(response.forecast());
  EXPECT_EQ(got, transpose(forecast, 3, 4));
  EXPECT_EQ(got[1], forecast[4]);  // [f 0, variable 1] = variable 1's first point
}

TEST(ForecastResponseEncoderTest, RawAndValuesCarryTheSameFloats) {
  for (bool by_time : {true, false}) {
    for (bool scaled : {false, true}) {
      ForecastInput packed = decoded(3, by_time, false);
      ForecastInput raw = decoded(3, by_time, true);
      for (ForecastInput* input : {&packed, &raw}) {
        input->scaler_applied = scaled;
        if (scaled) input->scaler_column = {0, 1, 2};
      }
      v1::ForecastResponse a;
      v1::ForecastResponse b;
      ASSERT_TRUE(encode_forecast_response(packed, small_model(), output_for(3), &a).ok());
      ASSERT_TRUE(encode_forecast_response(raw, small_model(), output_for(3), &b).ok());
      EXPECT_TRUE(a.forecast().raw_values().empty());
      EXPECT_EQ(b.forecast().values_size(), 0);
      EXPECT_EQ(b.forecast().raw_values().size(), 48u);
      EXPECT_EQ(tensor_floats(a.forecast()), tensor_floats(b.forecast()));
      EXPECT_EQ(tensor_shape(a.forecast()), tensor_shape(b.forecast()));
    }
  }
}

TEST(ForecastResponseEncoderTest, OrdersAttentionByVariableThenLayer) {
  for (bool raw : {false, true}) {
    ForecastOutput output = output_for(2);
    output.attention = {block(2, 1), block(0, 1), block(2, 0), block(0, 0, false)};
    const std::vector<float> weights_v1_l0 = output.attention[1].weights;
    v1::ForecastResponse response;
    ASSERT_TRUE(
        encode_forecast_response(decoded(2, true, raw), small_model(), std::move(output), &response)
            .ok());
    ASSERT_EQ(response.attention_size(), 4);
    const std::vector<std::pair<int, int>> order = {{0, 0}, {0, 2}, {1, 0}, {1, 2}};
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(response.attention(i).variable(), order[i].first);
      EXPECT_EQ(response.attention(i).layer(), order[i].second);
      EXPECT_FALSE(response.attention(i).heads_averaged());
      EXPECT_EQ(tensor_shape(response.attention(i).weights()), (std::vector<int64_t>{2, 2, 2}));
      EXPECT_EQ(response.attention(i).weights().raw_values().empty(), !raw);
    }
    EXPECT_EQ(tensor_floats(response.attention(2).weights()), weights_v1_l0);
  }
}

TEST(ForecastResponseEncoderTest, RejectsResultsThatDoNotFitTheRequest) {
  v1::ForecastResponse response;
  response.set_request_id("untouched");
  ForecastOutput short_forecast = output_for(2);
  EXPECT_TRUE(has_status(
      encode_forecast_response(decoded(3), small_model(), std::move(short_forecast), &response),
      StatusCode::kInternal, {"forecast: the model returned 8 values for 3 variables x 4"}));
  ForecastOutput bad_map = output_for(3);
  bad_map.attention = {block(0, 0, true)};
  bad_map.attention[0].weights.pop_back();
  EXPECT_TRUE(
      has_status(encode_forecast_response(decoded(3), small_model(), std::move(bad_map), &response),
                 StatusCode::kInternal,
                 {"attention map of layer 0, variable 0: shape of rank 2 with 3 weights",
                  "expected [P, P] with H = 2, P = 2"}));
  ForecastOutput wrong_rank = output_for(3);
  wrong_rank.attention = {block(1, 2)};
  wrong_rank.attention[0].heads_averaged = true;  // [2, 2, 2] is no [P, P]
  EXPECT_TRUE(has_status(
      encode_forecast_response(decoded(3), small_model(), std::move(wrong_rank), &response),
      StatusCode::kInternal, {"layer 1, variable 2", "expected [P, P]"}));
  ForecastOutput wrong_tokens = output_for(3);
  wrong_tokens.attention = {block(0, 0, false, 3)};  // P = 3, the model's patch_count is 2
  EXPECT_TRUE(has_status(
      encode_forecast_response(decoded(3), small_model(), std::move(wrong_tokens), &response),
      StatusCode::kInternal, {"layer 0, variable 0", "expected [H, P, P] with H = 2, P = 2"}));
  EXPECT_EQ(response.request_id(), "untouched");
  EXPECT_FALSE(response.has_forecast());
}

TEST(ForecastResponseEncoderTest, DecodedThenEncodedSeriesComeBackInRawUnits) {
  // Feeding the scaled input rows back as a "forecast" (F = T) must restore the last T
  // points the client sent, in its layout, up to the float rounding of the two scalings.
  ModelShape model = small_model();
  model.pred_len = model.seq_len;
  const std::vector<float> sent = ramp(3 * 10, 250.0f);
  v1::ForecastRequest request;
  *request.mutable_series() = values_tensor({10, 3}, transpose(sent, 3, 10));
  request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  ForecastInput input;
  ASSERT_TRUE(decode_forecast_request(request, model, {}, &input).ok());
  ASSERT_TRUE(input.scaler_applied);
  ForecastOutput output;
  output.forecast = input.rows;
  v1::ForecastResponse response;
  ASSERT_TRUE(encode_forecast_response(input, model, std::move(output), &response).ok());
  ASSERT_EQ(tensor_shape(response.forecast()), (std::vector<int64_t>{8, 3}));
  const std::vector<float> got = tensor_floats(response.forecast());
  for (int64_t t = 0; t < 8; ++t) {
    for (int64_t v = 0; v < 3; ++v) {
      const float expected = sent[v * 10 + 2 + t];
      EXPECT_NEAR(got[t * 3 + v], expected, 1e-6 * std::abs(expected));
    }
  }
}

TEST(EncodeResponseEncoderTest, FillsEveryField) {
  for (bool raw : {false, true}) {
    EncodeInput input;
    input.request_id = "enc-9";
    input.tokens = 3;
    input.raw_output = raw;
    EncodeOutput output;
    output.output = ramp(18, 0.5f);
    output.attention = {block(2, 0, true, 3), block(1, 0, true, 3)};  // P = L = 3
    output.queue_seconds = 1.5;
    output.compute_seconds = 0.125;
    output.batch_rows = 2;
    const std::vector<float> expected = output.output;
    v1::EncodeResponse response;
    ASSERT_TRUE(encode_encode_response(input, small_model(), std::move(output), &response).ok());
    EXPECT_EQ(tensor_shape(response.output()), (std::vector<int64_t>{3, 6}));
    EXPECT_EQ(response.output().raw_values().empty(), !raw);
    EXPECT_EQ(tensor_floats(response.output()), expected);
    EXPECT_EQ(response.model_name(), "small");
    EXPECT_EQ(response.model_version(), "7");
    EXPECT_EQ(response.timing().queue_seconds(), 1.5);
    EXPECT_EQ(response.timing().compute_seconds(), 0.125);
    EXPECT_EQ(response.timing().batch_rows(), 2);
    EXPECT_EQ(response.request_id(), "enc-9");
    ASSERT_EQ(response.attention_size(), 2);
    EXPECT_EQ(response.attention(0).layer(), 1);
    EXPECT_EQ(response.attention(1).layer(), 2);
    EXPECT_TRUE(response.attention(0).heads_averaged());
    EXPECT_EQ(response.attention(0).variable(), 0);
    EXPECT_EQ(tensor_shape(response.attention(0).weights()), (std::vector<int64_t>{3, 3}));
  }
}

TEST(EncodeResponseEncoderTest, RejectsAnOutputOfTheWrongSize) {
  EncodeInput input;
  input.tokens = 3;
  EncodeOutput output;
  output.output = ramp(12);
  v1::EncodeResponse response;
  EXPECT_TRUE(has_status(encode_encode_response(input, small_model(), std::move(output), &response),
                         StatusCode::kInternal,
                         {"output: the encoder returned 12 values for 3 tokens"}));
  EXPECT_FALSE(response.has_output());

  EncodeOutput patch_sized;  // attention over P = patch_count, not the request's L = 3
  patch_sized.output = ramp(18);
  patch_sized.attention = {block(0, 0)};
  EXPECT_TRUE(
      has_status(encode_encode_response(input, small_model(), std::move(patch_sized), &response),
                 StatusCode::kInternal, {"expected [H, P, P] with H = 2, P = 3"}));
  EXPECT_FALSE(response.has_output());
}

}  // namespace
}  // namespace tsserve::server
