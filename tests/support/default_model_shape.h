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

// The tiny model of tests/bench/make_tiny_model.py (T=16, F=4, D=8, 1 layer): its forward
// takes microseconds, so serving it shows the server's own overhead.
inline model::ModelConfig tiny_model_shape() {
  model::ModelConfig config;
  config.seq_len = 16;
  config.pred_len = 4;
  config.d_model = 8;
  config.n_heads = 2;
  config.e_layers = 1;
  config.d_ff = 16;
  config.patch_len = 8;
  config.stride = 8;
  config.norm = model::FinalNorm::kBatch;
  return config;
}

}  // namespace tsserve::testing
