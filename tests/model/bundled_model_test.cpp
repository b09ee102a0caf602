// The bundled checkpoint, read straight from the file torch.save(model.state_dict())
// wrote, forecasts as the PyTorch reference does, with Full attention (as trained) and
// served with ProbSparse attention.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "reference_fixture.h"
#include "tsserve/model/checkpoint_loader.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

const std::string kBundled = std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.pt";

TEST(BundledModel, ForecastMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture("bundled_model");
  PatchTST model = load_patchtst(kBundled);
  EXPECT_EQ(*model->config().norm, FinalNorm::kBatch);
  ASSERT_TRUE(model->config().scaler.has_value());
  EXPECT_EQ(model->config().scaler->columns.size(), 7u);
  at::InferenceMode guard;
  EXPECT_LE(relative_error(model->forward(fixture.input("x")), fixture.output("forecast")),
            kParityTolerance);
}

TEST(BundledModel, ServedWithProbSparseMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture("bundled_model");
  ModelConfig config = load_model_config(config_path_for(kBundled));
  config.attention = AttentionKind::kProb;
  PatchTST model = load_patchtst(kBundled, config);
  at::InferenceMode guard;
  const at::Tensor forecast = model->forward(fixture.input("x"));
  EXPECT_LE(relative_error(forecast, fixture.output("forecast_prob")), kParityTolerance);
  // ProbSparse is an approximation here: it must not be silently the full model.
  EXPECT_GT(relative_error(forecast, fixture.output("forecast")), kParityTolerance);
}

}  // namespace
}  // namespace tsserve::testing
