#include "server/families/timexer/timexer_batches.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "server/batching/request_task.h"
#include "server/runtime/batch_completion.h"
#include "tsserve/model/timexer_family.h"

namespace tsserve::server {
namespace {

// One sample of one task: where its input sits and where its forecast goes.
struct TimeXerSlot {
  ForecastTask* task;
  int64_t sample;  // 0 .. task->input.samples-1
};

void run_timexer_batch(Batch& batch, const model::TimeXerForecaster& forecaster,
                       BatchObserver* observer) {
  const model::ModelConfig& config = forecaster.config();
  const int64_t T = config.seq_len;
  const int64_t F = config.pred_len;
  const int64_t N = config.enc_in;  // the codecs' N rule: every sample carries enc_in
  const int64_t K = model::timexer_endogenous_count(config, N);
  const int64_t C = static_cast<int64_t>(model::timexer_calendar_features(config).size());
  std::vector<TimeXerSlot> slots;
  for (auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    task.output.forecast.assign(static_cast<size_t>(task.input.samples * K * F), 0.0f);
    task.output.attention.clear();
    for (int64_t b = 0; b < task.input.samples; ++b) slots.push_back({&task, b});
  }
  const auto count = static_cast<int64_t>(slots.size());
  at::Tensor series = at::empty({count, N, T}, at::kFloat);
  at::Tensor calendar = C > 0 ? at::empty({count, C, T}, at::kFloat) : at::Tensor();
  for (int64_t i = 0; i < count; ++i) {
    const auto& [task, b] = slots[static_cast<size_t>(i)];
    const ForecastInput& input = task->input;
    std::memcpy(series[i].data_ptr<float>(), input.rows.data() + b * N * T,
                static_cast<size_t>(N * T) * sizeof(float));
    if (C > 0) {
      std::memcpy(calendar[i].data_ptr<float>(), input.calendar.data() + b * C * T,
                  static_cast<size_t>(C * T) * sizeof(float));
    }
  }

  const auto start = std::chrono::steady_clock::now();
  const at::Tensor forecast = forecaster.forecast(series, calendar).contiguous();  // [S, K, F]
  const double compute = seconds_between(start, std::chrono::steady_clock::now());
  for (int64_t i = 0; i < count; ++i) {
    const auto& [task, b] = slots[static_cast<size_t>(i)];
    const float* src = forecast[i].data_ptr<float>();
    std::copy(src, src + K * F, task->output.forecast.begin() + b * K * F);
  }
  finish_tasks<ForecastTask>(batch, compute, observer);
}

}  // namespace

DynamicBatcher::Processor timexer_forecast_processor(const model::TimeXerForecaster& forecaster,
                                                     BatchObserver* observer) {
  return logged("Forecast", forecaster, observer, run_timexer_batch);
}

}  // namespace tsserve::server
