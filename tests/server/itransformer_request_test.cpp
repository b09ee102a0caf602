// An iTransformer's request rules in both protocols' decoders (codec/common/
// sample_request.h): the N rule, required timestamps turned into TSLib's calendar
// rows (checked against the formulas written out here), one attention map per sample
// with named tokens, and the ModelInfer "timestamps" input.

#include <gtest/gtest.h>

#include "codec_test_support.h"
#include "oip_test_support.h"
#include "server/codec/oip/oip_request_decoder.h"
#include "server/codec/v1/forecast_request_decoder.h"

namespace tsserve::server::testing {
namespace {

constexpr int64_t kJuly1st2016 = 1467331200;  // 00:00 UTC, a Friday

// small_model() as an iTransformer: 3 variables (the scaler's a, b, c), T = 8, two hourly
// calendar features.
ModelShape small_itransformer() {
  ModelShape model = small_model();
  model.family = "iTransformer";
  model.unit = SampleUnit::kSample;
  model.patch_count = 0;
  model.map_sides.clear();
  model.enc_in = 3;
  model.time_inputs = TimeInputs::kFeatureTokens;
  model.calendar = {model::TimeFeature::kHourOfDay, model::TimeFeature::kDayOfWeek};
  return model;
}

v1::ForecastRequest request_of(int64_t variables, int64_t points) {
  v1::ForecastRequest request;
  *request.mutable_series() = values_tensor({variables, points}, ramp(variables * points));
  for (int64_t t = 0; t < points; ++t) request.add_timestamps(kJuly1st2016 + 3600 * t);
  return request;
}

Status decode(const v1::ForecastRequest& request, ForecastInput* out,
              const ModelShape& model = small_itransformer()) {
  return decode_forecast_request(request, model, RequestLimits{}, out);
}

TEST(ITransformerRequestTest, TheLastTTimestampsBecomeTslibsCalendarRows) {
  ForecastInput input;
  ASSERT_TRUE(decode(request_of(3, 10), &input).ok());  // T_in = 10: hours 2..9 are used
  ASSERT_EQ(input.calendar.size(), 2u * 8u);
  for (int t = 0; t < 8; ++t) {
    // TSLib: HourOfDay = hour / 23 - 0.5, DayOfWeek = dayofweek / 6 - 0.5 (Friday = 4).
    EXPECT_EQ(input.calendar[static_cast<size_t>(t)], static_cast<float>((2.0 + t) / 23.0 - 0.5));
    EXPECT_EQ(input.calendar[static_cast<size_t>(8 + t)], static_cast<float>(4.0 / 6.0 - 0.5));
  }
  EXPECT_EQ(input.series_rows, 3);
  EXPECT_FALSE(input.attention.enabled);
}

TEST(ITransformerRequestTest, NMustBeEncInUnlessTheConfigAllowsAny) {
  ForecastInput input;
  EXPECT_TRUE(invalid_argument(decode(request_of(2, 8), &input),
                               {"series: 2 variables (N in [N, T_in]", "exactly enc_in = 3"}));
  v1::ForecastRequest by_time = request_of(4, 8);
  by_time.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  *by_time.mutable_series() = values_tensor({8, 4}, ramp(32));
  EXPECT_TRUE(invalid_argument(decode(by_time, &input),
                               {"series: 4 variables (N in [T_in, N], layout TIME_BY_VARIABLES)"}));
  ModelShape any_n = small_itransformer();
  any_n.any_variable_count = true;
  EXPECT_TRUE(decode(request_of(2, 8), &input, any_n).ok());
  EXPECT_EQ(input.series_rows, 2);
}

TEST(ITransformerRequestTest, TimestampsAreRequiredForCalendarTokensOnly) {
  ForecastInput input;
  v1::ForecastRequest request = request_of(3, 8);
  request.clear_timestamps();
  EXPECT_TRUE(invalid_argument(decode(request, &input),
                               {"timestamps: required by this iTransformer", "HourOfDay, DayOfWeek",
                                "give 8 Unix seconds (UTC)"}));
  ModelShape plain = small_itransformer();
  plain.calendar.clear();
  plain.time_inputs = TimeInputs::kNone;
  EXPECT_TRUE(decode(request, &input, plain).ok());
  EXPECT_TRUE(input.calendar.empty());
  // PatchTST: none needed, none computed.
  EXPECT_TRUE(decode(request, &input, small_model()).ok());
  EXPECT_TRUE(input.calendar.empty());

  request = request_of(3, 8);
  request.set_timestamps(5, request.timestamps(4));
  EXPECT_TRUE(invalid_argument(decode(request, &input), {"timestamps: entry 5", "strictly increasing"}));
}

TEST(ITransformerRequestTest, AttentionIsOneMapPerLayerOverNamedTokens) {
  ForecastInput input;
  v1::ForecastRequest request = request_of(3, 8);
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->add_layers(2);
  ASSERT_TRUE(decode(request, &input).ok());
  EXPECT_EQ(input.attention.variables, (std::vector<int32_t>{0}));
  EXPECT_EQ(input.attention.layers, (std::vector<int32_t>{2}));
  EXPECT_EQ(input.attention_token_names,
            (std::vector<std::string>{"0", "1", "2", "HourOfDay", "DayOfWeek"}));
  for (const char* name : {"c", "a", "b"}) request.add_variable_names(name);
  ASSERT_TRUE(decode(request, &input).ok());
  EXPECT_EQ(input.attention_token_names,
            (std::vector<std::string>{"c", "a", "b", "HourOfDay", "DayOfWeek"}));
  request.mutable_attention()->add_variables(1);
  EXPECT_TRUE(invalid_argument(decode(request, &input),
                               {"attention.variables: must be empty for an iTransformer"}));
}

TEST(ITransformerRequestTest, ModelInferTakesTimestampsPerSample) {
  const ModelShape model = small_itransformer();
  inference::ModelInferRequest request = infer_request(2, 9, 3, ramp(2 * 9 * 3), false);
  ForecastInput input;
  OipReply reply;
  EXPECT_TRUE(invalid_argument(decode_model_infer_request(request, model, {}, &input, &reply),
                               {"inputs (\"timestamps\"): required by this iTransformer"}));
  auto* times = request.add_inputs();
  times->set_name("timestamps");
  times->set_datatype("INT64");
  times->add_shape(2);
  times->add_shape(9);
  for (int b = 0; b < 2; ++b) {  // the second sample a day later: a Saturday
    for (int t = 0; t < 9; ++t)
      times->mutable_contents()->add_int64_contents(kJuly1st2016 + 86400 * b + 3600 * t);
  }
  request_outputs(&request, {"forecast", "attention"});
  ASSERT_TRUE(decode_model_infer_request(request, model, {}, &input, &reply).ok());
  EXPECT_EQ(input.samples, 2);
  ASSERT_EQ(input.calendar.size(), 2u * 2u * 8u);
  EXPECT_EQ(input.calendar[8], static_cast<float>(4.0 / 6.0 - 0.5));       // sample 0, Friday
  EXPECT_EQ(input.calendar[16 + 8], static_cast<float>(5.0 / 6.0 - 0.5));  // sample 1, Saturday
  EXPECT_EQ(input.attention.variables, (std::vector<int32_t>{0, 1}));  // one map per sample

  times->set_datatype("FP32");
  EXPECT_TRUE(invalid_argument(decode_model_infer_request(request, model, {}, &input, &reply),
                               {"inputs[1] (\"timestamps\").datatype: \"FP32\"", "INT64"}));
  times->set_datatype("INT64");
  times->set_shape(1, 8);
  EXPECT_TRUE(invalid_argument(decode_model_infer_request(request, model, {}, &input, &reply),
                               {"inputs[1] (\"timestamps\").shape: [2, 8]", "expected [2, 9]"}));
}

}  // namespace
}  // namespace tsserve::server::testing
