#include "tsserve/model/attention_layer.h"

#include <ATen/ATen.h>

#include "tsserve/model/model_error.h"
#include "tsserve/model/row_linear.h"

namespace tsserve::model {

AttentionLayerImpl::AttentionLayerImpl(std::shared_ptr<const InnerAttention> inner,
                                       int64_t d_model, int64_t n_heads, bool batch_invariant)
    : inner_(std::move(inner)),
      d_model_(d_model),
      n_heads_(n_heads),
      batch_invariant_(batch_invariant) {
  if (n_heads <= 0 || d_model % n_heads != 0) {
    throw ModelError("d_model (" + std::to_string(d_model) + ") must be a positive multiple of n_heads (" +
                     std::to_string(n_heads) + ")");
  }
  query_projection = register_module("query_projection", torch::nn::Linear(d_model_, d_model_));
  key_projection = register_module("key_projection", torch::nn::Linear(d_model_, d_model_));
  value_projection = register_module("value_projection", torch::nn::Linear(d_model_, d_model_));
  out_projection = register_module("out_projection", torch::nn::Linear(d_model_, d_model_));
}

AttentionOutput AttentionLayerImpl::forward(const at::Tensor& queries, const at::Tensor& keys,
                                            const at::Tensor& values, const AttentionMask& mask,
                                            bool need_weights) {
  const int64_t batch = queries.size(0);
  const int64_t width = d_model_ / n_heads_;
  auto project = [&](const torch::nn::Linear& linear, const at::Tensor& x) {
    return row_linear(x, linear->weight, linear->bias, batch_invariant_)
        .view({batch, x.size(1), n_heads_, width});
  };
  AttentionOutput attended =
      inner_->forward(project(query_projection, queries), project(key_projection, keys),
                      project(value_projection, values), mask, need_weights);
  const at::Tensor merged = attended.context.reshape({batch, queries.size(1), d_model_});
  attended.context = row_linear(merged, out_projection->weight, out_projection->bias,
                                batch_invariant_);
  return attended;
}

}  // namespace tsserve::model
