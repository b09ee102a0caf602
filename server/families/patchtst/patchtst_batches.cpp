#include "server/families/patchtst/patchtst_batches.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>

#include "server/batching/request_task.h"
#include "server/runtime/batch_completion.h"

// Forecast batches stack every variable of every request as one row [R, seq_len]; the
// model is channel-independent and row-invariant (the fused kernels by construction, the
// LibTorch modules through the batch-invariant path), so each request's result is bitwise
// the one it would get alone; attention maps run on the asking requests' rows only.

namespace tsserve::server {
namespace {

using Seconds = std::chrono::duration<double>;

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

void run_forecast_batch(Batch& batch, const PatchTSTRunner& runner, BatchObserver* observer) {
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

}  // namespace

DynamicBatcher::Processor patchtst_forecast_processor(const PatchTSTRunner& runner,
                                                      BatchObserver* observer) {
  return logged("Forecast", runner, observer, run_forecast_batch);
}

}  // namespace tsserve::server
