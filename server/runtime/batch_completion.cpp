#include "server/runtime/batch_completion.h"

#include <ATen/ATen.h>

namespace tsserve::server {

std::vector<float> copy_floats(const at::Tensor& t) {
  const at::Tensor c = t.contiguous();
  const float* data = c.data_ptr<float>();
  return std::vector<float>(data, data + c.numel());
}

AttentionBlock attention_block(const at::Tensor& map, int32_t layer, int32_t variable,
                               bool average_heads) {
  return attention_block_as_given(average_heads ? map.mean(0) : map, layer, variable,
                                  average_heads);
}

AttentionBlock attention_block_as_given(const at::Tensor& map, int32_t layer, int32_t variable,
                                        bool heads_averaged) {
  AttentionBlock block;
  block.layer = layer;
  block.variable = variable;
  block.heads_averaged = heads_averaged;
  block.shape = map.sizes().vec();
  block.weights = copy_floats(map);
  return block;
}

std::vector<AttentionBlock> select_attention(const std::vector<at::Tensor>& weights,
                                             int64_t first_row, const AttentionSelection& want,
                                             const std::vector<int32_t>& units) {
  std::vector<AttentionBlock> blocks;
  if (!want.enabled) return blocks;
  for (int32_t unit : units) {
    for (int32_t layer : want.layers) {
      blocks.push_back(attention_block(weights.at(static_cast<size_t>(layer))[first_row + unit],
                                       layer, unit, want.average_heads));
    }
  }
  return blocks;
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::duration<double>>(to - from).count();
}

}  // namespace tsserve::server
