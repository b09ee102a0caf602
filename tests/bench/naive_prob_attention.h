#pragma once
// ProbSparse attention as Informer's reference code computes it, for comparison only: the
// key sample is gathered through the expanded [B, H, L_Q, L_K, E] view of K, which
// materialises a [B, H, L_Q, U, E] copy of the sampled keys. tsserve's ProbAttention
// computes the same sampled scores without that copy (model/layers/sampled_dot.cpp).

#include <torch/torch.h>

namespace tsserve::bench {

// queries/keys/values [B, L, H, E] -> context [B, L, H, E] (canonical layout, no mask).
at::Tensor naive_prob_attention(const at::Tensor& queries, const at::Tensor& keys,
                                const at::Tensor& values, int64_t factor);

}  // namespace tsserve::bench
