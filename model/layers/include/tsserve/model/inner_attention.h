#pragma once
// The attention kernel inside an AttentionLayer (after the Q/K/V projections). Full and
// ProbSparse attention implement it. Implementations hold no parameters and no mutable
// state, so one instance may be used from several threads at once.

#include "tsserve/model/attention_types.h"

namespace tsserve::model {

class InnerAttention {
 public:
  virtual ~InnerAttention() = default;

  // queries [B, L, H, E], keys and values [B, S, H, E] (L may differ from S).
  virtual AttentionOutput forward(const at::Tensor& queries, const at::Tensor& keys,
                                  const at::Tensor& values, const AttentionMask& mask,
                                  bool need_weights) const = 0;
};

}  // namespace tsserve::model
