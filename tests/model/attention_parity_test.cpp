// Full and ProbSparse attention against the independent PyTorch reference.

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "fixture_modules.h"

namespace tsserve::testing {
namespace {

class InnerAttentionParity : public ::testing::TestWithParam<std::string> {};

TEST_P(InnerAttentionParity, ContextAndWeightsMatchReference) {
  const ReferenceFixture fixture = load_reference_fixture(GetParam());
  InnerAttentionCase attention = make_inner_attention(fixture.config);
  const at::Tensor& keys = fixture.input("keys");
  const auto mask = with_key_padding(attention.mask, fixture, keys.size(1));

  at::InferenceMode guard;
  const auto out = attention.attention->forward(fixture.input("queries"), keys,
                                                fixture.input("values"), mask, true);
  EXPECT_TRUE(matches_reference(out.context, fixture.output("context")));
  EXPECT_TRUE(matches_reference(out.weights, fixture.output("attention")));
}

INSTANTIATE_TEST_SUITE_P(Cases, InnerAttentionParity,
                         ::testing::Values("full_basic", "full_causal", "full_cross",
                                           "full_key_padding", "prob_canonical", "prob_tslib",
                                           "prob_causal", "prob_h1_odd", "prob_key_padding",
                                           "prob_full_u", "prob_single", "prob_cross"));

TEST(InnerAttentionParity, FullyMaskedRowsGiveZerosNotNaN) {
  for (const char* name : {"full_key_padding", "prob_key_padding"}) {
    const ReferenceFixture fixture = load_reference_fixture(name);
    InnerAttentionCase attention = make_inner_attention(fixture.config);
    const at::Tensor& keys = fixture.input("keys");
    const auto mask = with_key_padding(attention.mask, fixture, keys.size(1));
    const auto out = attention.attention->forward(fixture.input("queries"), keys,
                                                  fixture.input("values"), mask, true);
    // The fixtures' last row has valid length 0.
    EXPECT_TRUE(at::isfinite(out.context).all().item<bool>()) << name;
    EXPECT_EQ(out.context[-1].abs().max().item<float>(), 0.0f) << name;
    EXPECT_EQ(out.weights[-1].abs().max().item<float>(), 0.0f) << name;
  }
}

TEST(InnerAttentionParity, ProbWithEveryQueryActiveEqualsFull) {
  const ReferenceFixture fixture = load_reference_fixture("prob_full_u");
  const auto prob = make_inner_attention(fixture.config);
  const auto full = make_inner_attention({{"kind", "full"}});
  const auto& q = fixture.input("queries");
  const auto& k = fixture.input("keys");
  const auto& v = fixture.input("values");
  const auto prob_out = prob.attention->forward(q, k, v, {}, true);
  const auto full_out = full.attention->forward(q, k, v, {}, true);
  EXPECT_TRUE(matches_reference(prob_out.context, full_out.context, 1e-6));
  EXPECT_TRUE(matches_reference(prob_out.weights, full_out.weights, 1e-6));
}

TEST(InnerAttentionParity, TslibLayoutIsTheCanonicalContextViewedWithoutTranspose) {
  const ReferenceFixture fixture = load_reference_fixture("prob_canonical");
  nlohmann::json config = fixture.config;
  const auto canonical = make_inner_attention(config);
  config["layout"] = "tslib";
  const auto tslib = make_inner_attention(config);
  const auto& q = fixture.input("queries");
  const auto& k = fixture.input("keys");
  const auto& v = fixture.input("values");
  const at::Tensor c = canonical.attention->forward(q, k, v, {}, false).context;  // [B,L,H,E]
  const at::Tensor mixed = tslib.attention->forward(q, k, v, {}, false).context;
  EXPECT_TRUE(at::equal(c.transpose(1, 2).contiguous().view(c.sizes()), mixed));
  EXPECT_FALSE(at::equal(c, mixed));
}

}  // namespace
}  // namespace tsserve::testing
