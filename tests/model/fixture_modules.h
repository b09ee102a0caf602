#pragma once
// Builds the tsserve module a reference fixture describes, with the fixture's weights.

#include <memory>

#include "reference_fixture.h"
#include "tsserve/model/encoder.h"
#include "tsserve/model/inner_attention.h"
#include "tsserve/model/patchtst.h"

namespace tsserve::testing {

struct InnerAttentionCase {
  std::shared_ptr<const model::InnerAttention> attention;
  model::AttentionMask mask;  // causal flag from the config, key padding from the inputs
};

// config: {"kind", "mask_flag", "factor", "layout", "seed"}.
InnerAttentionCase make_inner_attention(const nlohmann::json& config);

// Key padding from the fixture's optional valid_lengths input, for S keys.
model::AttentionMask with_key_padding(model::AttentionMask mask, const ReferenceFixture& fixture,
                                      int64_t key_length);

model::AttentionLayer make_attention_layer(const ReferenceFixture& fixture);
model::EncoderLayer make_encoder_layer(const ReferenceFixture& fixture);
model::Encoder make_encoder(const ReferenceFixture& fixture);
// A PatchTST fixture: the config (TSLib names) and its state_dict, in eval mode.
model::PatchTST make_patchtst(const ReferenceFixture& fixture);

}  // namespace tsserve::testing
