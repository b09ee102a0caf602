#pragma once
// The Encode batch processor, for every family whose forecaster has
// `encode(tokens [B, L, d_model], need_attention) -> model::EncoderOutput` and `config()`.
//
// A batch is grouped by token count and each group runs as one [b, L, D] forward: padding
// to a common length would change the GEMM and softmax shapes and with them the last
// bits, so a sequence's answer is bitwise the one it gets alone.
//
// Errors as every processor: logged, then the batcher completes the batch INTERNAL.

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <map>
#include <vector>

#include "server/batching/request_task.h"
#include "server/runtime/batch_completion.h"
#include "tsserve/model/encoder.h"

namespace tsserve::server {

template <typename Forecaster>
void run_encode_batch(Batch& batch, const Forecaster& forecaster, BatchObserver* observer) {
  const int64_t width = forecaster.config().d_model;
  std::map<int64_t, std::vector<EncodeTask*>> by_length;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<EncodeTask&>(*base);
    by_length[task.input.tokens].push_back(&task);
  }

  const auto start = std::chrono::steady_clock::now();
  for (auto& [length, group] : by_length) {
    const auto count = static_cast<int64_t>(group.size());
    at::Tensor tokens = at::empty({count, length, width}, at::kFloat);
    bool need_attention = false;
    for (int64_t i = 0; i < count; ++i) {
      const auto& values = group[static_cast<size_t>(i)]->input.values;
      std::memcpy(tokens[i].data_ptr<float>(), values.data(), values.size() * sizeof(float));
      need_attention = need_attention || group[static_cast<size_t>(i)]->input.attention.enabled;
    }
    const model::EncoderOutput result = forecaster.encode(tokens, need_attention);
    for (int64_t i = 0; i < count; ++i) {
      EncodeTask& task = *group[static_cast<size_t>(i)];
      task.output.output = copy_floats(result.output[i]);
      task.output.attention =
          select_attention(result.weights, i, task.input.attention, std::vector<int32_t>{0});
    }
  }
  const double compute = seconds_between(start, std::chrono::steady_clock::now());
  finish_tasks<EncodeTask>(batch, compute, observer);
}

template <typename Forecaster>
DynamicBatcher::Processor encode_processor(const Forecaster& forecaster, BatchObserver* observer) {
  return logged("Encode", forecaster, observer, run_encode_batch<Forecaster>);
}

}  // namespace tsserve::server
