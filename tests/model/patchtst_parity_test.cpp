// The whole PatchTST against the PyTorch reference, for both final-norm variants, gelu and
// relu, H = 1 with odd lengths, ProbSparse with TSLib's layout, and tiny-variance inputs
// (where the instance norm's epsilon decides the result).

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fixture_modules.h"
#include "reference_fixture.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

class PatchTSTParity : public ::testing::TestWithParam<std::string> {};

TEST_P(PatchTSTParity, ForecastMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  PatchTST model = make_patchtst(fixture);
  at::InferenceMode guard;
  EXPECT_TRUE(matches_reference(model->forward(fixture.input("x")), fixture.output("forecast")));
}

TEST_P(PatchTSTParity, EncoderOutputAndAttentionMatchReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  PatchTST model = make_patchtst(fixture);
  const at::Tensor& x = fixture.input("x");  // [B, T, N]
  const at::Tensor rows = x.permute({0, 2, 1}).reshape({-1, x.size(1)});
  at::InferenceMode guard;
  const RowForecast out = model->forecast_rows(rows, true);
  EXPECT_TRUE(matches_reference(out.encoder_output, fixture.output("encoder_output")));
  ASSERT_EQ(static_cast<int64_t>(out.attention.size()), model->config().e_layers);
  for (size_t i = 0; i < out.attention.size(); ++i) {
    EXPECT_TRUE(
        matches_reference(out.attention[i], fixture.output("attention." + std::to_string(i))))
        << "layer " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, PatchTSTParity,
                         ::testing::Values("patchtst_batchnorm_gelu", "patchtst_layernorm_relu",
                                           "patchtst_h1_odd", "patchtst_prob_tslib",
                                           "patchtst_small_scale"));

}  // namespace
}  // namespace tsserve::testing
