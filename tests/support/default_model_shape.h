#pragma once
// The bundled model's shape (PatchTST/42 on ETTh1) without its weights, for tests and
// benchmarks whose results do not depend on trained values.

#include "tsserve/model/model_config.h"

namespace tsserve::testing {

inline model::ModelConfig default_model_shape(
    model::AttentionKind attention = model::AttentionKind::kFull, bool batch_invariant = true) {
  model::ModelConfig config;
  config.seq_len = 336;
  config.pred_len = 96;
  config.d_model = 16;
  config.n_heads = 4;
  config.e_layers = 3;
  config.d_ff = 128;
  config.factor = 3;
  config.norm = model::FinalNorm::kBatch;
  config.attention = attention;
  config.batch_invariant = batch_invariant;
  return config;
}

}  // namespace tsserve::testing
