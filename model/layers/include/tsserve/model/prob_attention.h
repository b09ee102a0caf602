#pragma once
// ProbSparse self-attention (Informer; TSLib's ProbAttention), deterministic.
//
// Only the u queries with the largest sparsity measure attend over all keys; the other
// ("lazy") queries take the mean of V (cumulative sum under a causal mask). Differences
// from the reference, each deliberate:
//  - the key sample is prob_sample_index(seed, ...), not the global random stream;
//  - U_part and u are at least 1 (the reference crashes for L == 1);
//  - sampled scores never go through the [B, H, L_Q, L_K, E] expanded gather: a fused
//    CPU loop needs only the [B, H, L_Q, U] output (see sampled_dot.h);
//  - with key padding, masked keys are left out of the sparsity measure, the lazy mean
//    and the softmax (the reference has no key padding).

#include <optional>

#include "tsserve/model/architecture_choices.h"
#include "tsserve/model/inner_attention.h"

namespace tsserve::model {

// Causality is not an option here: it comes with each call's AttentionMask, as for
// FullAttention.
struct ProbAttentionOptions {
  int64_t factor = 5;
  ProbLayout layout = ProbLayout::kCanonical;
  uint64_t seed = 0;
  std::optional<double> scale;  // 1/sqrt(E) when absent
};

class ProbAttention final : public InnerAttention {
 public:
  explicit ProbAttention(ProbAttentionOptions options) : options_(options) {}

  AttentionOutput forward(const at::Tensor& queries, const at::Tensor& keys,
                          const at::Tensor& values, const AttentionMask& mask,
                          bool need_weights) const override;

  // U_part = factor * ceil(ln L_K) (and u likewise from L_Q), clamped to [1, length].
  static int64_t sample_count(int64_t factor, int64_t length);

 private:
  const ProbAttentionOptions options_;
};

}  // namespace tsserve::model
