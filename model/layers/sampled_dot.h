#pragma once
// The sampled scores of ProbSparse attention: for every query l and sample j,
// q[b,h,l,:] . k[b,h,index[l,j],:]. Internal to the model library.

#include <ATen/core/Tensor.h>

namespace tsserve::model {

// q [B, H, L_Q, E], k [B, H, L_K, E], index [L_Q, U] (int64, same device) -> [B, H, L_Q, U].
// On the CPU in float32, a fused loop reads each sampled key once and writes only the
// output (memory B*H*L_Q*U); every dot product sums in one fixed order, so results are
// the same whatever the batch, thread count or SIMD width. Elsewhere it gathers keys in
// chunks of sample columns with a per-row memory budget.
at::Tensor sampled_dot(const at::Tensor& q, const at::Tensor& k, const at::Tensor& index);

}  // namespace tsserve::model
