#include "server/families/patchtst/patchtst_batches.h"

#include <ATen/ATen.h>

#include <chrono>
#include <cstring>

#include "server/batching/request_task.h"
#include "server/runtime/batch_completion.h"

// Forecast batches stack every variable of every request as one row [R, seq_len]; the
// model is channel-independent and row-invariant (the fused kernels by construction, the
// LibTorch modules through the batch-invariant path), so each request's result is bitwise
// the one it would get alone. Attention maps come from the same call, for the rows of the
// requests that asked (model/row_forecaster.h): a row's forecast does not depend on them.

namespace tsserve::server {
namespace {

using Seconds = std::chrono::duration<double>;

// One map request per batch row: the layers of its task's selection for the variables it
// selected, none for every other row. False when no task asked for maps.
bool row_map_requests(const Batch& batch, std::vector<model::RowMapRequest>* requests) {
  requests->assign(batch.rows, {});
  bool any = false;
  std::size_t first_row = 0;
  for (const auto& base : batch.tasks) {
    const auto& input = static_cast<const ForecastTask&>(*base).input;
    const AttentionSelection& want = input.attention;
    if (want.enabled) {
      for (int32_t variable : want.variables) {
        (*requests)[first_row + static_cast<std::size_t>(variable)] = {want.layers,
                                                                       want.average_heads};
        any = true;
      }
    }
    first_row += static_cast<std::size_t>(input.series_rows);
  }
  return any;
}

// A task's maps from the batch's per-row maps ([layers, H, P, P] or [layers, P, P]),
// ordered by variable, then layer.
std::vector<AttentionBlock> task_attention(const std::vector<at::Tensor>& row_maps,
                                           int64_t first_row, const AttentionSelection& want) {
  std::vector<AttentionBlock> blocks;
  for (int32_t variable : want.variables) {
    const at::Tensor& maps = row_maps.at(static_cast<std::size_t>(first_row + variable));
    for (std::size_t i = 0; i < want.layers.size(); ++i) {
      blocks.push_back(attention_block_as_given(maps[static_cast<int64_t>(i)], want.layers[i],
                                                variable, want.average_heads));
    }
  }
  return blocks;
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

  std::vector<model::RowMapRequest> requests;
  const bool maps_wanted = row_map_requests(batch, &requests);
  const auto start = std::chrono::steady_clock::now();
  model::ForecastWithRowMaps result;
  if (maps_wanted) {
    result = runner.forecast_with_maps(rows, requests);
  } else {
    result.forecast = runner.forecast(rows);
  }
  const double compute = Seconds(std::chrono::steady_clock::now() - start).count();

  const float* forecast = result.forecast.data_ptr<float>();
  int64_t first_row = 0;
  for (const auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    const int64_t n = task.input.series_rows;
    task.output.forecast.assign(forecast + first_row * pred_len,
                                forecast + (first_row + n) * pred_len);
    if (task.input.attention.enabled) {
      task.output.attention = task_attention(result.maps, first_row, task.input.attention);
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
