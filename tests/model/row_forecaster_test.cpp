// RowForecaster: which path answers (fused kernels or LibTorch modules), and that both
// give the same forecast.

#include "tsserve/model/row_forecaster.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "default_model_shape.h"
#include "reference_fixture.h"
#include "tsserve/model/model_error.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

TEST(RowForecaster, FusedAnswersForecastsAndLibTorchAnswersAttentionMaps) {
  torch::manual_seed(21);
  PatchTST model(default_model_shape());
  const RowForecaster forecaster(model, CpuKernels::kFused);
  ASSERT_TRUE(forecaster.uses_fused_kernels());
  const at::Tensor series = torch::randn({9, 336}) * 2 + 1;
  at::InferenceMode guard;
  const RowForecast torch_out = model->forecast_rows(series, true);

  const RowForecast plain = forecaster.forecast_rows(series);
  EXPECT_FALSE(plain.encoder_output.defined());  // the fused path answered
  EXPECT_TRUE(matches_reference(plain.forecast, torch_out.forecast));

  const RowForecast maps = forecaster.forecast_rows(series, true);
  ASSERT_EQ(maps.attention.size(), 3u);
  for (size_t layer = 0; layer < 3; ++layer) {
    EXPECT_TRUE(at::equal(maps.attention[layer], torch_out.attention[layer])) << layer;
  }
  // The forecast is the fused one whether maps were asked for or not.
  EXPECT_TRUE(at::equal(maps.forecast, plain.forecast));
  EXPECT_FALSE(maps.encoder_output.defined());
}

TEST(RowForecaster, ProbSparseRunsOnTheFusedKernels) {
  torch::manual_seed(22);
  PatchTST model(default_model_shape(AttentionKind::kProb));
  const RowForecaster forecaster(model, CpuKernels::kFused);
  EXPECT_TRUE(forecaster.uses_fused_kernels());
  EXPECT_EQ(forecaster.fallback_reason(), "");
  const at::Tensor series = torch::randn({3, 336});
  at::InferenceMode guard;
  const RowForecast fused = forecaster.forecast_rows(series);
  EXPECT_FALSE(fused.encoder_output.defined());  // the fused path answered
  EXPECT_TRUE(matches_reference(fused.forecast, model->forecast_rows(series).forecast));
}

TEST(RowForecaster, TorchKernelsNeverUseTheFusedPath) {
  PatchTST model(default_model_shape());
  const RowForecaster forecaster(model, CpuKernels::kTorch);
  EXPECT_FALSE(forecaster.uses_fused_kernels());
  EXPECT_EQ(forecaster.fallback_reason(), "");
  at::InferenceMode guard;
  EXPECT_TRUE(forecaster.forecast_rows(torch::randn({2, 336})).encoder_output.defined());
}

TEST(RowForecaster, ParsesKernelNamesAndNamesTheFieldOnError) {
  EXPECT_EQ(parse_cpu_kernels("fused", "--cpu-kernels"), CpuKernels::kFused);
  EXPECT_EQ(parse_cpu_kernels("torch", "--cpu-kernels"), CpuKernels::kTorch);
  try {
    parse_cpu_kernels("onnx", "--cpu-kernels");
    FAIL() << "expected ModelError";
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), "--cpu-kernels must be \"torch\" or \"fused\", got \"onnx\"");
  }
}

}  // namespace
}  // namespace tsserve::testing
