#pragma once
// Plain data shared by every attention implementation: what to mask, and what comes back.

#include <ATen/core/Tensor.h>

namespace tsserve::model {

// Which keys a query may not look at. Both parts are optional and combine.
struct AttentionMask {
  // Causal (triangular): key s is excluded for query l when s > l.
  bool causal = false;
  // [B, S] bool, true = this key is padding and is excluded (torch.nn.MultiheadAttention's
  // key_padding_mask convention). Undefined = every key is valid. A query whose keys are
  // all excluded gets all-zero attention weights and a zero context, never NaN.
  at::Tensor key_padding;

  bool has_key_padding() const { return key_padding.defined(); }
};

// Builds a key_padding mask [B, S] from per-row valid lengths [B] (int64): keys
// s >= valid_lengths[b] are padding.
at::Tensor key_padding_from_lengths(const at::Tensor& valid_lengths, int64_t key_length);

struct AttentionOutput {
  // [B, L, H, E]; AttentionLayer reads it as [B, L, H*E].
  at::Tensor context;
  // [B, H, L, S] softmax weights; defined only when the caller asked for them.
  at::Tensor weights;
};

}  // namespace tsserve::model
