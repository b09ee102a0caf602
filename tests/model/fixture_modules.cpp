#include "fixture_modules.h"

#include "tsserve/model/full_attention.h"
#include "tsserve/model/patchtst_checkpoint.h"
#include "tsserve/model/prob_attention.h"
#include "tsserve/model/state_dict_loading.h"

namespace tsserve::testing {

using namespace tsserve::model;

InnerAttentionCase make_inner_attention(const nlohmann::json& config) {
  InnerAttentionCase out;
  out.mask.causal = config.value("mask_flag", false);
  if (config.at("kind") == "full") {
    out.attention = std::make_shared<FullAttention>();
    return out;
  }
  ProbAttentionOptions options;
  options.factor = config.value("factor", 5);
  options.layout =
      config.value("layout", "canonical") == "tslib" ? ProbLayout::kTslib : ProbLayout::kCanonical;
  options.seed = config.value("seed", 0ULL);
  out.attention = std::make_shared<ProbAttention>(options);
  return out;
}

AttentionMask with_key_padding(AttentionMask mask, const ReferenceFixture& fixture,
                               int64_t key_length) {
  if (fixture.has_input("valid_lengths")) {
    mask.key_padding = key_padding_from_lengths(fixture.input("valid_lengths"), key_length);
  }
  return mask;
}

AttentionLayer make_attention_layer(const ReferenceFixture& fixture) {
  const auto& c = fixture.config;
  AttentionLayer layer(make_inner_attention(c.at("attention")).attention, c.at("d_model"),
                       c.at("n_heads"));
  load_state_dict_into(*layer, fixture.params, "fixture");
  layer->eval();
  return layer;
}

namespace {

EncoderLayer build_encoder_layer(const nlohmann::json& c) {
  const auto activation = c.at("activation") == "relu" ? Activation::kRelu : Activation::kGelu;
  return EncoderLayer(AttentionLayer(make_inner_attention(c.at("attention")).attention,
                                     c.at("d_model"), c.at("n_heads")),
                      c.at("d_model"), c.at("d_ff"), activation);
}

}  // namespace

EncoderLayer make_encoder_layer(const ReferenceFixture& fixture) {
  EncoderLayer layer = build_encoder_layer(fixture.config);
  load_state_dict_into(*layer, fixture.params, "fixture");
  layer->eval();
  return layer;
}

Encoder make_encoder(const ReferenceFixture& fixture) {
  const auto& c = fixture.config;
  std::vector<EncoderLayer> layers;
  std::vector<DistillingConv> convs;
  const int64_t count = c.at("e_layers");
  for (int64_t i = 0; i < count; ++i) {
    layers.push_back(build_encoder_layer(c));
    if (c.value("distil", false) && i + 1 < count) {
      convs.emplace_back(c.at("d_model").get<int64_t>(), c.value("distil_padding", 2));
    }
  }
  const FinalNorm norm =
      c.value("norm", "layer") == "batch" ? FinalNorm::kBatch : FinalNorm::kLayer;
  Encoder encoder(std::move(layers), std::move(convs), norm, c.at("d_model").get<int64_t>());
  load_state_dict_into(*encoder, fixture.params, "fixture");
  encoder->eval();
  return encoder;
}

PatchTST make_patchtst(const ReferenceFixture& fixture) {
  ModelConfig config = parse_model_config(fixture.config.dump(), "fixture");
  StateDict params = normalise_patchtst_keys(fixture.params, config, "fixture");
  PatchTST model(config);
  load_state_dict_into(*model, params, "fixture");
  model->eval();
  return model;
}

}  // namespace tsserve::testing
