#include "tsserve/model/data_embedding.h"

#include <ATen/ATen.h>

namespace tsserve::model {

TokenEmbeddingImpl::TokenEmbeddingImpl(int64_t c_in, int64_t d_model) {
  tokenConv =
      register_module("tokenConv", torch::nn::Conv1d(torch::nn::Conv1dOptions(c_in, d_model, 3)
                                                         .padding(1)
                                                         .padding_mode(torch::kCircular)
                                                         .bias(false)));
}

at::Tensor TokenEmbeddingImpl::forward(const at::Tensor& x) {
  return tokenConv->forward(x.permute({0, 2, 1})).transpose(1, 2);
}

DataEmbeddingImpl::DataEmbeddingImpl(int64_t c_in, int64_t d_model, const std::string& embed,
                                     const std::string& freq, int64_t mark_columns,
                                     bool batch_invariant) {
  value_embedding = register_module("value_embedding", TokenEmbedding(c_in, d_model));
  position_embedding = register_module("position_embedding", PositionalEmbedding(d_model));
  if (embed == "timeF") {
    time_feature_embedding = register_module(
        "temporal_embedding", TimeFeatureEmbedding(mark_columns, d_model, batch_invariant));
  } else {
    table_embedding =
        register_module("temporal_embedding", TemporalEmbedding(d_model, embed, freq));
  }
}

at::Tensor DataEmbeddingImpl::forward(const at::Tensor& x, const at::Tensor& marks) {
  const at::Tensor temporal = time_feature_embedding ? time_feature_embedding->forward(marks)
                                                     : table_embedding->forward(marks);
  return value_embedding->forward(x) + temporal + position_embedding->pe.narrow(1, 0, x.size(1));
}

}  // namespace tsserve::model
