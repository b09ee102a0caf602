// iTransformer checkpoints as TSLib writes them (torch.save(model.state_dict()), with and
// without nn.DataParallel's prefix) and as safetensors, through the checkpoint loader; the
// bundled ETTh1 model; and the family mismatches, each named by key and config field.

#include "tsserve/model/itransformer_checkpoint.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "reference_fixture.h"
#include "tsserve/model/itransformer_family.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_checkpoint.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;
using ::testing::HasSubstr;

const std::string kCheckpoints = std::string(TSSERVE_FIXTURE_DIR) + "/checkpoints/";
const std::string kBundledPatchTST =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/patchtst_etth1.pt";
const std::string kBundledITransformer =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.pt";

std::vector<int64_t> first_timestamps(const ReferenceFixture& fixture) {
  const at::Tensor row = fixture.input("timestamps")[0].contiguous();
  return {row.data_ptr<int64_t>(), row.data_ptr<int64_t>() + row.numel()};
}

// The first sample's forecast [N, F] from the model, against the reference's [F, N].
void expect_first_sample_matches(ITransformer& model, const ReferenceFixture& fixture) {
  at::InferenceMode guard;
  const SampleForecast out =
      model->forecast_sample(fixture.input("x")[0].t(), first_timestamps(fixture), true);
  EXPECT_TRUE(matches_reference(out.forecast.t(), fixture.output("forecast")[0]));
  for (size_t i = 0; i < out.attention.size(); ++i) {
    const std::string key = "attention." + std::to_string(i);
    if (fixture.outputs.count(key)) {
      EXPECT_TRUE(matches_reference(out.attention[i], fixture.output(key)[0]));
    }
  }
}

