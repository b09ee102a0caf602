#include "tsserve/model/patch_embedding.h"

#include <ATen/ATen.h>

#include "tsserve/model/model_error.h"
#include "tsserve/model/row_linear.h"

namespace tsserve::model {

PatchEmbeddingImpl::PatchEmbeddingImpl(int64_t d_model, int64_t patch_len, int64_t stride,
                                       bool batch_invariant)
    : patch_len_(patch_len), stride_(stride), batch_invariant_(batch_invariant) {
  value_embedding =
      register_module("value_embedding",
                      torch::nn::Linear(torch::nn::LinearOptions(patch_len, d_model).bias(false)));
  position_embedding = register_module("position_embedding", PositionalEmbedding(d_model));
}

at::Tensor PatchEmbeddingImpl::forward(const at::Tensor& series) {
  const int64_t rows = series.size(0);
  const at::Tensor padded =
      at::cat({series, series.narrow(1, series.size(1) - 1, 1).expand({rows, stride_})}, 1);
  const at::Tensor patches = padded.unfold(1, patch_len_, stride_);  // [R, P, patch_len]
  const int64_t patch_count = patches.size(1);
  if (patch_count > PositionalEmbeddingImpl::kMaxLength) {
    throw ModelError("the series gives " + std::to_string(patch_count) +
                     " patches; the position embedding covers at most " +
                     std::to_string(PositionalEmbeddingImpl::kMaxLength));
  }
  const at::Tensor tokens =
      row_linear(patches.contiguous(), value_embedding->weight, {}, batch_invariant_);
  return tokens + position_embedding->pe.narrow(1, 0, patch_count);
}

}  // namespace tsserve::model
