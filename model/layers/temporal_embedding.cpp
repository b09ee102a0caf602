#include "tsserve/model/temporal_embedding.h"

#include <ATen/ATen.h>

#include "tsserve/model/model_error.h"
#include "tsserve/model/positional_embedding.h"
#include "tsserve/model/row_linear.h"
#include "tsserve/model/time_marks.h"

namespace tsserve::model {

FixedEmbeddingImpl::FixedEmbeddingImpl(int64_t rows, int64_t d_model) {
  emb = register_module("emb", torch::nn::Embedding(rows, d_model));
  at::NoGradGuard no_grad;
  emb->weight.copy_(sinusoid_table(rows, d_model));
  emb->weight.set_requires_grad(false);
}

TemporalEmbeddingImpl::TemporalEmbeddingImpl(int64_t d_model, const std::string& embed,
                                             const std::string& freq) {
  if (embed != "fixed" && embed != "learned") {
    throw ModelError("TemporalEmbedding needs 'embed' \"fixed\" or \"learned\", got \"" + embed +
                     "\"");
  }
  struct Table {
    const char* name;
    int64_t rows;
    int64_t column;
  };
  // TSLib's sum order; the minute table only for a minute frequency.
  std::vector<Table> tables = {
      {"hour", 24, 3}, {"weekday", 7, 2}, {"day", 32, 1}, {"month", 13, 0}};
  if (has_minute_table(freq)) tables.push_back({"minute", 4, 4});
  for (const Table& t : tables) {
    const std::string module_name = std::string(t.name) + "_embed";
    at::Tensor weight;
    if (embed == "fixed") {
      weight = register_module(module_name, FixedEmbedding(t.rows, d_model))->emb->weight;
    } else {
      weight = register_module(module_name, torch::nn::Embedding(t.rows, d_model))->weight;
    }
    lookups_.push_back({t.name, t.column, weight});
  }
}

at::Tensor TemporalEmbeddingImpl::forward(const at::Tensor& marks) {
  const at::Tensor index = marks.to(at::kLong);  // TSLib's x.long(): truncation
  at::Tensor sum;
  for (const Lookup& lookup : lookups_) {
    const at::Tensor column = index.select(-1, lookup.column);
    const int64_t rows = lookup.table.size(0);
    if (column.numel() > 0) {
      const int64_t low = column.min().item<int64_t>();
      const int64_t high = column.max().item<int64_t>();
      if (low < 0 || high >= rows) {
        throw ModelError("time mark column " + std::to_string(lookup.column) + " ('" + lookup.name +
                         "') holds " + std::to_string(low < 0 ? low : high) +
                         "; its table has rows 0.." + std::to_string(rows - 1));
      }
    }
    at::Tensor rows_of = at::embedding(lookup.table, column);
    sum = sum.defined() ? sum + rows_of : rows_of;
  }
  return sum;
}

TimeFeatureEmbeddingImpl::TimeFeatureEmbeddingImpl(int64_t features, int64_t d_model,
                                                   bool batch_invariant)
    : batch_invariant_(batch_invariant) {
  embed = register_module(
      "embed", torch::nn::Linear(torch::nn::LinearOptions(features, d_model).bias(false)));
}

at::Tensor TimeFeatureEmbeddingImpl::forward(const at::Tensor& marks) {
  return row_linear(marks, embed->weight, {}, batch_invariant_);
}

}  // namespace tsserve::model
