// RowForecaster: which path answers (fused kernels or LibTorch modules), and that both
// give the same forecast and the same attention maps (within 1e-6), per row as asked.

#include "tsserve/model/row_forecaster.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <vector>

#include "default_model_shape.h"
#include "reference_fixture.h"
#include "tsserve/model/model_error.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

TEST(RowForecaster, FusedAnswersForecastsAndAttentionMaps) {
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
    // The fused kernels' softmax weights, not the modules' (bitwise equal only by chance).
    EXPECT_TRUE(all_close(maps.attention[layer], torch_out.attention[layer], {1e-6, 0.0})) << layer;
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

// forecast_rows_with_maps on both paths (the fused kernels and the reference, kTorch) for
// Full and ProbSparse attention: the same maps within 1e-6 for the rows that asked, none
// for the others, and each path's forecast bitwise the one it gives without maps.
TEST(RowForecaster, RowMapsAgreeBetweenFusedAndTorchKernels) {
  for (const AttentionKind attention : {AttentionKind::kFull, AttentionKind::kProb}) {
    torch::manual_seed(23);
    PatchTST model(default_model_shape(attention));
    const RowForecaster fused(model, CpuKernels::kFused);
    const RowForecaster reference(model, CpuKernels::kTorch);
    ASSERT_TRUE(fused.uses_fused_kernels());
    const at::Tensor series = torch::randn({7, 336}) * 3 + 2;
    const std::vector<RowMapRequest> requests = {
        {{0, 1, 2}, true}, {}, {{2}, false}, {}, {{1, 0}, true}, {{0, 1, 2}, false}, {}};
    at::InferenceMode guard;
    const ForecastWithRowMaps fast = fused.forecast_rows_with_maps(series, requests);
    const ForecastWithRowMaps slow = reference.forecast_rows_with_maps(series, requests);
    EXPECT_TRUE(at::equal(fast.forecast, fused.forecast_rows(series).forecast));
    EXPECT_TRUE(at::equal(slow.forecast, reference.forecast_rows(series).forecast));
    ASSERT_EQ(fast.maps.size(), 7u);
    ASSERT_EQ(slow.maps.size(), 7u);
    for (size_t row = 0; row < requests.size(); ++row) {
      const auto layers = static_cast<int64_t>(requests[row].layers.size());
      if (layers == 0) {
        EXPECT_FALSE(fast.maps[row].defined()) << row;
        EXPECT_FALSE(slow.maps[row].defined()) << row;
        continue;
      }
      const std::vector<int64_t> shape = requests[row].average_heads
                                             ? std::vector<int64_t>{layers, 42, 42}
                                             : std::vector<int64_t>{layers, 4, 42, 42};
      EXPECT_EQ(fast.maps[row].sizes().vec(), shape) << row;
      EXPECT_TRUE(all_close(fast.maps[row], slow.maps[row], {1e-6, 0.0})) << row;
    }
  }
}

TEST(RowForecaster, RowMapRequestsAreCheckedOnBothPaths) {
  PatchTST model(default_model_shape());
  const at::Tensor series = torch::randn({2, 336});
  at::InferenceMode guard;
  for (const CpuKernels kernels : {CpuKernels::kFused, CpuKernels::kTorch}) {
    const RowForecaster forecaster(model, kernels);
    EXPECT_THROW(forecaster.forecast_rows_with_maps(series, std::vector<RowMapRequest>(1)),
                 ModelError);
    try {
      forecaster.forecast_rows_with_maps(series, {{}, {{0, 3}, true}});
      FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
      EXPECT_EQ(std::string(e.what()), "attention maps of row 1: layer 3 is not in [0, 3)");
    }
  }
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
