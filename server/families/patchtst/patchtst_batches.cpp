#include "server/runtime/batch_processors.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>
#include <map>

#include "server/batching/request_task.h"
#include "server/runtime/batch_completion.h"

// Forecast batches stack every variable of every request as one row [R, seq_len]; the
// model is channel-independent and row-invariant (the fused kernels by construction, the
// LibTorch modules through the batch-invariant path), so each request's result is bitwise
// the one it would get alone; attention maps run on the asking requests' rows only.
// Encode batches are grouped by token count and each group runs as
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

// The rows of the tasks that asked for attention maps, stacked, and where each such
// task's rows start among them (-1 for the others).
struct AttentionRows {
  at::Tensor rows;
  std::vector<int64_t> first_row;
};

AttentionRows attention_rows(const Batch& batch, const at::Tensor& rows) {
  AttentionRows out;
  std::vector<at::Tensor> parts;
  int64_t batch_row = 0;
  int64_t next = 0;
  for (const auto& base : batch.tasks) {
    const auto& input = static_cast<const ForecastTask&>(*base).input;
    out.first_row.push_back(input.attention.enabled ? next : -1);
    if (input.attention.enabled) {
      parts.push_back(rows.narrow(0, batch_row, input.series_rows));
      next += input.series_rows;
    }
    batch_row += input.series_rows;
  }
  if (!parts.empty()) out.rows = at::cat(parts);
  return out;
}

void run_forecast_batch(Batch& batch, const ModelRunner& runner, BatchObserver* observer) {
  const int64_t seq_len = runner.config().seq_len;
  const int64_t pred_len = runner.config().pred_len;
  at::Tensor rows = at::empty({static_cast<int64_t>(batch.rows), seq_len}, at::kFloat);
  {
    float* dst = rows.data_ptr<float>();
    for (const auto& base : batch.tasks) {
      const auto& input = static_cast<const ForecastTask&>(*base).input;
      std::memcpy(dst, input.rows.data(), input.rows.size() * sizeof(float));
      dst += input.rows.size();
    }
  }

  // Forecasts for every row from the serving kernels; maps, from the LibTorch modules,
  // only for the rows of tasks that asked. A row's forecast is thus computed the same way
  // whatever its batch holds.
  const auto start = std::chrono::steady_clock::now();
  const at::Tensor forecast_rows = runner.forecast(rows);
  const AttentionRows wanted = attention_rows(batch, rows);
  const std::vector<at::Tensor> maps =
      wanted.rows.defined() ? runner.attention_maps(wanted.rows) : std::vector<at::Tensor>{};
  const double compute = Seconds(std::chrono::steady_clock::now() - start).count();

  const float* forecast = forecast_rows.data_ptr<float>();
  int64_t first_row = 0;
  for (std::size_t i = 0; i < batch.tasks.size(); ++i) {
    auto& task = static_cast<ForecastTask&>(*batch.tasks[i]);
    const int64_t n = task.input.series_rows;
    task.output.forecast.assign(forecast + first_row * pred_len,
                                forecast + (first_row + n) * pred_len);
    if (wanted.first_row[i] >= 0) {
      task.output.attention = select_attention(maps, wanted.first_row[i], task.input.attention,
                                               task.input.attention.variables);
    }
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
