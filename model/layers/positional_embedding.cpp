#include "tsserve/model/positional_embedding.h"

#include <ATen/ATen.h>

#include <cmath>

namespace tsserve::model {

at::Tensor sinusoid_table(int64_t rows, int64_t d_model) {
  // Computed in float32 as PyTorch does, so a model built without a checkpoint matches too.
  const at::Tensor position = at::arange(rows, at::kFloat).unsqueeze(1);
  const at::Tensor rate =
      (at::arange(0, d_model, 2, at::kFloat) * (-std::log(10000.0) / d_model)).exp();
  at::Tensor table = at::zeros({rows, d_model}, at::kFloat);
  table.slice(1, 0, d_model, 2).copy_(at::sin(position * rate));
  table.slice(1, 1, d_model, 2).copy_(at::cos(position * rate).slice(1, 0, d_model / 2));
  return table;
}

PositionalEmbeddingImpl::PositionalEmbeddingImpl(int64_t d_model) {
  pe = register_buffer("pe", sinusoid_table(kMaxLength, d_model).unsqueeze(0));
}

}  // namespace tsserve::model
