// The input line (server/codec/common/input_magnitude.h): a series whose values the
// model's instance normalisation cannot take is refused, at the same line, naming the
// same variable, by tsserve.v1's Forecast and the Open Inference Protocol's ModelInfer.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "codec_test_support.h"
#include "oip_test_support.h"
#include "server/codec/oip/oip_request_decoder.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "tsserve/model/normalisation_limit.h"
#include "tsserve/model/standard_scaler.h"

namespace tsserve::server {
namespace {

using testing::infer_request;
using testing::invalid_argument;
using testing::ramp;
using testing::set_string_parameter;
using testing::small_model;
using testing::small_model_without_scaler;
using testing::values_tensor;

// The small model reads T = 8 points.
const float kLimit = model::largest_normalisable_magnitude(8);
const float kPast = std::nextafter(kLimit, INFINITY);

std::string printed(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

Status decode_v1(const v1::ForecastRequest& request, const ModelShape& model) {
  ForecastInput input;
  return decode_forecast_request(request, model, {}, &input);
}

Status decode_oip(const inference::ModelInferRequest& request, const ModelShape& model) {
  ForecastInput input;
  OipReply reply;
  return decode_model_infer_request(request, model, {}, &input, &reply);
}

// Three variables of 8 points, [N, T], with `value` at variable 1's last point.
v1::ForecastRequest v1_request(float value) {
  std::vector<float> data = ramp(3 * 8);
  data[8 + 7] = value;
  v1::ForecastRequest request;
  *request.mutable_series() = values_tensor({3, 8}, data);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  return request;
}

TEST(NormalisationLimitTest, ReadsAsThreeDigitsAndShrinksWithSeqLen) {
  // sqrt(FLT_MAX / (32 T)) / exp(T / 2^24)^3, rounded down to three digits.
  EXPECT_EQ(printed(model::largest_normalisable_magnitude(8)), "1.15e+18");
  EXPECT_EQ(printed(model::largest_normalisable_magnitude(336)), "1.77e+17");
  EXPECT_EQ(printed(model::largest_normalisable_magnitude(720)), "1.21e+17");
  EXPECT_LE(static_cast<double>(model::largest_normalisable_magnitude(336)), 1.77e17);
  EXPECT_GT(model::largest_normalisable_magnitude(96), model::largest_normalisable_magnitude(336));
}

TEST(InputMagnitudeTest, V1AcceptsTheLineAndRefusesJustPastItNamingTheVariable) {
  const ModelShape model = small_model_without_scaler();
  EXPECT_TRUE(decode_v1(v1_request(kLimit), model).ok());
  EXPECT_TRUE(decode_v1(v1_request(-kLimit), model).ok());
  EXPECT_TRUE(invalid_argument(decode_v1(v1_request(kPast), model),
                               {"series: value at [1, 7] (variable 1) is " + printed(kPast),
                                "the model (seq_len 8) takes magnitudes up to 1.15e+18",
                                "instance normalisation overflows float32"}));
  v1::ForecastRequest named = v1_request(-kPast);
  for (const char* name : {"HUFL", "OT", "x"}) named.add_variable_names(name);
  EXPECT_TRUE(invalid_argument(decode_v1(named, model),
                               {"series: value at [1, 7] (variable \"OT\") is -1.15"}));
  // The reported case: every value 3e38.
  v1::ForecastRequest flat;
  *flat.mutable_series() = values_tensor({1, 8}, std::vector<float>(8, 3e38f));
  EXPECT_TRUE(
      invalid_argument(decode_v1(flat, model), {"series: value at [0, 0] (variable 0) is 3e+38"}));
}

TEST(InputMagnitudeTest, TimeByVariablesNamesTheSentPosition) {
  std::vector<float> data = ramp(8 * 3);  // [T, N]
  data[5 * 3 + 2] = kPast;
  v1::ForecastRequest request;
  *request.mutable_series() = values_tensor({8, 3}, data);
  request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  EXPECT_TRUE(invalid_argument(decode_v1(request, small_model()),
                               {"series: value at [5, 2] (variable 2)"}));
}

TEST(InputMagnitudeTest, PointsTheModelDoesNotReadMayExceedTheLine) {
  std::vector<float> data = ramp(3 * 10);  // T_in = 10: the first 2 points are skipped
  data[10 + 1] = 3e38f;
  v1::ForecastRequest request;
  *request.mutable_series() = values_tensor({3, 10}, data);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  EXPECT_TRUE(decode_v1(request, small_model()).ok());
  data[10 + 2] = 3e38f;  // the first point read
  *request.mutable_series() = values_tensor({3, 10}, data);
  EXPECT_TRUE(invalid_argument(decode_v1(request, small_model()), {"value at [1, 2]"}));
}

// The line holds in the model's space: variable b (mean -2, std 0.5) doubles its values,
// so half the limit in the data's units is at the line.
TEST(InputMagnitudeTest, AScaledSeriesIsJudgedOnceScaledAndToldItsRange) {
  const ModelShape model = small_model();
  const double at_line = static_cast<double>(kLimit) * 0.5 - 2.0;  // scales to kLimit
  v1::ForecastRequest request = v1_request(static_cast<float>(at_line));
  request.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
  const float scaled = model::ScalerColumn{-2.0, 0.5}.scale(static_cast<float>(at_line));
  ASSERT_LE(scaled, kLimit);
  EXPECT_TRUE(decode_v1(request, model).ok());
  const float past = std::nextafter(static_cast<float>(at_line), INFINITY);
  request = v1_request(past);
  request.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
  EXPECT_TRUE(invalid_argument(
      decode_v1(request, model),
      {"series: value at [1, 7] (variable 1) is " + printed(past),
       "once scaled by scaler column \"b\" (mean -2, std 0.5)", "takes magnitudes up to 1.15e+18",
       "values from " + printed(-2.0 - 0.5 * kLimit) + " to " + printed(-2.0 + 0.5 * kLimit) +
           " in the data's units",
       "or SCALER_MODE_NONE"}));
  request.set_scaler_mode(v1::SCALER_MODE_NONE);  // unscaled it is within the line
  EXPECT_TRUE(decode_v1(request, model).ok());
}

TEST(InputMagnitudeTest, OipAcceptsTheLineAndRefusesJustPastItInItsOwnNames) {
  const ModelShape model = small_model();
  std::vector<float> data = ramp(2 * 8 * 3);  // [B = 2, T = 8, N = 3]
  data[8 * 3 + 7 * 3 + 2] = -kLimit;          // sample 1, last point, variable 2
  EXPECT_TRUE(decode_oip(infer_request(2, 8, 3, data), model).ok());
  data[8 * 3 + 7 * 3 + 2] = -kPast;
  inference::ModelInferRequest request = infer_request(2, 8, 3, data, /*raw=*/true);
  EXPECT_TRUE(invalid_argument(
      decode_oip(request, model),
      {"inputs[0] (\"series\"): value at [1, 7, 2] (variable 2) is " + printed(-kPast),
       "takes magnitudes up to 1.15e+18"}));
  // Scaled: b (std 0.5) doubles 0.75 x the limit past it; unscaled it would pass.
  data[8 * 3 + 7 * 3 + 2] = 1.0f;
  data[8 * 3 + 7 * 3 + 1] = 0.75f * kLimit;
  request = infer_request(2, 8, 3, data);
  set_string_parameter(&request, "variable_names", "a,b,c");
  set_string_parameter(&request, "scaler_mode", "required");
  EXPECT_TRUE(invalid_argument(
      decode_oip(request, model),
      {"inputs[0] (\"series\"): value at [1, 7, 1] (variable \"b\")",
       "once scaled by scaler column \"b\"", "or parameter scaler_mode \"none\""}));
}

}  // namespace
}  // namespace tsserve::server
