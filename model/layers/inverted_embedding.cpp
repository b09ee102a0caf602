#include "tsserve/model/inverted_embedding.h"

#include <ATen/ATen.h>

#include "tsserve/model/row_linear.h"

namespace tsserve::model {

DataEmbeddingInvertedImpl::DataEmbeddingInvertedImpl(int64_t seq_len, int64_t d_model,
                                                     bool batch_invariant)
    : batch_invariant_(batch_invariant) {
  value_embedding = register_module("value_embedding", torch::nn::Linear(seq_len, d_model));
}

at::Tensor DataEmbeddingInvertedImpl::forward(const at::Tensor& series,
                                              const at::Tensor& calendar) {
  const at::Tensor windows = calendar.defined() ? at::cat({series, calendar}, 1) : series;
  return row_linear(windows, value_embedding->weight, value_embedding->bias, batch_invariant_);
}

}  // namespace tsserve::model
