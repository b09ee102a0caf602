#include "server/runtime/batch_processors.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <map>

#include "server/batching/request_task.h"
#include "server/runtime/batch_completion.h"

// Forecast batches stack every variable of every request as one row [R, seq_len]; the
// model is channel-independent and row-invariant, so each request's result is bitwise the
// one it would get alone. Encode batches are grouped by token count and each group runs as
// one [b, L, D] forward: padding to a common length would change the GEMM and softmax
// shapes and with them the last bits, so grouping keeps the same guarantee.

namespace tsserve::server {
namespace {

using Seconds = std::chrono::duration<double>;

// The attention maps a task asked for, cut from the batch's per-layer weights.
// weights[layer] is [R, H, P, P]; `first_row` is the task's first row in the batch.
std::vector<AttentionBlock> select_attention(const std::vector<at::Tensor>& weights,
                                             int64_t first_row, const AttentionSelection& want,
                                             const std::vector<int32_t>& variables) {
  std::vector<AttentionBlock> blocks;
  if (!want.enabled) return blocks;
  for (int32_t variable : variables) {
    for (int32_t layer : want.layers) {
      blocks.push_back(attention_block(weights.at(static_cast<size_t>(layer))[first_row + variable],
                                       layer, variable, want.average_heads));
    }
  }
  return blocks;
}

void run_forecast_batch(Batch& batch, const ModelRunner& runner, BatchObserver* observer) {
  const int64_t seq_len = runner.config().seq_len;
  const int64_t pred_len = runner.config().pred_len;
  at::Tensor rows = at::empty({static_cast<int64_t>(batch.rows), seq_len}, at::kFloat);
  bool need_attention = false;
  {
    float* dst = rows.data_ptr<float>();
    for (const auto& base : batch.tasks) {
      const auto& input = static_cast<const ForecastTask&>(*base).input;
      std::memcpy(dst, input.rows.data(), input.rows.size() * sizeof(float));
      dst += input.rows.size();
      need_attention = need_attention || input.attention.enabled;
    }
  }

  const auto start = std::chrono::steady_clock::now();
  const ForecastRows result = runner.forecast(rows, need_attention);
  const double compute = Seconds(std::chrono::steady_clock::now() - start).count();

  const float* forecast = result.forecast.data_ptr<float>();
  int64_t first_row = 0;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    const int64_t n = task.input.series_rows;
    task.output.forecast.assign(forecast + first_row * pred_len,
                                forecast + (first_row + n) * pred_len);
    task.output.attention = select_attention(result.attention, first_row, task.input.attention,
                                             task.input.attention.variables);
    first_row += n;
  }
  finish_tasks<ForecastTask>(batch, compute, observer);
}

template <typename Runner>
void run_encode_batch(Batch& batch, const Runner& runner, BatchObserver* observer) {
  const int64_t width = runner.config().d_model;
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
    const model::EncoderOutput result = runner.encode(tokens, need_attention);
    for (int64_t i = 0; i < count; ++i) {
      EncodeTask& task = *group[static_cast<size_t>(i)];
      task.output.output = copy_floats(result.output[i]);
      task.output.attention =
          select_attention(result.weights, i, task.input.attention, std::vector<int32_t>{0});
    }
  }
  const double compute = Seconds(std::chrono::steady_clock::now() - start).count();
  finish_tasks<EncodeTask>(batch, compute, observer);
}

}  // namespace

DynamicBatcher::Processor forecast_processor(const ModelRunner& runner, BatchObserver* observer) {
  return logged("Forecast", runner, observer, run_forecast_batch);
}

DynamicBatcher::Processor encode_processor(const ModelRunner& runner, BatchObserver* observer) {
  return logged("Encode", runner, observer, run_encode_batch<ModelRunner>);
}

DynamicBatcher::Processor encode_processor(const ITransformerRunner& runner,
                                           BatchObserver* observer) {
  return logged("Encode", runner, observer, run_encode_batch<ITransformerRunner>);
}

}  // namespace tsserve::server
