// AttentionLayer, EncoderLayer and the distilling Encoder against the PyTorch reference.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fixture_modules.h"

namespace tsserve::testing {
namespace {

class AttentionLayerParity : public ::testing::TestWithParam<std::string> {};

TEST_P(AttentionLayerParity, OutputAndWeightsMatchReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  auto layer = make_attention_layer(fixture);
  at::InferenceMode guard;
  const auto out = layer->forward(fixture.input("queries"), fixture.input("keys"),
                                  fixture.input("values"), {}, true);
  EXPECT_TRUE(matches_reference(out.context, fixture.output("output")));
  EXPECT_TRUE(matches_reference(out.weights, fixture.output("attention")));
}

INSTANTIATE_TEST_SUITE_P(Cases, AttentionLayerParity,
                         ::testing::Values("layer_full_cross", "layer_prob_tslib"));

class EncoderLayerParity : public ::testing::TestWithParam<std::string> {};

TEST_P(EncoderLayerParity, OutputAndWeightsMatchReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  auto layer = make_encoder_layer(fixture);
  at::InferenceMode guard;
  const auto out = layer->forward(fixture.input("x"), {}, true);
  EXPECT_TRUE(matches_reference(out.output, fixture.output("output")));
  EXPECT_TRUE(matches_reference(out.weights, fixture.output("attention")));
}

INSTANTIATE_TEST_SUITE_P(Cases, EncoderLayerParity,
                         ::testing::Values("encoder_layer_gelu", "encoder_layer_relu"));

TEST(EncoderParity, DistillingEncoderMatchesReference) {
  const ReferenceFixture fixture = load_reference_fixture("encoder_distil");
  auto encoder = make_encoder(fixture);
  at::InferenceMode guard;
  const auto out = encoder->forward(fixture.input("x"), {}, true);
  EXPECT_TRUE(matches_reference(out.output, fixture.output("output")));
  ASSERT_EQ(out.weights.size(), 3u);
  for (size_t i = 0; i < out.weights.size(); ++i) {
    EXPECT_TRUE(matches_reference(out.weights[i], fixture.output("attention." + std::to_string(i))))
        << "layer " << i;
  }
}

}  // namespace
}  // namespace tsserve::testing
