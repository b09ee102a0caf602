#include "server/codec/v1/forecast_request_decoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "codec_test_support.h"

namespace tsserve::server {
namespace {

using testing::has_status;
using testing::invalid_argument;
using testing::ramp;
using testing::raw_tensor;
using testing::small_model;
using testing::small_model_without_scaler;
using testing::transpose;
using testing::values_tensor;

using testing::kInf;
using testing::kNaN;

// N variables of T_in points, [N, T_in], scaler off unless a test turns it on.
v1::ForecastRequest by_variable(int64_t n, int64_t t_in, const std::vector<float>& data,
                                bool raw = false) {
  v1::ForecastRequest request;
  *request.mutable_series() = raw ? raw_tensor({n, t_in}, data) : values_tensor({n, t_in}, data);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  return request;
}

// The same numbers sent as [T_in, N].
v1::ForecastRequest by_time(int64_t n, int64_t t_in, const std::vector<float>& data,
                            bool raw = false) {
  const std::vector<float> columns = transpose(data, n, t_in);
  v1::ForecastRequest request;
  *request.mutable_series() =
      raw ? raw_tensor({t_in, n}, columns) : values_tensor({t_in, n}, columns);
  request.set_layout(v1::SERIES_LAYOUT_TIME_BY_VARIABLES);
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  return request;
}

Status decode(const v1::ForecastRequest& request, ForecastInput* out,
              const ModelShape& model = small_model(), RequestLimits limits = {}) {
  return decode_forecast_request(request, model, limits, out);
}

// The last `used` points of each of `n` rows of length `t_in`.
std::vector<float> last_points(const std::vector<float>& data, int64_t n, int64_t t_in,
                               int64_t used) {
  std::vector<float> out;
  for (int64_t v = 0; v < n; ++v) {
    out.insert(out.end(), data.begin() + v * t_in + (t_in - used), data.begin() + (v + 1) * t_in);
  }
  return out;
}

TEST(ForecastRequestDecoderTest, DecodesExactlyTSeriesRows) {
  const std::vector<float> data = ramp(2 * 8);
  ForecastInput input;
  ASSERT_TRUE(decode(by_variable(2, 8, data), &input).ok());
  EXPECT_EQ(input.series_rows, 2);
  EXPECT_EQ(input.rows, data);
  EXPECT_EQ(input.input_points_used, 8);
  EXPECT_FALSE(input.scaler_applied);
  EXPECT_TRUE(input.variables_by_time);
  EXPECT_FALSE(input.attention.enabled);
  EXPECT_FALSE(input.raw_output);
}

TEST(ForecastRequestDecoderTest, ValuesAndRawGiveIdenticalRows) {
  const std::vector<float> data = ramp(3 * 11, -4.0f);
  for (bool time_layout : {false, true}) {
    ForecastInput packed;
    ForecastInput raw;
    ASSERT_TRUE(
        decode(time_layout ? by_time(3, 11, data) : by_variable(3, 11, data), &packed).ok());
    ASSERT_TRUE(
        decode(time_layout ? by_time(3, 11, data, true) : by_variable(3, 11, data, true), &raw)
            .ok());
    EXPECT_EQ(packed.rows, raw.rows);
    EXPECT_EQ(packed.rows, last_points(data, 3, 11, 8));
  }
}

TEST(ForecastRequestDecoderTest, TimeByVariablesGivesTheSameRowsAndRemembersTheLayout) {
  const std::vector<float> data = ramp(5 * 8, 100.0f);
  ForecastInput variables_first;
  ForecastInput time_first;
  ASSERT_TRUE(decode(by_variable(5, 8, data), &variables_first).ok());
  ASSERT_TRUE(decode(by_time(5, 8, data), &time_first).ok());
  EXPECT_EQ(variables_first.rows, time_first.rows);
  EXPECT_EQ(time_first.series_rows, 5);
  EXPECT_TRUE(variables_first.variables_by_time);
  EXPECT_FALSE(time_first.variables_by_time);
}

TEST(ForecastRequestDecoderTest, LongerSeriesUseTheLastTPoints) {
  const std::vector<float> data = ramp(3 * 20);
  for (bool time_layout : {false, true}) {
    ForecastInput input;
    ASSERT_TRUE(decode(time_layout ? by_time(3, 20, data) : by_variable(3, 20, data), &input).ok());
    EXPECT_EQ(input.input_points_used, 8);
    ASSERT_EQ(input.rows.size(), 24u);
    EXPECT_EQ(input.rows, last_points(data, 3, 20, 8));
    EXPECT_EQ(input.rows.front(), data[12]);  // variable 0, point 12 of 20
  }
}

TEST(ForecastRequestDecoderTest, RejectsTooFewPoints) {
  ForecastInput input;
  EXPECT_TRUE(invalid_argument(decode(by_variable(2, 5, ramp(10)), &input),
                               {"series: each variable has 5 points", "needs at least 8"}));
  EXPECT_TRUE(invalid_argument(decode(by_time(2, 7, ramp(14)), &input),
                               {"each variable has 7 points", "at least 8", "[T_in, N]"}));
  EXPECT_TRUE(
      invalid_argument(decode(by_variable(2, 0, {}), &input), {"each variable has 0 points"}));
}

TEST(ForecastRequestDecoderTest, RejectsNoVariables) {
  ForecastInput input;
  EXPECT_TRUE(invalid_argument(decode(by_variable(0, 8, {}), &input),
                               {"series: no variables (N = 0", "at least one"}));
  EXPECT_TRUE(
      invalid_argument(decode(by_time(0, 8, {}), &input), {"no variables (N = 0 in [T_in, N]"}));
  EXPECT_TRUE(invalid_argument(decode(v1::ForecastRequest(), &input),
                               {"series.shape: expected 2 dimensions [N, T_in], got 0"}));
}

TEST(ForecastRequestDecoderTest, RejectsMoreVariablesThanABatch) {
  RequestLimits limits;
  limits.max_series_rows = 4;
  ForecastInput input;
  EXPECT_TRUE(decode(by_variable(4, 8, ramp(32)), &input, small_model(), limits).ok());
  EXPECT_TRUE(invalid_argument(decode(by_variable(5, 8, ramp(40)), &input, small_model(), limits),
                               {"series: 5 variables", "at most 4 (max_batch_rows"}));
}

TEST(ForecastRequestDecoderTest, RejectsTensorRuleBreaks) {
  ForecastInput input;
  v1::ForecastRequest both = by_variable(1, 8, ramp(8));
  both.mutable_series()->set_raw_values(testing::little_endian_bytes(ramp(8)));
  EXPECT_TRUE(invalid_argument(decode(both, &input), {"series: both values and raw_values"}));
  EXPECT_TRUE(invalid_argument(decode(by_variable(2, 8, ramp(15)), &input),
                               {"series: shape [2, 8] has 16 elements but values has 15"}));
  v1::ForecastRequest rank3 = by_variable(2, 8, ramp(16));
  rank3.mutable_series()->add_shape(1);
  EXPECT_TRUE(invalid_argument(decode(rank3, &input),
                               {"series.shape: expected 2 dimensions [N, T_in], got 3"}));
  EXPECT_TRUE(invalid_argument(decode(by_variable(-2, -8, ramp(16)), &input),
                               {"series.shape: dimension 0 of [-2, -8] is negative"}));
}

TEST(ForecastRequestDecoderTest, RejectsNonFiniteValuesAtTheFirstPosition) {
  for (bool raw : {false, true}) {
    std::vector<float> data = ramp(3 * 10);
    data[2 * 10 + 1] = kInf;  // [2, 1]
    data[1 * 10 + 7] = kNaN;  // [1, 7]: first in row-major order
    ForecastInput input;
    EXPECT_TRUE(invalid_argument(decode(by_variable(3, 10, data, raw), &input),
                                 {"series: value at [1, 7] is NaN; values must be finite"}));
  }
  std::vector<float> data = ramp(2 * 8);
  data[5] = -kInf;
  ForecastInput input;
  EXPECT_TRUE(
      invalid_argument(decode(by_variable(2, 8, data), &input), {"value at [0, 5] is -infinity"}));
}

TEST(ForecastRequestDecoderTest, ReportsPositionsInTheLayoutSent) {
  std::vector<float> data = ramp(3 * 9);
  data[1 * 9 + 4] = kNaN;  // variable 1, point 4: [4, 1] in a [T_in, N] tensor
  ForecastInput input;
  EXPECT_TRUE(invalid_argument(decode(by_time(3, 9, data), &input), {"value at [4, 1] is NaN"}));
}

TEST(ForecastRequestDecoderTest, RejectsNonFiniteValuesInTheIgnoredEarlierPoints) {
  std::vector<float> data = ramp(2 * 12);
  data[12 + 2] = kNaN;  // variable 1, point 2 of 12: the model would see only 4..11
  ForecastInput input;
  EXPECT_TRUE(
      invalid_argument(decode(by_variable(2, 12, data), &input), {"value at [1, 2] is NaN"}));
  EXPECT_TRUE(invalid_argument(decode(by_time(2, 12, data), &input), {"value at [2, 1] is NaN"}));
  v1::ForecastRequest scaled = by_variable(2, 12, data);
  scaled.set_scaler_mode(v1::SCALER_MODE_UNSPECIFIED);
  scaled.add_variable_names("a");
  scaled.add_variable_names("b");
  EXPECT_TRUE(
      invalid_argument(decode(scaled, &input), {"value at [1, 2] (variable \"b\") is NaN"}));
}

TEST(ForecastRequestDecoderTest, NamesTheVariableOfANonFiniteValue) {
  std::vector<float> data = ramp(2 * 8);
  data[8 + 3] = kNaN;
  v1::ForecastRequest request = by_variable(2, 8, data);
  request.add_variable_names("load");
  request.add_variable_names("temperature");
  ForecastInput input;
  EXPECT_TRUE(invalid_argument(decode(request, &input),
                               {"value at [1, 3] (variable \"temperature\") is NaN"}));
}

TEST(ForecastRequestDecoderTest, AppliesTheScalerByPosition) {
  const ModelShape model = small_model();
  const std::vector<float> data = ramp(3 * 10, -5.0f);
  for (bool time_layout : {false, true}) {
    v1::ForecastRequest request = time_layout ? by_time(3, 10, data) : by_variable(3, 10, data);
    request.set_scaler_mode(v1::SCALER_MODE_UNSPECIFIED);
    ForecastInput input;
    ASSERT_TRUE(decode(request, &input, model).ok());
    EXPECT_TRUE(input.scaler_applied);
    EXPECT_EQ(input.scaler_column, (std::vector<int32_t>{0, 1, 2}));
    const std::vector<float> used = last_points(data, 3, 10, 8);
    for (std::size_t i = 0; i < used.size(); ++i) {
      const std::size_t c = i / 8;
      const auto expected = static_cast<float>(
          (static_cast<double>(used[i]) - model.scaler_mean[c]) / model.scaler_std[c]);
      ASSERT_EQ(input.rows[i], expected) << "element " << i;
    }
  }
}

TEST(ForecastRequestDecoderTest, ScalesInDoubleThenRoundsToFloat) {
  // Statistics that float cannot hold exactly, so scaling in float would round differently.
  ModelShape model = small_model();
  model.scaler_mean = {0.1, 12345.678, -1e-3};
  model.scaler_std = {0.3, 0.011, 7.77};
  model.seq_len = 11;  // not a multiple of the scaling loop's block
  std::vector<float> data(3 * 11);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = 0.37f * static_cast<float>(i) - 2.1f;
  for (bool time_layout : {false, true}) {
    v1::ForecastRequest request = time_layout ? by_time(3, 11, data) : by_variable(3, 11, data);
    request.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
    ForecastInput input;
    ASSERT_TRUE(decode(request, &input, model).ok());
    int differs_from_float_math = 0;
    for (std::size_t i = 0; i < data.size(); ++i) {
      const double mean = model.scaler_mean[i / 11];
      const double stdev = model.scaler_std[i / 11];
      ASSERT_EQ(input.rows[i], static_cast<float>((static_cast<double>(data[i]) - mean) / stdev))
          << i;
      const float in_float = (data[i] - static_cast<float>(mean)) / static_cast<float>(stdev);
      if (in_float != input.rows[i]) ++differs_from_float_math;
    }
    EXPECT_GT(differs_from_float_math, 0);  // the case above tells the two apart
  }
}

TEST(ForecastRequestDecoderTest, AppliesTheScalerByName) {
  const ModelShape model = small_model();
  const std::vector<float> data = ramp(2 * 8, 3.0f);
  v1::ForecastRequest request = by_variable(2, 8, data);
  request.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
  request.add_variable_names("c");
  request.add_variable_names("a");
  ForecastInput input;
  ASSERT_TRUE(decode(request, &input, model).ok());
  EXPECT_TRUE(input.scaler_applied);
  EXPECT_EQ(input.scaler_column, (std::vector<int32_t>{2, 0}));
  EXPECT_EQ(input.rows[0], static_cast<float>((3.0 - 10.125) / 3.0));
  EXPECT_EQ(input.rows[8], static_cast<float>((static_cast<double>(data[8]) - 1.5) / 2.0));
}

TEST(ForecastRequestDecoderTest, LeavesSeriesUnscaledWhenTheyDoNotMatch) {
  const std::vector<float> data = ramp(3 * 8);
  ForecastInput input;
  // Auto, a name that is no column: no fallback to position although N == 3 columns.
  v1::ForecastRequest named = by_variable(3, 8, data);
  named.set_scaler_mode(v1::SCALER_MODE_UNSPECIFIED);
  for (const char* name : {"a", "b", "x"}) named.add_variable_names(name);
  ASSERT_TRUE(decode(named, &input).ok());
  EXPECT_FALSE(input.scaler_applied);
  EXPECT_EQ(input.rows, data);
  // Auto, unnamed, N != columns.
  v1::ForecastRequest two = by_variable(2, 8, ramp(16));
  two.set_scaler_mode(v1::SCALER_MODE_UNSPECIFIED);
  ASSERT_TRUE(decode(two, &input).ok());
  EXPECT_FALSE(input.scaler_applied);
  EXPECT_EQ(input.rows, ramp(16));
  // None, although the series match by position.
  ASSERT_TRUE(decode(by_variable(3, 8, data), &input).ok());
  EXPECT_FALSE(input.scaler_applied);
  EXPECT_TRUE(input.scaler_column.empty());
  // Auto on a model without a scaler.
  v1::ForecastRequest plain = by_variable(3, 8, data);
  plain.set_scaler_mode(v1::SCALER_MODE_UNSPECIFIED);
  ASSERT_TRUE(decode(plain, &input, small_model_without_scaler()).ok());
  EXPECT_FALSE(input.scaler_applied);
  EXPECT_EQ(input.rows, data);
}

TEST(ForecastRequestDecoderTest, RequiredScalerFailsWithTheDocumentedCodes) {
  ForecastInput input;
  v1::ForecastRequest request = by_variable(3, 8, ramp(24));
  request.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
  EXPECT_TRUE(has_status(decode(request, &input, small_model_without_scaler()),
                         StatusCode::kFailedPrecondition,
                         {"scaler_mode: SCALER_MODE_REQUIRED", "\"small\" has no dataset scaler"}));
  v1::ForecastRequest named = request;
  for (const char* name : {"a", "zz", "yy"}) named.add_variable_names(name);
  EXPECT_TRUE(invalid_argument(
      decode(named, &input),
      {"variable_names: \"zz\" (variable 1) is not a column", "\"a\", \"b\", \"c\""}));
  v1::ForecastRequest unnamed = by_variable(2, 8, ramp(16));
  unnamed.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
  EXPECT_TRUE(invalid_argument(decode(unnamed, &input),
                               {"series: 2 unnamed variables", "scaler has 3 columns"}));
}

TEST(ForecastRequestDecoderTest, RejectsValuesThatOverflowOnceScaled) {
  ModelShape model = small_model();
  std::vector<float> data = ramp(3 * 8);
  data[8 + 6] = 3.0e38f;  // column b: std 0.5 doubles it past FLT_MAX
  v1::ForecastRequest request = by_variable(3, 8, data);
  request.set_scaler_mode(v1::SCALER_MODE_UNSPECIFIED);
  ForecastInput input;
  EXPECT_TRUE(invalid_argument(
      decode(request, &input, model),
      {"series: value at [1, 6] is 3e+38", "beyond float range", "scaler column \"b\""}));
  // Unscaled it fits float but not the model's normalisation (input_magnitude_test).
  request.set_scaler_mode(v1::SCALER_MODE_NONE);
  EXPECT_TRUE(invalid_argument(decode(request, &input, model),
                               {"series: value at [1, 6] (variable 1) is 3e+38", "up to"}));
}

TEST(ForecastRequestDecoderTest, ChecksVariableNames) {
  ForecastInput input;
  v1::ForecastRequest short_names = by_variable(3, 8, ramp(24));
  short_names.add_variable_names("a");
  EXPECT_TRUE(
      invalid_argument(decode(short_names, &input), {"variable_names: 1 names for 3 variables"}));
  v1::ForecastRequest repeated = by_variable(3, 8, ramp(24));
  for (const char* name : {"x", "y", "x"}) repeated.add_variable_names(name);
  EXPECT_TRUE(invalid_argument(decode(repeated, &input),
                               {"variable_names: \"x\" is repeated (variables 0 and 2)"}));
}

TEST(ForecastRequestDecoderTest, ChecksTimestamps) {
  ForecastInput input;
  v1::ForecastRequest request = by_variable(1, 10, ramp(10));
  for (int i = 0; i < 10; ++i) request.add_timestamps(1700000000 + 3600 * i);
  EXPECT_TRUE(decode(request, &input).ok());  // T_in entries, not T

  v1::ForecastRequest cut = by_variable(1, 10, ramp(10));
  for (int i = 0; i < 8; ++i) cut.add_timestamps(i);
  EXPECT_TRUE(invalid_argument(decode(cut, &input),
                               {"timestamps: 8 entries for 10 input points", "T_in = 10"}));

  v1::ForecastRequest equal = request;
  equal.set_timestamps(4, equal.timestamps(3));
  EXPECT_TRUE(invalid_argument(
      decode(equal, &input), {"timestamps: entry 4 (1700010800) is not after entry 3 (1700010800)",
                              "strictly increasing"}));
  v1::ForecastRequest backwards = request;
  backwards.set_timestamps(9, 0);
  EXPECT_TRUE(
      invalid_argument(decode(backwards, &input), {"timestamps: entry 9 (0) is not after"}));
}

TEST(ForecastRequestDecoderTest, RejectsUnknownEnumValues) {
  ForecastInput input;
  v1::ForecastRequest layout = by_variable(1, 8, ramp(8));
  layout.set_layout(static_cast<v1::SeriesLayout>(3));
  EXPECT_TRUE(invalid_argument(decode(layout, &input), {"layout: unknown value 3"}));
  v1::ForecastRequest scaler = by_variable(1, 8, ramp(8));
  scaler.set_scaler_mode(static_cast<v1::ScalerMode>(-1));
  EXPECT_TRUE(invalid_argument(decode(scaler, &input), {"scaler_mode: unknown value -1"}));
  v1::ForecastRequest encoding = by_variable(1, 8, ramp(8));
  encoding.set_output_encoding(static_cast<v1::TensorEncoding>(5));
  EXPECT_TRUE(invalid_argument(decode(encoding, &input), {"output_encoding: unknown value 5"}));
}

TEST(ForecastRequestDecoderTest, ReadsOutputEncodingAndRequestId) {
  v1::ForecastRequest request = by_variable(1, 8, ramp(8));
  request.set_output_encoding(v1::TENSOR_ENCODING_RAW);
  request.set_request_id("client-7");
  ForecastInput input;
  ASSERT_TRUE(decode(request, &input).ok());
  EXPECT_TRUE(input.raw_output);
  EXPECT_EQ(input.request_id, "client-7");

  ForecastInput first;
  ForecastInput second;
  ASSERT_TRUE(decode(by_variable(1, 8, ramp(8)), &first).ok());
  ASSERT_TRUE(decode(by_variable(1, 8, ramp(8)), &second).ok());
  EXPECT_FALSE(first.request_id.empty());
  EXPECT_NE(first.request_id, second.request_id);

  request.set_request_id("bad\nid");
  EXPECT_TRUE(invalid_argument(decode(request, &input), {"request_id: byte 3 is 0x0a"}));
}

TEST(ForecastRequestDecoderTest, ResolvesAttentionAgainstTheRequest) {
  v1::ForecastRequest request = by_variable(4, 8, ramp(32));
  request.mutable_attention()->set_enabled(true);
  request.mutable_attention()->add_variables(3);
  request.mutable_attention()->add_variables(1);
  ForecastInput input;
  ASSERT_TRUE(decode(request, &input).ok());
  EXPECT_TRUE(input.attention.enabled);
  EXPECT_EQ(input.attention.layers, (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ(input.attention.variables, (std::vector<int32_t>{1, 3}));

  request.mutable_attention()->add_variables(4);  // N = 4: 0..3
  EXPECT_TRUE(invalid_argument(decode(request, &input),
                               {"attention.variables: variable 4 is out of range 0..3"}));
  request.mutable_attention()->set_enabled(false);  // not validated when off
  ASSERT_TRUE(decode(request, &input).ok());
  EXPECT_FALSE(input.attention.enabled);
}

TEST(ForecastRequestDecoderTest, ReusesTheOutputAcrossRequests) {
  ForecastInput input;
  v1::ForecastRequest scaled = by_variable(3, 8, ramp(24));
  scaled.set_scaler_mode(v1::SCALER_MODE_REQUIRED);
  ASSERT_TRUE(decode(scaled, &input).ok());
  ASSERT_TRUE(input.scaler_applied);
  ASSERT_TRUE(decode(by_time(1, 9, ramp(9)), &input).ok());
  EXPECT_EQ(input.series_rows, 1);
  EXPECT_EQ(input.rows, last_points(ramp(9), 1, 9, 8));
  EXPECT_FALSE(input.scaler_applied);
  EXPECT_TRUE(input.scaler_column.empty());
  EXPECT_FALSE(input.variables_by_time);
}

}  // namespace
}  // namespace tsserve::server
