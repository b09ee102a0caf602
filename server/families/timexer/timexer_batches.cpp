#include "server/families/timexer/timexer_batches.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <vector>

#include "server/batching/request_task.h"
#include "server/families/sample_batch.h"
#include "server/families/sample_slots.h"
#include "server/runtime/batch_completion.h"
#include "tsserve/model/timexer_family.h"

namespace tsserve::server {
namespace {

// Sample b's maps as blocks: per requested layer and endogenous variable k (the series
// variable `first + k`), its patches' self-attention ("encoder", [H, L, L]) and its global
// token's attention over the covariate tokens ("covariates", [H, 1, V]).
void add_maps(const model::TimeXerForecastWithMaps& result, int64_t i, int64_t first,
              const AttentionSelection& want, std::vector<AttentionBlock>* out) {
  const at::Tensor& self = result.self_maps.at(static_cast<size_t>(i));    // [J, K, (H,) L, L]
  const at::Tensor& cross = result.cross_maps.at(static_cast<size_t>(i));  // [J, (H,) K, V]
  for (size_t j = 0; j < want.layers.size(); ++j) {
    const at::Tensor layer_self = self[static_cast<int64_t>(j)];
    const at::Tensor layer_cross = cross[static_cast<int64_t>(j)];
    for (int64_t k = 0; k < layer_self.size(0); ++k) {
      const auto variable = static_cast<int32_t>(first + k);
      out->push_back(
          attention_block_as_given(layer_self[k], want.layers[j], variable, want.average_heads));
      // Its one query row: [H, 1, V] (or [1, V] averaged).
      const at::Tensor row =
          want.average_heads ? layer_cross.narrow(0, k, 1) : layer_cross.narrow(1, k, 1);
      AttentionBlock block =
          attention_block_as_given(row.contiguous(), want.layers[j], variable, want.average_heads);
      block.stack = AttentionStack::kCovariates;
      out->push_back(std::move(block));
    }
  }
}

void run_timexer_batch(Batch& batch, const model::TimeXerForecaster& forecaster,
                       BatchObserver* observer) {
  const model::ModelConfig& config = forecaster.config();
  const int64_t T = config.seq_len;
  const int64_t F = config.pred_len;
  const int64_t N = config.enc_in;  // the codecs' N rule: every sample carries enc_in
  const int64_t K = model::timexer_endogenous_count(config, N);
  const int64_t C = static_cast<int64_t>(model::timexer_calendar_features(config).size());
  std::vector<SampleSlot> slots;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    task.output.forecast.assign(static_cast<size_t>(task.input.samples * K * F), 0.0f);
    task.output.attention.clear();
    for (int64_t b = 0; b < task.input.samples; ++b) slots.push_back({&task, b});
  }
  const auto count = static_cast<int64_t>(slots.size());
  const SampleBatch in = gather_sample_batch(slots, N, T, C);

  const auto start = std::chrono::steady_clock::now();
  model::TimeXerForecastWithMaps result;
  if (in.need_attention) {
    result = forecaster.forecast_with_maps(in.series, in.calendar, in.requests);
  } else {
    result.forecast = forecaster.forecast(in.series, in.calendar);
  }
  const double compute = seconds_between(start, std::chrono::steady_clock::now());
  const at::Tensor forecast = result.forecast.contiguous();  // [S, K, F]
  for (int64_t i = 0; i < count; ++i) {
    const auto& [task, b] = slots[static_cast<size_t>(i)];
    const float* src = forecast[i].data_ptr<float>();
    std::copy(src, src + K * F, task->output.forecast.begin() + b * K * F);
    if (wants_sample_maps(task->input, b)) {
      add_maps(result, i, b * N + (N - K), task->input.attention, &task->output.attention);
    }
  }
  finish_tasks<ForecastTask>(batch, compute, observer);
}

}  // namespace

DynamicBatcher::Processor timexer_forecast_processor(const model::TimeXerForecaster& forecaster,
                                                     BatchObserver* observer) {
  return logged("Forecast", forecaster, observer, run_timexer_batch);
}

}  // namespace tsserve::server
