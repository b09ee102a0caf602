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
  const at::Tensor weights = average_heads ? map.mean(0) : map;
  AttentionBlock block;
  block.layer = layer;
  block.variable = variable;
  block.heads_averaged = average_heads;
  block.shape = weights.sizes().vec();
  block.weights = copy_floats(weights);
  return block;
}

double seconds_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<std::chrono::duration<double>>(to - from).count();
}

}  // namespace tsserve::server
