#include "tsserve/model/prob_attention.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "tsserve/model/model_error.h"
#include "sampled_dot.h"
#include "tsserve/model/prob_sampling.h"

namespace tsserve::model {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// Sparsity measure M = max_j(q.k_j) - sum_j(q.k_j) / L_K over the sampled keys: [B, H, L_Q].
// With key padding, padded samples are left out and the divisor is the valid key count.
at::Tensor sparsity_measure(at::Tensor scores, const at::Tensor& index,
                            const AttentionMask& mask, int64_t key_length) {
  if (!mask.has_key_padding()) {
    return std::get<0>(scores.max(-1)) - scores.sum(-1) / static_cast<double>(key_length);
  }
  const int64_t batch = scores.size(0);
  const at::Tensor padded_sample = mask.key_padding.index_select(1, index.reshape({-1}))
                                       .view({batch, 1, index.size(0), index.size(1)});
  const at::Tensor valid_keys =
      (~mask.key_padding).sum(-1).clamp_min(1).to(scores.scalar_type()).view({batch, 1, 1});
  const at::Tensor max_part = std::get<0>(scores.masked_fill(padded_sample, kNegInf).max(-1));
  const at::Tensor sum_part = scores.masked_fill(padded_sample, 0.0).sum(-1);
  return max_part - sum_part / valid_keys;
}

// Context of the queries that are not selected: the mean of the valid values, or their
// running sum under a causal mask (the reference uses cumsum, not a running mean).
at::Tensor lazy_context(const at::Tensor& v, const AttentionMask& mask, int64_t query_length) {
  const int64_t batch = v.size(0);
  at::Tensor values = v;
  if (mask.has_key_padding()) {
    values = v.masked_fill(mask.key_padding.view({batch, 1, -1, 1}), 0.0);
  }
  if (mask.causal) return values.cumsum(2);
  at::Tensor mean;
  if (mask.has_key_padding()) {
    const at::Tensor valid_keys =
        (~mask.key_padding).sum(-1).clamp_min(1).to(v.scalar_type()).view({batch, 1, 1});
    mean = values.sum(2) / valid_keys;
  } else {
    mean = values.mean(2);
  }
  return mean.unsqueeze(2).expand({batch, v.size(1), query_length, v.size(3)}).clone();
}

// Attention map rows of the lazy queries: uniform over the valid keys.
at::Tensor lazy_weights(const at::Tensor& like, const AttentionMask& mask, int64_t query_length,
                        int64_t key_length) {
  const int64_t batch = like.size(0);
  const int64_t heads = like.size(1);
  if (!mask.has_key_padding()) {
    return at::full({batch, heads, query_length, key_length}, 1.0 / key_length,
                    like.options());
  }
  const at::Tensor valid = (~mask.key_padding).to(like.scalar_type());
  const at::Tensor row = valid / valid.sum(-1, true).clamp_min(1);
  return row.view({batch, 1, 1, key_length})
      .expand({batch, heads, query_length, key_length})
      .clone();
}

}  // namespace

int64_t ProbAttention::sample_count(int64_t factor, int64_t length) {
  const auto wanted =
      factor * static_cast<int64_t>(std::ceil(std::log(static_cast<double>(length))));
  return std::clamp<int64_t>(wanted, 1, length);
}

AttentionOutput ProbAttention::forward(const at::Tensor& queries, const at::Tensor& keys,
                                       const at::Tensor& values, const AttentionMask& mask,
                                       bool need_weights) const {
  const int64_t batch = queries.size(0);
  const int64_t query_length = queries.size(1);
  const int64_t heads = queries.size(2);
  const int64_t width = queries.size(3);
  const int64_t key_length = keys.size(1);
  if (mask.causal && query_length != key_length) {
    throw ModelError("ProbSparse attention with a causal mask needs as many queries as keys (" +
                     std::to_string(query_length) + " vs " + std::to_string(key_length) + ")");
  }

  const at::Tensor q = queries.transpose(1, 2).contiguous();  // [B, H, L_Q, E]
  const at::Tensor k = keys.transpose(1, 2).contiguous();     // [B, H, L_K, E]
  const at::Tensor v = values.transpose(1, 2).contiguous();   // [B, H, L_K, E]

  const int64_t samples = sample_count(options_.factor, key_length);
  const int64_t active = sample_count(options_.factor, query_length);
  const at::Tensor index =
      prob_sample_index(options_.seed, query_length, key_length, samples).to(q.device());

  const at::Tensor measure = sparsity_measure(sampled_dot(q, k, index), index, mask, key_length);
  const at::Tensor top = std::get<1>(measure.topk(active, -1, true, false));  // [B, H, u]

  const at::Tensor top_rows = top.unsqueeze(-1);
  const at::Tensor top_queries = q.gather(2, top_rows.expand({batch, heads, active, width}));
  const double scale = options_.scale.value_or(1.0 / std::sqrt(static_cast<double>(width)));
  at::Tensor scores = at::matmul(top_queries, k.transpose(-2, -1)).mul_(scale);  // [B,H,u,L_K]
  if (mask.causal) {
    const at::Tensor positions = at::arange(key_length, top.options());
    scores.masked_fill_(positions.view({1, 1, 1, key_length}) > top_rows, kNegInf);
  }
  if (mask.has_key_padding()) {
    scores.masked_fill_(mask.key_padding.view({batch, 1, 1, key_length}), kNegInf);
  }
  at::Tensor weights = at::softmax(scores, -1);
  if (mask.has_key_padding()) weights.nan_to_num_(0.0);  // all keys masked: attend to none

  at::Tensor context = lazy_context(v, mask, query_length);
  context.scatter_(2, top_rows.expand({batch, heads, active, width}), at::matmul(weights, v));

  AttentionOutput out;
  if (options_.layout == ProbLayout::kCanonical) {
    out.context = context.transpose(1, 2).contiguous();
  } else {
    out.context = context.view({batch, query_length, heads, width});
  }
  if (need_weights) {
    out.weights = lazy_weights(q, mask, query_length, key_length);
    out.weights.scatter_(2, top_rows.expand({batch, heads, active, key_length}), weights);
  }
  return out;
}

}  // namespace tsserve::model
