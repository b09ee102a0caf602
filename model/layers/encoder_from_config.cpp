#include "tsserve/model/encoder_from_config.h"

#include <memory>

#include "tsserve/model/full_attention.h"
#include "tsserve/model/prob_attention.h"

namespace tsserve::model {
namespace {

std::shared_ptr<const InnerAttention> make_inner_attention(const ModelConfig& config) {
  if (config.attention == AttentionKind::kFull) return std::make_shared<FullAttention>();
  ProbAttentionOptions options;
  options.factor = config.factor;
  options.layout = config.prob_layout;
  options.seed = config.prob_seed;
  return std::make_shared<ProbAttention>(options);
}

}  // namespace

Encoder encoder_from_config(const ModelConfig& config, FinalNorm final_norm) {
  const bool invariant = config.batch_invariant;
  const auto inner = make_inner_attention(config);
  std::vector<EncoderLayer> layers;
  for (int64_t i = 0; i < config.e_layers; ++i) {
    layers.emplace_back(AttentionLayer(inner, config.d_model, config.n_heads, invariant),
                        config.d_model, config.d_ff, config.activation, invariant);
  }
  return Encoder(std::move(layers), std::vector<DistillingConv>{}, final_norm, config.d_model);
}

}  // namespace tsserve::model
