#pragma once
// The floating-point operations of one TimeXer sample (a multiply-add counts 2), as the
// module defines them: what the benchmarks divide by the time to compare the fused forward
// with the measured FMA peak (BENCHMARKS.md). The fused kernels also run the patch GEMM
// over each variable's zero global-token row and the head over the padded features; those
// are not counted, so the share of the peak is of useful work.

#include "tsserve/model/fused_timexer_weights.h"

namespace tsserve::model {

inline double timexer_flops_per_sample(const FusedTimeXerWeights& w) {
  const double K = static_cast<double>(w.endogenous());
  const double L = static_cast<double>(w.tokens());
  const double P = static_cast<double>(w.patches);
  const double V = static_cast<double>(w.covariates());
  const double D = static_cast<double>(w.d_model);
  const double Dff = static_cast<double>(w.d_ff);
  const double H = static_cast<double>(w.n_heads);
  const double E = D / H;
  const double embeddings = 2 * (K * P * w.patch_len * D + V * w.seq_len * D);
  const double self_attention =
      2 * (4 * K * L * D * D + 2 * K * H * L * L * E);  // Q, K, V, out; scores and context
  const double cross_attention = 2 * (2 * K * D * D + 2 * V * D * D + 2 * H * K * V * E);
  const double feed_forward = 2 * (2 * K * L * D * Dff);
  const double head = 2 * K * L * D * w.pred_len;
  return embeddings +
         static_cast<double>(w.layers.size()) * (self_attention + cross_attention + feed_forward) +
         head;
}

}  // namespace tsserve::model
