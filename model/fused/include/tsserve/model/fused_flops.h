#pragma once
// Floating-point operations of one series row through the PatchTST forward, by stage
// (a multiply-add counts 2), as the model defines them: no padding, no softmax/norm
// transcendental costs beyond one op per element. Used to state the fused forward's
// speed as a fraction of the machine's FMA peak (tests/bench/model_bench.cpp).

#include <cstdint>

#include "tsserve/model/fused_weights.h"

namespace tsserve::model {

struct ForwardFlops {
  double embedding = 0;     // patch_len -> D per patch
  double projections = 0;   // Q, K, V and out, every layer
  double attention = 0;     // scores, softmax, weighted sum, every layer
  double feed_forward = 0;  // D -> D_ff -> D and the activation, every layer
  double norms = 0;         // LayerNorms, the final norm, instance norm
  double head = 0;          // D*P -> F
  double total() const { return embedding + projections + attention + feed_forward + norms + head; }
};

inline ForwardFlops forward_flops_per_row(const FusedWeights& w) {
  const double p = static_cast<double>(w.patches);
  const double d = static_cast<double>(w.d_model);
  const double layers = static_cast<double>(w.layers.size());
  ForwardFlops f;
  f.embedding = 2 * p * static_cast<double>(w.patch_len) * d;
  f.projections = layers * 4 * 2 * p * d * d;
  f.attention = layers * (2 * 2 * p * p * d + 3 * p * p * static_cast<double>(w.n_heads));
  f.feed_forward =
      layers * (2 * 2 * p * d * static_cast<double>(w.d_ff) + p * static_cast<double>(w.d_ff));
  f.norms = (2 * layers + 1) * 5 * p * d + 4 * static_cast<double>(w.seq_len);
  f.head = 2 * d * p * static_cast<double>(w.pred_len);
  return f;
}

}  // namespace tsserve::model
