#include "server/families/encoder_decoder/encoder_decoder_batches.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <utility>
#include <vector>

#include "server/batching/request_task.h"
#include "server/families/sample_slots.h"
#include "server/runtime/batch_completion.h"

namespace tsserve::server {
namespace {

void run_encoder_decoder_batch(Batch& batch, const model::EncoderDecoderForecaster& forecaster,
                               BatchObserver* observer) {
  const model::ModelConfig& config = forecaster.config();
  const int64_t T = config.seq_len;
  const int64_t F = config.pred_len;
  const int64_t N = config.enc_in;  // the codecs' N rule: every sample carries enc_in
  std::vector<SampleSlot> slots;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    task.output.forecast.assign(static_cast<size_t>(task.input.forecast_rows() * F), 0.0f);
    task.output.attention.clear();
    for (int64_t b = 0; b < task.input.samples; ++b) slots.push_back({&task, b});
  }
  const auto count = static_cast<int64_t>(slots.size());
  const int64_t steps = T + F;
  const int64_t C = count > 0 ? static_cast<int64_t>(slots[0].task->input.calendar.size()) /
                                    (slots[0].task->input.samples * steps)
                              : 0;
  at::Tensor series = at::empty({count, N, T}, at::kFloat);
  at::Tensor marks = at::empty({count, steps, C}, at::kFloat);
  bool need_attention = false;
  for (int64_t i = 0; i < count; ++i) {
    const auto& [task, b] = slots[static_cast<size_t>(i)];
    const ForecastInput& input = task->input;
    std::memcpy(series[i].data_ptr<float>(), input.rows.data() + b * N * T,
                static_cast<size_t>(N * T) * sizeof(float));
    std::memcpy(marks[i].data_ptr<float>(), input.calendar.data() + b * steps * C,
                static_cast<size_t>(steps * C) * sizeof(float));
    need_attention = need_attention || wants_sample_maps(input, b);
  }

  const auto start = std::chrono::steady_clock::now();
  const model::EncoderDecoderForecast result = forecaster.forecast(series, marks, need_attention);
  const double compute = seconds_between(start, std::chrono::steady_clock::now());
  // [S, K, F]: K = N, or 1 with features "MS" (the target: ModelShape::forecast_variables).
  const at::Tensor forecast = result.forecast.contiguous();
  const int64_t K = forecast.size(1);
  for (int64_t i = 0; i < count; ++i) {
    const auto& [task, b] = slots[static_cast<size_t>(i)];
    const float* src = forecast[i].data_ptr<float>();
    std::copy(src, src + K * F, task->output.forecast.begin() + b * K * F);
    if (!wants_sample_maps(task->input, b)) continue;
    const AttentionSelection& want = task->input.attention;
    for (int32_t layer : want.layers) {
      task->output.attention.push_back(
          attention_block(result.encoder_attention.at(static_cast<size_t>(layer))[i], layer,
                          static_cast<int32_t>(b), want.average_heads));
    }
    if (!want.decoder) continue;
    for (size_t layer = 0; layer < result.decoder_attention.size(); ++layer) {
      for (auto [stack, maps] : {std::pair{AttentionStack::kDecoder, &result.decoder_attention},
                                 std::pair{AttentionStack::kCross, &result.cross_attention}}) {
        AttentionBlock block = attention_block((*maps)[layer][i], static_cast<int32_t>(layer),
                                               static_cast<int32_t>(b), want.average_heads);
        block.stack = stack;
        task->output.attention.push_back(std::move(block));
      }
    }
  }
  finish_tasks<ForecastTask>(batch, compute, observer);
}

}  // namespace

DynamicBatcher::Processor encoder_decoder_forecast_processor(const model::EncoderDecoderForecaster& forecaster,
                                                             BatchObserver* observer) {
  return logged("Forecast", forecaster, observer, run_encoder_decoder_batch);
}

}  // namespace tsserve::server
