#include "server/codec/oip/oip_request_decoder.h"

#include <gtest/gtest.h>

#include <limits>

#include "oip_test_support.h"
#include "server/codec/v1/forecast_request_decoder.h"

namespace tsserve::server {
namespace {

using testing::has_status;
using testing::infer_request;
using testing::invalid_argument;
using testing::ramp;
using testing::request_outputs;
using testing::set_string_parameter;
using testing::small_model;
using testing::small_model_without_scaler;

Status decode(const inference::ModelInferRequest& request, ForecastInput* input, OipReply* reply,
              const ModelShape& model = small_model(), RequestLimits limits = {}) {
  return decode_model_infer_request(request, model, limits, input, reply);
}

Status decode(const inference::ModelInferRequest& request) {
  ForecastInput input;
  OipReply reply;
  return decode(request, &input, &reply);
}

// The model's rows for [B, T_in, N] data, computed here by index: row b * N + n holds the
// last `used` points of variable n of sample b.
std::vector<float> expected_rows(const std::vector<float>& data, int64_t samples, int64_t points,
                                 int64_t variables, int64_t used) {
  std::vector<float> rows;
  for (int64_t b = 0; b < samples; ++b) {
    for (int64_t n = 0; n < variables; ++n) {
      for (int64_t t = points - used; t < points; ++t) {
        rows.push_back(data[static_cast<std::size_t>((b * points + t) * variables + n)]);
      }
    }
  }
  return rows;
}

TEST(OipRequestDecoderTest, BatchOfSamplesBecomesRowsSampleMajor) {
  const std::vector<float> data = ramp(2 * 10 * 3);
  for (bool raw : {false, true}) {
    SCOPED_TRACE(raw ? "raw_input_contents" : "fp32_contents");
    ForecastInput input;
    OipReply reply;
    ASSERT_TRUE(decode(infer_request(2, 10, 3, data, raw), &input, &reply).ok());
    EXPECT_EQ(input.series_rows, 6);
    EXPECT_EQ(input.samples, 2);
    EXPECT_FALSE(input.variables_by_time);
    EXPECT_EQ(input.input_points_used, 8);
    EXPECT_FALSE(input.scaler_applied);
    EXPECT_EQ(input.rows, expected_rows(data, 2, 10, 3, 8));
    EXPECT_EQ(reply.raw, raw);
    EXPECT_EQ(reply.outputs, std::vector<OipOutput>{OipOutput::kForecast});
    EXPECT_FALSE(input.attention.enabled);
  }
}

// One sample [1, T, N] is tsserve.v1's [T, N] layout: both decoders agree on everything,
// scaler and names included, because they share the series code.
TEST(OipRequestDecoderTest, OneSampleDecodesLikeTheV1TimeByVariablesLayout) {
  const std::vector<float> data = ramp(9 * 3, -4.0f);
  inference::ModelInferRequest oip = infer_request(1, 9, 3, data);
  set_string_parameter(&oip, "scaler_mode", "required");
  set_string_parameter(&oip, "variable_names", "c, a,b");
  v1::ForecastRequest v1_request;
  *v1_request.mutable_series() = testing::values_tensor({9, 3}, data);
  v1_request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  v1_request.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
  for (const char* name : {"c", "a", "b"}) v1_request.add_variable_names(name);

  ForecastInput from_oip;
  OipReply reply;
  ASSERT_TRUE(decode(oip, &from_oip, &reply).ok());
  ForecastInput from_v1;
  ASSERT_TRUE(decode_forecast_request(v1_request, small_model(), {}, &from_v1).ok());
  EXPECT_EQ(from_oip.rows, from_v1.rows);
  EXPECT_TRUE(from_oip.scaler_applied);
  EXPECT_EQ(from_oip.scaler_column, (std::vector<int32_t>{2, 0, 1}));
  EXPECT_EQ(from_oip.scaler_column, from_v1.scaler_column);
  EXPECT_EQ(from_oip.series_rows, from_v1.series_rows);
}

TEST(OipRequestDecoderTest, ScalerColumnsRepeatForEverySample) {
  inference::ModelInferRequest request = infer_request(2, 8, 3, ramp(48));
  request.mutable_parameters()->erase("scaler_mode");  // auto: 3 unnamed variables = 3 columns
  ForecastInput input;
  OipReply reply;
  ASSERT_TRUE(decode(request, &input, &reply).ok());
  EXPECT_TRUE(input.scaler_applied);
  EXPECT_EQ(input.scaler_column, (std::vector<int32_t>{0, 1, 2, 0, 1, 2}));
}

TEST(OipRequestDecoderTest, AttentionOutputSelectsLayersAndVariablesOfEverySample) {
  inference::ModelInferRequest request = infer_request(2, 8, 3, ramp(48));
  request_outputs(&request, {"attention", "forecast"});
  set_string_parameter(&request, "attention_layers", "2,0");
  (*request.mutable_parameters())["attention_variables"].set_int64_param(1);
  (*request.mutable_parameters())["attention_average_heads"].set_bool_param(true);
  request.set_id("abc-1");
  ForecastInput input;
  OipReply reply;
  ASSERT_TRUE(decode(request, &input, &reply).ok());
  EXPECT_EQ(reply.outputs, (std::vector<OipOutput>{OipOutput::kAttention, OipOutput::kForecast}));
  EXPECT_EQ(reply.id, "abc-1");
  EXPECT_EQ(input.request_id, "abc-1");
  ASSERT_TRUE(input.attention.enabled);
  EXPECT_EQ(input.attention.layers, (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(input.attention.variables, (std::vector<int32_t>{1, 4}));
  EXPECT_TRUE(input.attention.average_heads);
}

TEST(OipRequestDecoderTest, AttentionOptionsWithoutTheAttentionOutputSelectNothing) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  set_string_parameter(&request, "attention_layers", "1");
  ForecastInput input;
  OipReply reply;
  ASSERT_TRUE(decode(request, &input, &reply).ok());
  EXPECT_FALSE(input.attention.enabled);
  EXPECT_EQ(reply.outputs, std::vector<OipOutput>{OipOutput::kForecast});
}

TEST(OipRequestDecoderTest, WrongDatatypeNamesTheInputAndFp32) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  request.mutable_inputs(0)->set_datatype("FP64");
  EXPECT_TRUE(
      invalid_argument(decode(request), {"inputs[0] (\"series\").datatype", "\"FP64\"", "FP32"}));
}

TEST(OipRequestDecoderTest, WrongRankAndNegativeDimensionsAreRefused) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  request.mutable_inputs(0)->mutable_shape()->RemoveLast();
  EXPECT_TRUE(invalid_argument(
      decode(request), {"inputs[0] (\"series\").shape", "3 dimensions [B, T, N]", "got 2"}));
  request = infer_request(1, 8, 3, ramp(24));
  request.mutable_inputs(0)->set_shape(2, -3);
  EXPECT_TRUE(invalid_argument(decode(request), {"dimension 2 of [1, 8, -3] is negative"}));
}

TEST(OipRequestDecoderTest, DataThatDoesNotFillTheShapeIsRefused) {
  inference::ModelInferRequest raw = infer_request(1, 8, 3, ramp(24), true);
  raw.mutable_raw_input_contents(0)->resize(95);
  EXPECT_TRUE(invalid_argument(
      decode(raw), {"raw_input_contents[0]: 95 bytes", "[1, 8, 3]", "24 elements", "96 bytes"}));
  inference::ModelInferRequest typed = infer_request(1, 8, 3, ramp(23));
  EXPECT_TRUE(invalid_argument(decode(typed), {"inputs[0] (\"series\").contents.fp32_contents",
                                               "23 values", "24 elements"}));
  inference::ModelInferRequest empty = infer_request(1, 8, 3, {});
  EXPECT_TRUE(
      invalid_argument(decode(empty), {"0 values", "send fp32_contents or raw_input_contents"}));
}

TEST(OipRequestDecoderTest, ContentsOfAnotherTypeOrBesideRawBytesAreRefused) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, {});
  for (int i = 0; i < 24; ++i) request.mutable_inputs(0)->mutable_contents()->add_int64_contents(i);
  EXPECT_TRUE(invalid_argument(decode(request), {"int64_contents is set", "fp32_contents"}));

  inference::ModelInferRequest both = infer_request(1, 8, 3, ramp(24), true);
  both.mutable_inputs(0)->mutable_contents()->add_fp32_contents(1.0f);
  EXPECT_TRUE(
      invalid_argument(decode(both), {"inputs[0] (\"series\").contents", "raw_input_contents"}));

  inference::ModelInferRequest extra = infer_request(1, 8, 3, ramp(24), true);
  extra.add_raw_input_contents("abcd");
  EXPECT_TRUE(invalid_argument(decode(extra), {"raw_input_contents: 2 entries for 1 input"}));
}

