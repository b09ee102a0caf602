#include "server/families/patchtst/patchtst_batches.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "server/batching/request_task.h"
#include "server/runtime/batch_completion.h"

// Forecast batches stack every variable of every request as one row [R, seq_len]; the
// model is channel-independent and row-invariant (the fused kernels by construction, the
// LibTorch modules through the batch-invariant path), so each request's result is bitwise
// the one it would get alone. Attention maps come from the same call, for the rows of the
// requests that asked (model/row_forecaster.h): a row's forecast does not depend on them.
// On the fused kernels the maps are written straight into the answer's blocks.

namespace tsserve::server {
namespace {

using Seconds = std::chrono::duration<double>;

// The LibTorch path's map requests, one per batch row: the layers of its task's selection
// for the variables it selected, none for every other row.
void row_map_requests(const Batch& batch, std::vector<model::RowMapRequest>* requests) {
  requests->assign(batch.rows, {});
  std::size_t first_row = 0;
  for (const auto& base : batch.tasks) {
    const auto& input = static_cast<const ForecastTask&>(*base).input;
    const AttentionSelection& want = input.attention;
    if (want.enabled) {
      for (int32_t variable : want.variables) {
        (*requests)[first_row + static_cast<std::size_t>(variable)] = {want.layers,
                                                                       want.average_heads};
      }
    }
    first_row += static_cast<std::size_t>(input.series_rows);
  }
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

// The fused kernels' maps, written straight into the answer: every task that asked gets
// its blocks sized here (by variable, then layer, as task_attention orders them), and each
// of its rows' requests points the kernels at those blocks. `destinations` holds the
// pointers the requests refer to.
std::vector<model::FusedRowMaps> maps_into_answers(Batch& batch, int64_t p, int64_t heads,
                                                   std::vector<std::vector<float*>>* destinations) {
  std::vector<model::FusedRowMaps> maps(batch.rows);
  destinations->assign(batch.rows, {});
  std::size_t first_row = 0;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    const AttentionSelection& want = task.input.attention;
    if (want.enabled) {
      std::vector<int64_t> block_shape{p, p};
      if (!want.average_heads) block_shape.insert(block_shape.begin(), heads);
      const std::size_t floats = static_cast<std::size_t>((want.average_heads ? 1 : heads) * p * p);
      std::vector<AttentionBlock>& blocks = task.output.attention;
      blocks.reserve(want.variables.size() * want.layers.size());
      for (int32_t variable : want.variables) {
        std::vector<float*>& row = (*destinations)[first_row + static_cast<std::size_t>(variable)];
        for (int32_t layer : want.layers) {
          AttentionBlock& block = blocks.emplace_back();
          block.layer = layer;
          block.variable = variable;
          block.heads_averaged = want.average_heads;
          block.shape = block_shape;
          block.weights.resize(floats);
          row.push_back(block.weights.data());
        }
        maps[first_row + static_cast<std::size_t>(variable)] = {
            nullptr, want.layers.data(), static_cast<int32_t>(want.layers.size()),
            want.average_heads, row.data()};
      }
    }
    first_row += static_cast<std::size_t>(task.input.series_rows);
  }
  return maps;
}

void run_forecast_batch(Batch& batch, const model::PatchTSTForecaster& forecaster, BatchObserver* observer) {
  const int64_t seq_len = forecaster.config().seq_len;
  const int64_t pred_len = forecaster.config().pred_len;
  at::Tensor rows = at::empty({static_cast<int64_t>(batch.rows), seq_len}, at::kFloat);
  {
    float* dst = rows.data_ptr<float>();
    for (const auto& base : batch.tasks) {
      const auto& input = static_cast<const ForecastTask&>(*base).input;
      std::memcpy(dst, input.rows.data(), input.rows.size() * sizeof(float));
      dst += input.rows.size();
    }
  }

  const bool maps_wanted = std::any_of(batch.tasks.begin(), batch.tasks.end(), [](const auto& t) {
    return static_cast<const ForecastTask&>(*t).input.attention.enabled;
  });
  const bool maps_in_place = maps_wanted && forecaster.writes_maps_in_place();
  std::vector<model::RowMapRequest> requests;
  if (maps_wanted && !maps_in_place) row_map_requests(batch, &requests);
  const auto start = std::chrono::steady_clock::now();
  model::ForecastWithRowMaps result;
  std::vector<std::vector<float*>> destinations;
  if (maps_in_place) {
    const std::vector<model::FusedRowMaps> maps = maps_into_answers(
        batch, forecaster.config().patch_count(), forecaster.config().n_heads, &destinations);
    result.forecast = forecaster.forecast_with_maps_into(rows, maps);
  } else if (maps_wanted) {
    result = forecaster.forecast_with_maps(rows, requests);
  } else {
    result.forecast = forecaster.forecast(rows);
  }
  const double compute = Seconds(std::chrono::steady_clock::now() - start).count();

  const float* forecast = result.forecast.data_ptr<float>();
  int64_t first_row = 0;
  for (const auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    const int64_t n = task.input.series_rows;
    task.output.forecast.assign(forecast + first_row * pred_len,
                                forecast + (first_row + n) * pred_len);
    if (task.input.attention.enabled && !maps_in_place) {
      task.output.attention = task_attention(result.maps, first_row, task.input.attention);
    }
    first_row += n;
  }
  finish_tasks<ForecastTask>(batch, compute, observer);
}

}  // namespace

DynamicBatcher::Processor patchtst_forecast_processor(const model::PatchTSTForecaster& forecaster,
                                                      BatchObserver* observer) {
  return logged("Forecast", forecaster, observer, run_forecast_batch);
}

}  // namespace tsserve::server
