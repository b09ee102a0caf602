// LinearProbe served (the test family, model/linear_probe.h): channel independent, so
// every variable of every request is a row of its own, as PatchTST's are. It has no
// encoder and no attention: Encode is refused up front (ModelShape::encode_refusal), and a
// Forecast that asks for attention maps fails its batch with a message that says so.

#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "server/batching/request_task.h"
#include "server/families/model_family_definition.h"
#include "server/runtime/batch_completion.h"
#include "tsserve/model/linear_probe.h"

namespace tsserve::server {
namespace {

void describe_linear_probe(const model::ModelConfig&, ModelShape* shape) {
  shape->unit = SampleUnit::kVariableRow;
  shape->encode_refusal = "a LinearProbe has no encoder";
}

// Every task's rows stacked [R, seq_len], one forward, each task's rows back.
void run_forecast_batch(Batch& batch, const model::LinearProbeForecaster& forecaster,
                        BatchObserver* observer) {
  const int64_t seq_len = forecaster.config().seq_len;
  const int64_t pred_len = forecaster.config().pred_len;
  at::Tensor rows = at::empty({static_cast<int64_t>(batch.rows), seq_len}, at::kFloat);
  float* dst = rows.data_ptr<float>();
  for (const auto& base : batch.tasks) {
    const auto& input = static_cast<const ForecastTask&>(*base).input;
    if (input.attention.enabled) throw std::runtime_error("a LinearProbe has no attention maps");
    std::memcpy(dst, input.rows.data(), input.rows.size() * sizeof(float));
    dst += input.rows.size();
  }
  const auto start = std::chrono::steady_clock::now();
  const at::Tensor forecast = forecaster.forecast(rows).contiguous();
  const double compute = seconds_between(start, std::chrono::steady_clock::now());
  const float* values = forecast.data_ptr<float>();
  int64_t first_row = 0;
  for (const auto& base : batch.tasks) {
    auto& task = static_cast<ForecastTask&>(*base);
    const int64_t n = task.input.series_rows;
    task.output.forecast.assign(values + first_row * pred_len, values + (first_row + n) * pred_len);
    first_row += n;
  }
  finish_tasks<ForecastTask>(batch, compute, observer);
}

void refuse_encode_batch(Batch&, const model::LinearProbeForecaster&, BatchObserver*) {
  throw std::runtime_error("a LinearProbe has no encoder");
}

LoadedFamily load_linear_probe(const std::string& checkpoint, const model::ModelConfig& config,
                               const std::string& config_origin,
                               const model::ForecasterOptions& options) {
  auto forecaster = std::make_unique<model::LinearProbeForecaster>(
      model::load_linear_probe(checkpoint, config, config_origin), options);
  const model::LinearProbeForecaster& served = *forecaster;
  LoadedFamily loaded;
  loaded.forecast = [&served](BatchObserver* observer) {
    return logged("Forecast", served, observer, run_forecast_batch);
  };
  loaded.encode = [&served](BatchObserver* observer) {
    return logged("Encode", served, observer, refuse_encode_batch);
  };
  loaded.forecaster = std::move(forecaster);
  return loaded;
}

const FamilyDefinitionRegistrar kLinearProbe({model::kLinearProbeFamily, describe_linear_probe,
                                              load_linear_probe});

}  // namespace
}  // namespace tsserve::server
