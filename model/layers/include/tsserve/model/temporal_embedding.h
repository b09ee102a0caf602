#pragma once
// The time-mark embeddings of TSLib's DataEmbedding (layers/Embed.py), by `embed`:
//   "timeF":   TimeFeatureEmbedding, Linear(C -> D, no bias) over the time features
//              (state_dict: embed.weight [D, C]).
//   "fixed":   TemporalEmbedding of FixedEmbedding tables: frozen sinusoid tables that are
//              still in the state_dict (<x>_embed.emb.weight).
//   "learned": TemporalEmbedding of trained nn.Embedding tables (<x>_embed.weight).
// The tables are month (13 rows), day (32), weekday (7), hour (24) and, for a minute
// frequency, minute (4, the minute // 15); marks hold their indices (time_marks.h).
//
// TSLib builds the minute table only for freq == "t" exactly; here any minute frequency
// ("min", "15min") has it, so its marks' minute column is read. A TSLib checkpoint trained
// with such a freq has no minute table: its config should say freq "h" (the other tables
// do not depend on freq), and the loader's message says so.

#include <torch/nn/module.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/pimpl.h>

#include <string>
#include <vector>

namespace tsserve::model {

// TSLib's FixedEmbedding: an nn.Embedding named "emb" filled with sinusoid_table and frozen.
class FixedEmbeddingImpl : public torch::nn::Module {
 public:
  FixedEmbeddingImpl(int64_t rows, int64_t d_model);
  torch::nn::Embedding emb{nullptr};
};
TORCH_MODULE(FixedEmbedding);

class TemporalEmbeddingImpl : public torch::nn::Module {
 public:
  // embed: "fixed" or "learned".
  TemporalEmbeddingImpl(int64_t d_model, const std::string& embed, const std::string& freq);

  // marks [B, L, C] (whole-number floats, C = 4 or 5) -> [B, L, D], the tables' rows summed
  // in TSLib's order (hour, weekday, day, month, minute). Throws ModelError naming the column
  // of a mark outside its table.
  at::Tensor forward(const at::Tensor& marks);

 private:
  struct Lookup {
    std::string name;  // the mark column's name, for messages
    int64_t column;
    at::Tensor table;  // [rows, D], the registered parameter itself
  };
  std::vector<Lookup> lookups_;
};
TORCH_MODULE(TemporalEmbedding);

class TimeFeatureEmbeddingImpl : public torch::nn::Module {
 public:
  TimeFeatureEmbeddingImpl(int64_t features, int64_t d_model, bool batch_invariant = true);

  // marks [B, L, C] -> [B, L, D].
  at::Tensor forward(const at::Tensor& marks);

  torch::nn::Linear embed{nullptr};

 private:
  bool batch_invariant_;
};
TORCH_MODULE(TimeFeatureEmbedding);

}  // namespace tsserve::model
