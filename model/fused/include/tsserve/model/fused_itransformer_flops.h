#pragma once
// Floating-point operations of one sample (N variables) through the iTransformer forward,
// by stage (a multiply-add counts 2), as fused_flops.h counts PatchTST's: no padding, one
// op per element for the softmax's and norms' transcendentals and divisions.
//
// Two counts. kModel: the LibTorch module's forward (itransformer.h): every layer over
// all N + C tokens, the final norm over all of them, the projection over the N variable
// tokens. kFused: what the fused forward executes, which skips in the last layer all
// that only the dropped calendar tokens' outputs need (their queries, attention rows,
// output projection, feed-forward and norms): fewer FLOPs for the same forecast. With
// no calendar tokens the two are equal. For the bundled model (N = 7, C = 4, T = F = 96,
// D = d_ff = 256, 8 heads, 2 layers): kModel 18.5 MFLOP, kFused 16.4 MFLOP.

#include <cstdint>

#include "tsserve/model/fused_itransformer_weights.h"

namespace tsserve::model {

struct ITransformerFlops {
  double embedding = 0;     // seq_len -> D per token
  double projections = 0;   // Q, K, V and out, every layer
  double attention = 0;     // scores, softmax, weighted sum, every layer
  double feed_forward = 0;  // D -> D_ff -> D and the activation, every layer
  double norms = 0;         // LayerNorms, the final norm, instance norm and its inverse
  double head = 0;          // D -> pred_len per variable token
  double total() const { return embedding + projections + attention + feed_forward + norms + head; }
};

enum class ITransformerFlopsCount { kModel, kFused };

inline ITransformerFlops itransformer_flops_per_sample(const FusedITransformerWeights& w,
                                                       int64_t variables,
                                                       ITransformerFlopsCount count) {
  const double n = static_cast<double>(variables);
  const double l = n + static_cast<double>(w.calendar_tokens);
  const double d = static_cast<double>(w.d_model);
  const double ff = static_cast<double>(w.d_ff);
  const double h = static_cast<double>(w.n_heads);
  const double t = static_cast<double>(w.seq_len);
  const double layers = static_cast<double>(w.layers.size());
  // The last layer's query-side token count: all tokens (kModel), the variables (kFused).
  const double last_queries = count == ITransformerFlopsCount::kFused && layers > 0 ? n : l;
  const double full_layers = layers > 0 ? layers - 1 : 0;
  const auto layer_flops = [&](double queries, ITransformerFlops& f) {
    f.projections += 2 * 2 * l * d * d + 2 * 2 * queries * d * d;  // K, V; Q, out
    f.attention += 2 * 2 * queries * l * d + 3 * queries * l * h;
    f.feed_forward += 2 * 2 * queries * d * ff + queries * ff;
    f.norms += 2 * 5 * queries * d;
  };
  ITransformerFlops f;
  f.embedding = 2 * l * t * d;
  for (int i = 0; i < static_cast<int>(full_layers); ++i) layer_flops(l, f);
  if (layers > 0) layer_flops(last_queries, f);
  const double final_rows = count == ITransformerFlopsCount::kFused ? n : l;
  f.norms += 5 * final_rows * d + 4 * n * t + 2 * n * static_cast<double>(w.pred_len);
  f.head = 2 * n * d * static_cast<double>(w.pred_len);
  return f;
}

}  // namespace tsserve::model
