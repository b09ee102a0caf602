#include "server/families/sample_batch.h"

#include <ATen/ATen.h>

#include <cstring>

namespace tsserve::server {

SampleBatch gather_sample_batch(const std::vector<SampleSlot>& slots, int64_t variables,
                                int64_t seq_len, int64_t calendar_tokens) {
  const auto count = static_cast<int64_t>(slots.size());
  const int64_t T = seq_len;
  const int64_t C = calendar_tokens;
  SampleBatch batch;
  batch.series = at::empty({count, variables, T}, at::kFloat);
  if (C > 0) batch.calendar = at::empty({count, C, T}, at::kFloat);
  batch.requests.resize(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const auto& [task, b] = slots[static_cast<size_t>(i)];
    const ForecastInput& input = task->input;
    std::memcpy(batch.series[i].data_ptr<float>(), input.rows.data() + b * variables * T,
                static_cast<size_t>(variables * T) * sizeof(float));
    if (C > 0) {
      std::memcpy(batch.calendar[i].data_ptr<float>(), input.calendar.data() + b * C * T,
                  static_cast<size_t>(C * T) * sizeof(float));
    }
    if (wants_sample_maps(input, b)) {
      batch.requests[static_cast<size_t>(i)] = {input.attention.layers,
                                                input.attention.average_heads};
      batch.need_attention = true;
    }
  }
  return batch;
}

}  // namespace tsserve::server
