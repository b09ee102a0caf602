#include "tsserve/model/full_attention.h"

#include <ATen/ATen.h>

#include <cmath>
#include <limits>

namespace tsserve::model {

AttentionOutput FullAttention::forward(const at::Tensor& queries, const at::Tensor& keys,
                                       const at::Tensor& values, const AttentionMask& mask,
                                       bool need_weights) const {
  const int64_t batch = queries.size(0);
  const int64_t query_length = queries.size(1);
  const int64_t key_length = keys.size(1);
  const double scale = scale_.value_or(1.0 / std::sqrt(static_cast<double>(queries.size(3))));

  // [B, H, L, S]; bmm over B*H runs one fixed-shape GEMM per (row, head).
  at::Tensor scores = at::matmul(queries.transpose(1, 2), keys.permute({0, 2, 3, 1}));
  const double neg_inf = -std::numeric_limits<double>::infinity();
  if (mask.causal) {
    auto options = queries.options().dtype(at::kBool);
    scores.masked_fill_(at::ones({query_length, key_length}, options).triu(1), neg_inf);
  }
  if (mask.has_key_padding()) {
    scores.masked_fill_(mask.key_padding.view({batch, 1, 1, key_length}), neg_inf);
  }
  at::Tensor weights = at::softmax(scores.mul_(scale), -1);
  // A query with every key masked has softmax 0/0; it attends to nothing instead.
  if (mask.has_key_padding()) weights.nan_to_num_(0.0);

  AttentionOutput out;
  out.context = at::matmul(weights, values.transpose(1, 2)).transpose(1, 2).contiguous();
  if (need_weights) out.weights = std::move(weights);
  return out;
}

}  // namespace tsserve::model
