#include "server/codec/oip/oip_response_encoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "oip_test_support.h"
#include "server/codec/oip/oip_model_metadata.h"

namespace tsserve::server {
namespace {

using testing::output_floats;
using testing::output_shape;
using testing::ramp;
using testing::small_model;

// A decoded OIP request as the runner sees it: B samples of N variables of the small
// model (T 8, F 4), [B, T, N] layout.
ForecastInput decoded(int64_t samples, int64_t variables) {
  ForecastInput input;
  input.request_id = "gen-1";
  input.samples = samples;
  input.series_rows = samples * variables;
  input.rows = ramp(samples * variables * 8);
  input.input_points_used = 8;
  input.variables_by_time = false;
  return input;
}

ForecastOutput output_for(int64_t rows) {
  ForecastOutput output;
  output.forecast = ramp(rows * 4, -1.3f);
  output.batch_rows = 17;
  return output;
}

OipReply reply_for(std::vector<OipOutput> outputs, bool raw) {
  OipReply reply;
  reply.id = "abc";
  reply.outputs = std::move(outputs);
  reply.raw = raw;
  return reply;
}

TEST(OipResponseEncoderTest, ForecastIsBatchTimeVariablesInEitherEncoding) {
  for (bool raw : {false, true}) {
    SCOPED_TRACE(raw ? "raw" : "typed");
    ForecastOutput output = output_for(6);
    const std::vector<float> rows = output.forecast;  // [B * N, F], row b * N + n
    inference::ModelInferResponse response;
    ASSERT_TRUE(encode_model_infer_response(decoded(2, 3), reply_for({OipOutput::kForecast}, raw),
                                            small_model(), std::move(output), &response)
                    .ok());
    EXPECT_EQ(response.model_name(), "small");
    EXPECT_EQ(response.model_version(), "7");
    EXPECT_EQ(response.id(), "abc");
    EXPECT_EQ(response.parameters().at("batch_rows").int64_param(), 17);
    EXPECT_EQ(response.parameters().at("input_points_used").int64_param(), 8);
    EXPECT_FALSE(response.parameters().at("scaler_applied").bool_param());
    ASSERT_EQ(response.outputs_size(), 1);
    EXPECT_EQ(response.raw_output_contents_size(), raw ? 1 : 0);
    EXPECT_EQ(response.outputs(0).name(), "forecast");
    EXPECT_EQ(response.outputs(0).datatype(), "FP32");
    EXPECT_EQ(output_shape(response, 0), (std::vector<int64_t>{2, 4, 3}));
    const std::vector<float> got = output_floats(response, 0);
    ASSERT_EQ(got.size(), 24u);
    for (int64_t b = 0; b < 2; ++b) {
      for (int64_t f = 0; f < 4; ++f) {
        for (int64_t n = 0; n < 3; ++n) {
          EXPECT_EQ(got[static_cast<std::size_t>((b * 4 + f) * 3 + n)],
                    rows[static_cast<std::size_t>((b * 3 + n) * 4 + f)]);
        }
      }
    }
  }
}

TEST(OipResponseEncoderTest, ForecastIsUnscaledWithEachRowsColumn) {
  const ModelShape model = small_model();
  ForecastInput input = decoded(2, 2);
  input.scaler_applied = true;
  input.scaler_column = {2, 0, 2, 0};
  ForecastOutput output = output_for(4);
  const std::vector<float> rows = output.forecast;
  inference::ModelInferResponse response;
  ASSERT_TRUE(encode_model_infer_response(input, reply_for({OipOutput::kForecast}, false), model,
                                          std::move(output), &response)
                  .ok());
  EXPECT_TRUE(response.parameters().at("scaler_applied").bool_param());
  const std::vector<float> got = output_floats(response, 0);
  for (int64_t b = 0; b < 2; ++b) {
    for (int64_t f = 0; f < 4; ++f) {
      for (int64_t n = 0; n < 2; ++n) {
        const auto c = static_cast<std::size_t>(n == 0 ? 2 : 0);
        const double x = rows[static_cast<std::size_t>((b * 2 + n) * 4 + f)];
        EXPECT_EQ(got[static_cast<std::size_t>((b * 4 + f) * 2 + n)],
                  static_cast<float>(x * model.scaler_std[c] + model.scaler_mean[c]));
      }
    }
  }
}

// A map of the small model (H = 2, P = 2) whose values say where it came from.
AttentionBlock block(int32_t layer, int32_t row, bool averaged) {
  AttentionBlock b;
  b.layer = layer;
  b.variable = row;
  b.heads_averaged = averaged;
  b.shape = averaged ? std::vector<int64_t>{2, 2} : std::vector<int64_t>{2, 2, 2};
  b.weights = ramp(averaged ? 4 : 8, static_cast<float>(100 * row + 10 * layer));
  return b;
}

TEST(OipResponseEncoderTest, AttentionIsSamplesVariablesLayersHeadsInRequestedOrder) {
  for (bool averaged : {false, true}) {
    SCOPED_TRACE(averaged ? "heads averaged" : "every head");
    ForecastInput input = decoded(2, 3);
    input.attention.enabled = true;
    input.attention.layers = {0, 2};
    input.attention.variables = {1, 4};  // variable 1 of each sample
    input.attention.average_heads = averaged;
    ForecastOutput output = output_for(6);
    // In the processor's order, shuffled: the encoder sorts.
    for (auto [layer, row] :
         std::vector<std::pair<int32_t, int32_t>>{{2, 4}, {0, 1}, {0, 4}, {2, 1}}) {
      output.attention.push_back(block(layer, row, averaged));
    }
    inference::ModelInferResponse response;
    ASSERT_TRUE(encode_model_infer_response(
                    input, reply_for({OipOutput::kAttention, OipOutput::kForecast}, true),
                    small_model(), std::move(output), &response)
                    .ok());
    ASSERT_EQ(response.outputs_size(), 2);
    ASSERT_EQ(response.raw_output_contents_size(), 2);
    EXPECT_EQ(response.outputs(0).name(), "attention");
    EXPECT_EQ(response.outputs(1).name(), "forecast");
    EXPECT_EQ(output_shape(response, 0), (std::vector<int64_t>{2, 1, 2, averaged ? 1 : 2, 2, 2}));
    std::vector<float> expected;
    for (auto [layer, row] :
         std::vector<std::pair<int32_t, int32_t>>{{0, 1}, {2, 1}, {0, 4}, {2, 4}}) {
      const std::vector<float> map = block(layer, row, averaged).weights;
      expected.insert(expected.end(), map.begin(), map.end());
    }
    EXPECT_EQ(output_floats(response, 0), expected);
    EXPECT_EQ(output_shape(response, 1), (std::vector<int64_t>{2, 4, 3}));
  }
}

TEST(OipResponseEncoderTest, AResultThatDoesNotFitIsInternalAndWritesNothing) {
  ForecastOutput output = output_for(5);  // 5 rows for 6
  inference::ModelInferResponse response;
  const Status status =
      encode_model_infer_response(decoded(2, 3), reply_for({OipOutput::kForecast}, false),
                                  small_model(), std::move(output), &response);
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(response.ByteSizeLong(), 0u);

  ForecastInput input = decoded(1, 3);
  input.attention.enabled = true;
  input.attention.layers = {0};
  input.attention.variables = {0, 1};
  ForecastOutput short_of_maps = output_for(3);
  short_of_maps.attention.push_back(block(0, 0, false));
  EXPECT_EQ(encode_model_infer_response(input, reply_for({OipOutput::kAttention}, false),
                                        small_model(), std::move(short_of_maps), &response)
                .code(),
            StatusCode::kInternal);
  EXPECT_EQ(response.ByteSizeLong(), 0u);
}

TEST(OipModelMetadataTest, DescribesTheSeriesInputAndBothOutputs) {
  const inference::ModelMetadataResponse metadata = oip_model_metadata(small_model());
  EXPECT_EQ(metadata.name(), "small");
  ASSERT_EQ(metadata.versions_size(), 1);
  EXPECT_EQ(metadata.versions(0), "7");
  EXPECT_EQ(metadata.platform(), "pytorch_libtorch");
  ASSERT_EQ(metadata.inputs_size(), 2);
  EXPECT_EQ(metadata.inputs(1).name(), "timestamps");  // optional for PatchTST
  EXPECT_EQ(metadata.inputs(1).datatype(), "INT64");
  EXPECT_EQ(metadata.inputs(0).name(), "series");
  EXPECT_EQ(metadata.inputs(0).datatype(), "FP32");
  EXPECT_EQ(
      std::vector<int64_t>(metadata.inputs(0).shape().begin(), metadata.inputs(0).shape().end()),
      (std::vector<int64_t>{-1, 8, -1}));
  ASSERT_EQ(metadata.outputs_size(), 2);
  EXPECT_EQ(metadata.outputs(0).name(), "forecast");
  EXPECT_EQ(
      std::vector<int64_t>(metadata.outputs(0).shape().begin(), metadata.outputs(0).shape().end()),
      (std::vector<int64_t>{-1, 4, -1}));
  EXPECT_EQ(metadata.outputs(1).name(), "attention");
  EXPECT_EQ(
      std::vector<int64_t>(metadata.outputs(1).shape().begin(), metadata.outputs(1).shape().end()),
      (std::vector<int64_t>{-1, -1, -1, -1, 2, 2}));
}

}  // namespace
}  // namespace tsserve::server
