// The bundled checkpoint, read straight from the file torch.save(model.state_dict())
// wrote, forecasts as the PyTorch reference does, with Full attention (as trained) and
// served with ProbSparse attention.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "bundled_checkpoint.h"
#include "reference_fixture.h"
#include "tsserve/model/patchtst_checkpoint.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

TEST(BundledModel, ForecastMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture("bundled_model");
  PatchTST model = load_patchtst(kBundled);
  EXPECT_EQ(*model->config().norm, FinalNorm::kBatch);
  ASSERT_TRUE(model->config().scaler.has_value());
  EXPECT_EQ(model->config().scaler->columns.size(), 7u);
  at::InferenceMode guard;
  EXPECT_TRUE(matches_reference(model->forward(fixture.input("x")), fixture.output("forecast")));
}

TEST(BundledModel, ServedWithProbSparseMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture("bundled_model");
  ModelConfig config = load_model_config(config_path_for(kBundled));
  config.attention = AttentionKind::kProb;
  PatchTST model = load_patchtst(kBundled, config);
  at::InferenceMode guard;
  const at::Tensor forecast = model->forward(fixture.input("x"));
  EXPECT_TRUE(matches_reference(forecast, fixture.output("forecast_prob")));
  // ProbSparse is an approximation here: it must not be silently the full model. Apart by
  // far more than the parity bar (1e-5 of a scale of 8: 8e-5); measured 0.8.
  EXPECT_GT(max_abs_difference(forecast, fixture.output("forecast")), 1e-2);
}

}  // namespace
}  // namespace tsserve::testing
