#include "server/families/itransformer/itransformer_batches.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <vector>

#include "server/batching/request_task.h"
#include "server/families/sample_batch.h"
#include "server/families/sample_slots.h"
#include "server/runtime/batch_completion.h"
#include "tsserve/model/itransformer_family.h"

namespace tsserve::server {
namespace {

// Runs the samples of one N as one forward and writes each one's forecast and maps back.
void run_group(int64_t variables, const std::vector<SampleSlot>& group,
               const model::ITransformerForecaster& forecaster) {
  const model::ModelConfig& config = forecaster.config();
  const int64_t T = config.seq_len;
  const int64_t F = config.pred_len;
  const auto count = static_cast<int64_t>(group.size());
  const int64_t C = static_cast<int64_t>(model::calendar_features(config).size());
  const SampleBatch in = gather_sample_batch(group, variables, T, C);

  model::ForecastWithRowMaps result;
  if (in.need_attention) {
    result = forecaster.forecast_with_maps(in.series, in.calendar, in.requests);
  } else {
    result.forecast = forecaster.forecast(in.series, in.calendar);
  }
  const at::Tensor forecast = result.forecast.contiguous();
  for (int64_t i = 0; i < count; ++i) {
    const auto& [task, b] = group[static_cast<size_t>(i)];
    const float* src = forecast[i].data_ptr<float>();
    std::copy(src, src + variables * F, task->output.forecast.begin() + b * variables * F);
    if (!wants_sample_maps(task->input, b)) continue;
    const AttentionSelection& want = task->input.attention;
    const at::Tensor& maps = result.maps.at(static_cast<size_t>(i));  // [layers, (H,) N', N']
    for (size_t j = 0; j < want.layers.size(); ++j) {
      task->output.attention.push_back(
          attention_block_as_given(maps[static_cast<int64_t>(j)], want.layers[j],
                                   static_cast<int32_t>(b), want.average_heads));
    }
  }
}

void run_itransformer_batch(Batch& batch, const model::ITransformerForecaster& forecaster,
                            BatchObserver* observer) {
  std::map<int64_t, std::vector<SampleSlot>> by_variables;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    const ForecastInput& input = task.input;
    const int64_t variables = input.series_rows / input.samples;
    task.output.forecast.assign(static_cast<size_t>(input.series_rows * forecaster.config().pred_len),
                                0.0f);
    task.output.attention.clear();
    for (int64_t b = 0; b < input.samples; ++b) by_variables[variables].push_back({&task, b});
  }

  const auto start = std::chrono::steady_clock::now();
  for (const auto& [variables, group] : by_variables) run_group(variables, group, forecaster);
  const double compute = seconds_between(start, std::chrono::steady_clock::now());
  finish_tasks<ForecastTask>(batch, compute, observer);
}

}  // namespace

DynamicBatcher::Processor itransformer_forecast_processor(const model::ITransformerForecaster& forecaster,
                                                          BatchObserver* observer) {
  return logged("Forecast", forecaster, observer, run_itransformer_batch);
}

}  // namespace tsserve::server
