// Encode on the fused kernels (fused_encode.h, FusedPatchTST::encode and
// FusedITransformer::encode) against the LibTorch encoders the server ran before (the
// reference path of `--cpu-kernels torch`), on every copy of the kernels this CPU can run:
// outputs within 1e-5 of their scale and every layer's per-head weights within 1e-6, for
// token counts below, at and above the model's own (PatchTST's patches, the iTransformer's
// variables + calendar tokens), both final norms, gelu and relu, Full and ProbSparse (at the
// patch count it samples for; other counts refused by name); a sequence's output bitwise
// the same alone and in a batch.

#include "tsserve/model/fused_encode.h"

#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>
#include <vector>

#include "bundled_checkpoint.h"
#include "default_model_shape.h"
#include "fixture_modules.h"
#include "reference_fixture.h"
#include "tsserve/model/fused_isa.h"
#include "tsserve/model/fused_itransformer.h"
#include "tsserve/model/fused_patchtst.h"
#include "tsserve/model/itransformer_checkpoint.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::testing {
namespace {

using namespace tsserve::model;

constexpr double kMapTolerance = 1e-6;

const std::string kBundledITransformer =
    std::string(TSSERVE_SOURCE_DIR) + "/model/default/itransformer_etth1.pt";

// Tokens of the scale an embedding gives (a few units), with an offset so the norms matter.
at::Tensor random_tokens(int64_t batch, int64_t length, int64_t d_model, int seed) {
  torch::manual_seed(seed);
  return torch::randn({batch, length, d_model}) * 2 + 0.5;
}

// `fused` against `expected` (the LibTorch encoder's output with its weights).
void expect_encoded_like(const EncoderOutput& fused, const EncoderOutput& expected,
                         const std::string& what) {
  EXPECT_TRUE(matches_reference(fused.output, expected.output)) << what;
  ASSERT_EQ(fused.weights.size(), expected.weights.size()) << what;
  for (size_t layer = 0; layer < expected.weights.size(); ++layer) {
    EXPECT_TRUE(all_close(fused.weights[layer], expected.weights[layer], {kMapTolerance, 0}))
        << what << ", layer " << layer;
  }
}

// [B, L, D] and [B][layers][H][L][L] from one named copy; nothing when the CPU lacks it.
struct CopyOutput {
  bool ran = false;
  at::Tensor output, maps;
};

template <typename Weights, typename Encode>
CopyOutput encode_with(const char* isa, const Weights& w, const at::Tensor& tokens, Encode encode) {
  const at::Tensor input = tokens.contiguous();
  const int64_t batch = input.size(0), length = input.size(1);
  CopyOutput out;
  out.output = at::empty_like(input);
  out.maps = at::empty({batch, static_cast<int64_t>(w.layers.size()), w.n_heads, length, length});
  out.ran = encode(isa, w, input.data_ptr<float>(), batch, length, out.output.data_ptr<float>(),
                   out.maps.data_ptr<float>());
  return out;
}

// Every copy this CPU runs gives `expected`'s output and weights.
template <typename Weights, typename Encode>
void expect_every_copy_encodes_like(const Weights& w, const at::Tensor& tokens,
                                    const EncoderOutput& expected, Encode encode,
                                    const std::string& what) {
  int ran = 0;
  for (const char* isa : {"avx512", "avx2", "sse2"}) {
    const CopyOutput out = encode_with(isa, w, tokens, encode);
    if (!out.ran) continue;
    ++ran;
    EXPECT_TRUE(matches_reference(out.output, expected.output)) << what << ", " << isa;
    for (size_t layer = 0; layer < expected.weights.size(); ++layer) {
      EXPECT_TRUE(all_close(out.maps.select(1, static_cast<int64_t>(layer)),
                            expected.weights[layer], {kMapTolerance, 0}))
          << what << ", " << isa << ", layer " << layer;
    }
  }
  EXPECT_EQ(ran, static_cast<int>(fused_instruction_sets_on_this_cpu().size())) << what;
}

bool patchtst_encode_with(const char* isa, const FusedWeights& w, const float* tokens,
                          int64_t batch, int64_t length, float* output, float* maps) {
  return fused_patchtst_encode_with(isa, w, tokens, batch, length, output, maps);
}
bool itransformer_encode_with(const char* isa, const FusedITransformerWeights& w,
                              const float* tokens, int64_t batch, int64_t length, float* output,
                              float* maps) {
  return fused_itransformer_encode_with(isa, w, tokens, batch, length, output, maps);
}

void expect_patchtst_encodes_like_libtorch(PatchTST& model, const std::vector<int64_t>& lengths,
                                           const std::string& what) {
  const FusedPatchTST fused(*model);
  at::InferenceMode guard;
  int seed = 1;
  for (int64_t length : lengths) {
    const at::Tensor tokens = random_tokens(3, length, model->config().d_model, seed++);
    const EncoderOutput expected = model->encode(tokens, {}, true);
    const std::string named = what + ", " + std::to_string(length) + " tokens";
    expect_encoded_like(fused.encode(tokens, true), expected, named);
    expect_every_copy_encodes_like(fused.weights(), tokens, expected, patchtst_encode_with, named);
  }
}

TEST(FusedEncode, PatchTSTBundledModelMatchesLibTorchAtAnyTokenCount) {
  PatchTST model = load_patchtst(kBundled);
  const int64_t patches = model->config().patch_count();
  expect_patchtst_encodes_like_libtorch(model, {1, 5, 29, patches, patches + 9, 100, 150},
                                        "bundled");
}

TEST(FusedEncode, PatchTSTFixturesMatchLibTorch) {
  for (const char* name :
       {"patchtst_batchnorm_gelu", "patchtst_layernorm_relu", "patchtst_h1_odd"}) {
    const ReferenceFixture fixture = load_reference_fixture(name);
    PatchTST model = make_patchtst(fixture);
    const int64_t patches = model->config().patch_count();
    expect_patchtst_encodes_like_libtorch(model, {3, patches, 2 * patches + 1}, name);
  }
}

TEST(FusedEncode, PatchTSTProbSparseMatchesLibTorchAtItsPatchCountAndRefusesOthers) {
  const ReferenceFixture fixture = load_reference_fixture("patchtst_prob_tslib");
  PatchTST tslib_layout = make_patchtst(fixture);
  ASSERT_EQ(tslib_layout->config().prob_layout, ProbLayout::kTslib);
  expect_patchtst_encodes_like_libtorch(tslib_layout, {tslib_layout->config().patch_count()},
                                        "ProbSparse, TSLib layout");

  torch::manual_seed(8);
  PatchTST model(default_model_shape(AttentionKind::kProb));
  const int64_t patches = model->config().patch_count();
  expect_patchtst_encodes_like_libtorch(model, {patches}, "ProbSparse");
  const FusedPatchTST fused(*model);
  EXPECT_EQ(fused.encode_unsupported_reason(patches), "");
  const std::string reason = fused.encode_unsupported_reason(patches + 1);
  EXPECT_NE(reason.find("ProbSparse"), std::string::npos) << reason;
  EXPECT_THROW(fused.encode(random_tokens(1, patches + 1, model->config().d_model, 2), false),
               ModelError);
}

TEST(FusedEncode, ITransformerMatchesLibTorchAtAnyTokenCount) {
  ITransformer bundled = load_itransformer(kBundledITransformer);
  const int64_t own = 7 + bundled->calendar_token_count();
  std::vector<std::pair<ITransformer, std::string>> models;
  models.emplace_back(bundled, "bundled");
  for (const char* name : {"itr_relu_plain_n1", "itr_gelu_calendar_t_n21"}) {
    const ReferenceFixture fixture = load_reference_fixture(name);
    const ModelConfig config = parse_model_config(fixture.config.dump(), name);
    ITransformer model(config);
    load_state_dict_into(*model, normalise_itransformer_keys(fixture.params, config, name), name);
    models.emplace_back(model, name);
  }
  at::InferenceMode guard;
  for (auto& [model, what] : models) {
    const FusedITransformer fused(*model);
    int seed = 11;
    for (int64_t length : {int64_t{1}, own, int64_t{30}, int64_t{140}}) {
      const at::Tensor tokens = random_tokens(3, length, model->config().d_model, seed++);
      const EncoderOutput expected = model->encoder->forward(tokens, {}, true);
      const std::string named = what + ", " + std::to_string(length) + " tokens";
      expect_encoded_like(fused.encode(tokens, true), expected, named);
      expect_every_copy_encodes_like(fused.weights(), tokens, expected, itransformer_encode_with,
                                     named);
    }
  }
}

// A sequence's output and weights are the same to the bit alone and at any position of a
// batch; the output the same with and without weights.
template <typename Fused>
void expect_batch_invariant(const Fused& fused, int64_t length, int64_t d_model,
                            const std::string& what) {
  const at::Tensor batch = random_tokens(9, length, d_model, 21);
  const EncoderOutput all = fused.encode(batch, true);
  EXPECT_TRUE(at::equal(fused.encode(batch, false).output, all.output)) << what;
  for (int64_t i : {0, 4, 8}) {
    const EncoderOutput alone = fused.encode(batch.narrow(0, i, 1), true);
    EXPECT_TRUE(at::equal(alone.output[0], all.output[i])) << what << ", sequence " << i;
    for (size_t layer = 0; layer < all.weights.size(); ++layer) {
      EXPECT_TRUE(at::equal(alone.weights[layer][0], all.weights[layer][i]))
          << what << ", sequence " << i << ", layer " << layer;
    }
  }
}

TEST(FusedEncode, ASequenceIsBitwiseTheSameAloneOrBatched) {
  PatchTST patchtst = load_patchtst(kBundled);
  expect_batch_invariant(FusedPatchTST(*patchtst), 17, patchtst->config().d_model, "PatchTST");
  ITransformer itransformer = load_itransformer(kBundledITransformer);
  expect_batch_invariant(FusedITransformer(*itransformer), 11, itransformer->config().d_model,
                         "iTransformer");
}

TEST(FusedEncode, RefusesTokensOfTheWrongShape) {
  PatchTST model(default_model_shape());
  const FusedPatchTST fused(*model);
  const int64_t d = model->config().d_model;
  EXPECT_THROW(fused.encode(torch::zeros({2, 5, d + 1}), false), ModelError);
  EXPECT_THROW(fused.encode(torch::zeros({5, d}), false), ModelError);
  EXPECT_THROW(fused.encode(torch::zeros({2, 0, d}), false), ModelError);
  EXPECT_THROW(fused.encode(torch::zeros({2, 5, d}, at::kDouble), false), ModelError);
}

}  // namespace
}  // namespace tsserve::testing