TEST(OipRequestDecoderTest, UnknownMissingOrRepeatedInputsAreRefused) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  request.mutable_inputs(0)->set_name("x");
  EXPECT_TRUE(
      invalid_argument(decode(request), {"inputs[0]: unknown input \"x\"", "\"series\" FP32"}));
  request.clear_inputs();
  EXPECT_TRUE(invalid_argument(decode(request), {"inputs: empty", "T >= 8"}));
  request = infer_request(1, 8, 3, ramp(24));
  *request.add_inputs() = request.inputs(0);
  EXPECT_TRUE(invalid_argument(decode(request), {"inputs[1]: \"series\" is given twice"}));
}

TEST(OipRequestDecoderTest, SeriesRulesAreTheV1RulesNamedForThisInput) {
  // Too short.
  EXPECT_TRUE(invalid_argument(
      decode(infer_request(1, 7, 3, ramp(21))),
      {"inputs[0] (\"series\"): each variable has 7 points", "at least 8 (seq_len"}));
  // Too many rows: B x N over max_batch_rows.
  ForecastInput input;
  OipReply reply;
  RequestLimits limits;
  limits.max_series_rows = 5;
  EXPECT_TRUE(invalid_argument(
      decode(infer_request(2, 8, 3, ramp(48)), &input, &reply, small_model(), limits),
      {"2 samples x 3 variables = 6 series rows", "at most 5"}));
  // No samples, no variables.
  EXPECT_TRUE(invalid_argument(decode(infer_request(0, 8, 3, {})), {"no samples (B = 0"}));
  EXPECT_TRUE(invalid_argument(decode(infer_request(1, 8, 0, {})), {"no variables (N = 0"}));
  // NaN, located in the series as sent.
  std::vector<float> data = ramp(2 * 8 * 3);
  data[(1 * 8 + 3) * 3 + 2] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(invalid_argument(decode(infer_request(2, 8, 3, data, true)),
                               {"inputs[0] (\"series\"): value at [1, 3, 2] is NaN"}));
}

