// The model on a CUDA device against the PyTorch reference (computed on the CPU by
// tests/reference): the same 1e-5 bar as the CPU parity tests, for the PatchTST cases and
// the bundled checkpoint. Skipped, with the reason, where LibTorch sees no CUDA device.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "bundled_checkpoint.h"
#include "fixture_modules.h"
#include "reference_fixture.h"
#include "tsserve/model/patchtst_checkpoint.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

// GTEST_SKIP in SetUp skips the test body; in a helper it would only leave the helper.
class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!torch::cuda::is_available()) {
      GTEST_SKIP() << "no CUDA device visible to LibTorch (a CPU-only build, or no GPU)";
    }
  }
};

class CudaParity : public CudaTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(CudaParity, ForecastMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  PatchTST model = make_patchtst(fixture);
  model->to(torch::kCUDA);
  at::InferenceMode guard;
  const at::Tensor forecast = model->forward(fixture.input("x").to(torch::kCUDA));
  ASSERT_TRUE(forecast.is_cuda());
  EXPECT_TRUE(matches_reference(forecast.cpu(), fixture.output("forecast")));
}

TEST_P(CudaParity, AttentionMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  PatchTST model = make_patchtst(fixture);
  model->to(torch::kCUDA);
  const at::Tensor& x = fixture.input("x");  // [B, T, N]
  const at::Tensor rows = x.permute({0, 2, 1}).reshape({-1, x.size(1)}).to(torch::kCUDA);
  at::InferenceMode guard;
  const RowForecast out = model->forecast_rows(rows, true);
  ASSERT_EQ(static_cast<int64_t>(out.attention.size()), model->config().e_layers);
  for (size_t i = 0; i < out.attention.size(); ++i) {
    ASSERT_TRUE(out.attention[i].is_cuda());
    EXPECT_TRUE(
        matches_reference(out.attention[i].cpu(), fixture.output("attention." + std::to_string(i))))
        << "layer " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaParity,
                         ::testing::Values("patchtst_batchnorm_gelu", "patchtst_layernorm_relu",
                                           "patchtst_h1_odd", "patchtst_prob_tslib",
                                           "patchtst_small_scale"));

// The checkpoint read from disk (to the CPU, as the loader always does), then moved; Full
// attention as trained and ProbSparse as it can be served.
using CudaBundledModel = CudaTest;

TEST_F(CudaBundledModel, FullAndProbSparseMatchReference) {
  const ReferenceFixture fixture = load_reference_fixture("bundled_model");
  ModelConfig prob_config = load_model_config(config_path_for(kBundled));
  prob_config.attention = AttentionKind::kProb;
  PatchTST full = load_patchtst(kBundled);
  PatchTST prob = load_patchtst(kBundled, prob_config);
  full->to(torch::kCUDA);
  prob->to(torch::kCUDA);
  at::InferenceMode guard;
  const at::Tensor x = fixture.input("x").to(torch::kCUDA);
  EXPECT_TRUE(matches_reference(full->forward(x).cpu(), fixture.output("forecast")));
  EXPECT_TRUE(matches_reference(prob->forward(x).cpu(), fixture.output("forecast_prob")));
}

}  // namespace
}  // namespace tsserve::testing
