#include "naive_prob_attention.h"

#include <cmath>

namespace tsserve::bench {

at::Tensor naive_prob_attention(const at::Tensor& queries, const at::Tensor& keys,
                                const at::Tensor& values, int64_t factor) {
  const at::Tensor q = queries.transpose(1, 2);  // [B, H, L, E]
  const at::Tensor k = keys.transpose(1, 2);
  const at::Tensor v = values.transpose(1, 2);
  const int64_t B = q.size(0), H = q.size(1), L_Q = q.size(2), E = q.size(3), L_K = k.size(2);
  const auto log_ceil = [](int64_t n) {
    return static_cast<int64_t>(std::ceil(std::log(static_cast<double>(n))));
  };
  const int64_t sample_k = std::min(factor * log_ceil(L_K), L_K);
  const int64_t n_top = std::min(factor * log_ceil(L_Q), L_Q);

  // Informer's _prob_QK: index the expanded view, which copies every sampled key row.
  const at::Tensor k_expand = k.unsqueeze(-3).expand({B, H, L_Q, L_K, E});
  const at::Tensor index_sample = torch::randint(L_K, {L_Q, sample_k}, torch::kLong);
  const at::Tensor k_sample =
      k_expand.index({torch::indexing::Slice(), torch::indexing::Slice(),
                      torch::arange(L_Q).unsqueeze(1), index_sample, torch::indexing::Slice()});
  const at::Tensor qk_sample = torch::matmul(q.unsqueeze(-2), k_sample.transpose(-2, -1)).squeeze(-2);
  const at::Tensor sparsity = std::get<0>(qk_sample.max(-1)) - qk_sample.sum(-1) / L_K;
  const at::Tensor top = std::get<1>(sparsity.topk(n_top, -1, true, false));  // [B, H, u]

  const at::Tensor q_reduce =
      q.index({torch::arange(B).view({B, 1, 1}), torch::arange(H).view({1, H, 1}), top});
  const double scale = 1.0 / std::sqrt(static_cast<double>(E));
  const at::Tensor scores = torch::matmul(q_reduce, k.transpose(-2, -1)) * scale;  // [B, H, u, L_K]

  // Lazy queries get the mean of V; the top queries their attention output.
  at::Tensor context = v.mean(-2, true).expand({B, H, L_Q, E}).clone();
  context.index_put_({torch::arange(B).view({B, 1, 1}), torch::arange(H).view({1, H, 1}), top},
                     torch::matmul(torch::softmax(scores, -1), v));
  return context.transpose(1, 2).contiguous();
}

}  // namespace tsserve::bench