TEST(OipRequestDecoderTest, NamedVariableOfANonFiniteValueIsReported) {
  std::vector<float> data = ramp(2 * 8 * 3);
  data[(1 * 8 + 0) * 3 + 1] = std::numeric_limits<float>::infinity();
  inference::ModelInferRequest request = infer_request(2, 8, 3, data);
  set_string_parameter(&request, "variable_names", "a,b,c");
  EXPECT_TRUE(
      invalid_argument(decode(request), {"value at [1, 0, 1] (variable \"b\") is infinity"}));
}

TEST(OipRequestDecoderTest, OutputsMustBeKnownAndListedOnce) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  request_outputs(&request, {"forecast", "probabilities"});
  EXPECT_TRUE(invalid_argument(decode(request), {"outputs[1]: unknown output \"probabilities\"",
                                                 "\"forecast\" and \"attention\""}));
  request.clear_outputs();
  request_outputs(&request, {"attention", "attention"});
  EXPECT_TRUE(invalid_argument(decode(request), {"outputs[1]: \"attention\" is listed twice"}));
}

TEST(OipRequestDecoderTest, ParametersAreCheckedByNameAndType) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  set_string_parameter(&request, "priority", "1");
  EXPECT_TRUE(invalid_argument(decode(request), {"parameters[\"priority\"]: unknown parameter",
                                                 "scaler_mode, variable_names"}));
  request = infer_request(1, 8, 3, ramp(24));
  (*request.mutable_parameters())["scaler_mode"].set_bool_param(true);
  EXPECT_TRUE(invalid_argument(decode(request), {"parameters[\"scaler_mode\"]: got bool_param",
                                                 "\"auto\", \"none\" or \"required\""}));
  request = infer_request(1, 8, 3, ramp(24));
  set_string_parameter(&request, "scaler_mode", "sometimes");
  EXPECT_TRUE(invalid_argument(decode(request), {"\"sometimes\"; expected \"auto\""}));
  request = infer_request(1, 8, 3, ramp(24));
  set_string_parameter(&request, "attention_layers", "0,x");
  EXPECT_TRUE(invalid_argument(
      decode(request), {"parameters[\"attention_layers\"]", "\"0,x\"", "comma-separated indices"}));
  request = infer_request(1, 8, 3, ramp(24));
  request_outputs(&request, {"attention"});
  set_string_parameter(&request, "attention_layers", "5");
  EXPECT_TRUE(invalid_argument(decode(request),
                               {"parameters[\"attention_layers\"]: layer 5 is out of range 0..2"}));
  request = infer_request(1, 8, 3, ramp(24));
  set_string_parameter(&request, "variable_names", "a,a,b");
  EXPECT_TRUE(
      invalid_argument(decode(request), {"parameters[\"variable_names\"]: \"a\" is repeated"}));
}

TEST(OipRequestDecoderTest, RequiredScalerOnAModelWithoutOneIsAFailedPrecondition) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  set_string_parameter(&request, "scaler_mode", "required");
  ForecastInput input;
  OipReply reply;
  EXPECT_TRUE(has_status(decode(request, &input, &reply, small_model_without_scaler()),
                         StatusCode::kFailedPrecondition, {"no dataset scaler"}));
}

