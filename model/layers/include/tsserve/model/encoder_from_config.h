#pragma once
// The TSLib encoder PatchTST and iTransformer share: config.e_layers EncoderLayers, each an
// AttentionLayer over the config's inner attention (Full, or the server's deterministic
// ProbSparse with factor/prob_layout/prob_seed), then `final_norm`. Module names give
// TSLib's state_dict keys (encoder.attn_layers.<i>.*, encoder.norm.*).

#include "tsserve/model/encoder.h"
#include "tsserve/model/model_config.h"

namespace tsserve::model {

Encoder encoder_from_config(const ModelConfig& config, FinalNorm final_norm);

}  // namespace tsserve::model