std::string error_of(const std::function<void()>& load) {
  try {
    load();
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

class ITransformerCheckpoint : public ::testing::TestWithParam<std::string> {};

TEST_P(ITransformerCheckpoint, LoadsAndForecastsAsPyTorch) {
  ITransformer model = load_itransformer(kCheckpoints + GetParam());
  expect_first_sample_matches(model, load_reference_fixture("itransformer_checkpoint_case"));
}

INSTANTIATE_TEST_SUITE_P(Files, ITransformerCheckpoint,
                         ::testing::Values("itransformer.pt", "itransformer_parallel.pt",
                                           "itransformer.safetensors"));

TEST(ITransformerCheckpoint, BundledEtth1ModelForecastsAsPyTorch) {
  TSSERVE_SKIP_IF_FIXTURE_SKIPPED("itransformer_bundled_case");  // ETTh1's first test window
  ITransformer model = load_itransformer(kBundledITransformer);
  EXPECT_EQ(model->config().enc_in, 7);
  EXPECT_EQ(model->calendar_token_count(), 4);
  expect_first_sample_matches(model, load_reference_fixture("itransformer_bundled_case"));
}

TEST(ITransformerCheckpoint, PatchTSTConfigAtITransformerCheckpointNamesKeyAndField) {
  ModelConfig config = load_model_config(kCheckpoints + "itransformer.json");
  config.family = "PatchTST";
  config.norm.reset();
  const std::string error =
      error_of([&] { load_patchtst(kCheckpoints + "itransformer.pt", config, "p.json"); });
  EXPECT_THAT(error, HasSubstr("its keys are iTransformer's"));
  EXPECT_THAT(error, HasSubstr("'enc_embedding.value_embedding.weight'"));
  EXPECT_THAT(error, HasSubstr("the config's \"model\" is \"PatchTST\""));
}

TEST(ITransformerCheckpoint, ITransformerConfigAtPatchTSTCheckpointNamesKeyAndField) {
  const ModelConfig config = load_model_config(kCheckpoints + "itransformer.json");
  const std::string error =
      error_of([&] { load_itransformer(kBundledPatchTST, config, "i.json"); });
  EXPECT_THAT(error, HasSubstr("its keys are PatchTST's"));
  EXPECT_THAT(error, HasSubstr("'patch_embedding.value_embedding.weight'"));
  EXPECT_THAT(error, HasSubstr("the config's \"model\" is \"iTransformer\""));
}

TEST(ITransformerCheckpoint, ConfigDisagreeingWithWeightsNamesKeyAndFields) {
  ModelConfig config = load_model_config(kCheckpoints + "itransformer.json");
  config.seq_len = 96;
  const std::string error =
      error_of([&] { load_itransformer(kCheckpoints + "itransformer.pt", config, "i.json"); });
  EXPECT_THAT(error, HasSubstr("'enc_embedding.value_embedding.weight' has shape [16, 48]"));
  EXPECT_THAT(error, HasSubstr("seq_len=96"));
}

TEST(ITransformerCheckpoint, MissingOrUnorderedTimestampsAreRefusedByName) {
  ITransformer model = load_itransformer(kCheckpoints + "itransformer.pt");
  const at::Tensor series = torch::randn({5, 48});
  at::InferenceMode guard;
  EXPECT_THAT(error_of([&] { model->forecast_sample(series, {}); }),
              HasSubstr("'timestamps' are required"));
  std::vector<int64_t> stamps(48);
  for (size_t i = 0; i < stamps.size(); ++i) stamps[i] = 3600 * static_cast<int64_t>(i);
  stamps[10] = stamps[9];
  EXPECT_THAT(error_of([&] { model->forecast_sample(series, stamps); }),
              HasSubstr("'timestamps' must be strictly increasing: element 10"));
}

TEST(ITransformerCheckpoint, SeriesOfWrongLengthIsRefused) {
  ITransformer model = load_itransformer(kCheckpoints + "itransformer.pt");
  at::InferenceMode guard;
  EXPECT_THAT(error_of([&] {
                model->forecast_samples(torch::randn({1, 5, 47}), {});
              }),
              HasSubstr("expects series [samples, variables >= 1, 48]"));
}

// ----------------------------------------------------------------------------- config

const char kITransformer[] =
    R"({"model": "iTransformer", "seq_len": 96, "pred_len": 96, "d_model": 16, "n_heads": 4,
        "e_layers": 2, "d_ff": 32)";

std::string config_error(const std::string& text) {
  return error_of([&] { parse_model_config(text, "m.json"); });
}

TEST(ITransformerConfig, FamilyDefaultsToPatchTSTAndReadsTslibNames) {
  EXPECT_EQ(parse_model_config(R"({"seq_len": 96, "pred_len": 24, "d_model": 16, "n_heads": 4,
                                   "e_layers": 2, "d_ff": 32})",
                               "m.json")
                .family,
            "PatchTST");
  const ModelConfig config = parse_model_config(std::string(kITransformer) + "}", "m.json");
  EXPECT_EQ(config.family, "iTransformer");
  EXPECT_EQ(config.norm, FinalNorm::kLayer);
  EXPECT_EQ(calendar_features(config).size(), 4u);  // TSLib's defaults: timeF, freq h
  EXPECT_THAT(config.summary(), HasSubstr("model=iTransformer"));
  EXPECT_THAT(config.summary(), HasSubstr("freq=h (4 calendar tokens)"));
  const ModelConfig minutes =
      parse_model_config(std::string(kITransformer) + R"(, "freq": "15min"})", "m.json");
  EXPECT_EQ(calendar_features(minutes).size(), 5u);
  const ModelConfig plain =
      parse_model_config(std::string(kITransformer) + R"(, "calendar_tokens": false})", "m.json");
  EXPECT_TRUE(calendar_features(plain).empty());
}

TEST(ITransformerConfig, BadValuesNameTheField) {
  EXPECT_THAT(config_error(R"({"model": "Autoformer", "seq_len": 1})"),
              HasSubstr("'model' must be one of \"Informer\", \"PatchTST\", \"TimeXer\", "
                        "\"Transformer\", \"iTransformer\", got \"Autoformer\""));
  EXPECT_THAT(config_error(std::string(kITransformer) + R"(, "freq": "fortnight"})"),
              HasSubstr("'freq' must be one of TSLib's frequencies"));
  EXPECT_THAT(config_error(std::string(kITransformer) + R"(, "embed": "fixed"})"),
              HasSubstr("'embed' must be \"timeF\""));
  EXPECT_THAT(config_error(std::string(kITransformer) + R"(, "norm": "batch"})"),
              HasSubstr("'norm' must be \"layer\" for an iTransformer"));
  EXPECT_THAT(config_error(std::string(kITransformer) + R"(, "calendar_tokens": "yes"})"),
              HasSubstr("'calendar_tokens' must be true or false"));
}

}  // namespace
}  // namespace tsserve::testing