// Scaler refusals name what an OIP client sent (its parameters, "required"), not
// tsserve.v1's fields and enum values. Found by tests/fuzz (oip_request).
TEST(OipRequestDecoderTest, ScalerRefusalsNameTheProtocolsParameters) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  set_string_parameter(&request, "scaler_mode", "required");
  ForecastInput input;
  OipReply reply;
  EXPECT_TRUE(has_status(decode(request, &input, &reply, small_model_without_scaler()),
                         StatusCode::kFailedPrecondition,
                         {"parameters[\"scaler_mode\"]: scaler_mode \"required\", but model",
                          "send scaler_mode \"none\" or leave it unspecified"}));
  set_string_parameter(&request, "variable_names", "a,zz,c");
  EXPECT_TRUE(invalid_argument(
      decode(request), {"parameters[\"variable_names\"]: \"zz\" (variable 1) is not a column",
                        "scaler_mode \"required\" needs every name"}));
  request = infer_request(1, 8, 2, ramp(16));
  set_string_parameter(&request, "scaler_mode", "required");
  EXPECT_TRUE(
      invalid_argument(decode(request), {"inputs[0] (\"series\"): 2 unnamed variables",
                                         "needs parameters[\"variable_names\"] from its columns"}));
}

// Every scaler refusal an OIP client can meet names OIP's fields and spellings
// (inputs[0], parameters["..."], "required", "none"), never tsserve.v1's.
TEST(OipRequestDecoderTest, ScalerRefusalsNeverUseTsserveV1Names) {
  const auto refusal = [](const std::vector<float>& data, int64_t variables, const char* mode,
                          const char* names, const ModelShape& model) {
    inference::ModelInferRequest request = infer_request(1, 8, variables, data);
    set_string_parameter(&request, "scaler_mode", mode);
    if (names != nullptr) set_string_parameter(&request, "variable_names", names);
    ForecastInput input;
    OipReply reply;
    return decode_model_infer_request(request, model, {}, &input, &reply);
  };
  std::vector<float> overflowing = ramp(24);
  overflowing[3 * 6 + 1] = 3.0e38f;  // variable 1 ("b", std 0.5) at point 6
  const std::vector<Status> refusals = {
      refusal(ramp(24), 3, "required", nullptr, small_model_without_scaler()),
      refusal(ramp(24), 3, "required", "a,zz,c", small_model()),
      refusal(ramp(16), 2, "required", nullptr, small_model()),
      refusal(overflowing, 3, "required", nullptr, small_model()),
  };
  for (const Status& status : refusals) {
    ASSERT_FALSE(status.ok());
    const std::string& message = status.message();
    EXPECT_TRUE(message.rfind("inputs[0] (\"series\")", 0) == 0 ||
                message.rfind("parameters[\"", 0) == 0)
        << message;
    EXPECT_EQ(message.find("SCALER_MODE"), std::string::npos) << message;
  }
  EXPECT_TRUE(invalid_argument(
      refusals[3], {"inputs[0] (\"series\"): value at [0, 6, 1] is 3e+38", "beyond float range",
                    "or parameter scaler_mode \"none\""}));
}

// Shapes whose products overflow int64 arithmetic (found by tests/fuzz, oip_request) are
// refused with a message, not computed with undefined behaviour.
TEST(OipRequestDecoderTest, ShapesBeyondInt64ArithmeticAreRefused) {
  // 2^62 elements fit int64, their 2^64 bytes do not.
  EXPECT_TRUE(
      invalid_argument(decode(infer_request(int64_t{1} << 62, 1, 1, {}, true)),
                       {"raw_input_contents[0]: 0 bytes", "more bytes than a message can carry"}));
  // No data at all (T_in = 0), but B * N = 2^64 series rows.
  EXPECT_TRUE(invalid_argument(decode(infer_request(int64_t{1} << 32, 0, int64_t{1} << 32, {})),
                               {"4294967296 samples x 4294967296 variables = more than 2^63"}));
}

TEST(OipRequestDecoderTest, TensorParametersAndBadIdsAreRefused) {
  inference::ModelInferRequest request = infer_request(1, 8, 3, ramp(24));
  (*request.mutable_inputs(0)->mutable_parameters())["shared_memory_region"].set_string_param("r");
  EXPECT_TRUE(invalid_argument(
      decode(request), {"inputs[0] (\"series\").parameters", "shared memory is not supported"}));
  request = infer_request(1, 8, 3, ramp(24));
  request.set_id(std::string("a\nb"));
  EXPECT_TRUE(invalid_argument(decode(request), {"id: byte 1 is 0x0a"}));
}

}  // namespace
}  // namespace tsserve::server
