#include "tsserve/model/timexer_forecaster.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <string>

#include "tsserve/model/fused_isa.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/placement.h"

namespace tsserve::model {
namespace {

at::Tensor on(const at::Tensor& t, at::Device device) { return t.defined() ? t.to(device) : t; }

// Layer `layer` of the maps LibTorch returned for sample `sample`, as the fused path lays
// them out: self [K, H, L, L] and cross [H, K, V], or their means over heads.
at::Tensor self_map(const TimeXerForecast& out, int32_t layer, int64_t sample, bool average) {
  const at::Tensor map = out.self_attention.at(static_cast<size_t>(layer))[sample];
  return average ? map.mean(1) : map;
}
at::Tensor cross_map(const TimeXerForecast& out, int32_t layer, int64_t sample, bool average) {
  const at::Tensor map = out.cross_attention.at(static_cast<size_t>(layer))[sample];
  return average ? map.mean(0) : map;
}

}  // namespace

const char kTimeXerEncodeRefusal[] =
    "a TimeXer's encoder layers also read the sample's covariate tokens (its global tokens "
    "attend to them), which Encode's tokens do not carry";

TimeXerForecaster::TimeXerForecaster(TimeXer model, const ForecasterOptions& options)
    : PlacedForecaster(std::move(model), options) {
  kernels_.name = "torch";
  if (options.cpu_kernels == CpuKernels::kFused) {
    if (device().is_cpu()) {
      fused_.emplace(*model_);
      kernels_.name = std::string("fused-") + fused_instruction_set();
    } else {
      kernels_.fallback_reason =
          "the fused kernels run on the CPU and the model is on " + device().str();
    }
  }
  const auto& config = model_->config();
  const int64_t calendar = model_->calendar_token_count();
  c10::InferenceMode guard;
  for (int64_t samples : {int64_t{1}, std::max<int64_t>(1, options.warm_up_rows / config.enc_in)}) {
    const at::Tensor series = at::zeros({samples, config.enc_in, config.seq_len});
    const at::Tensor rows =
        calendar > 0 ? at::zeros({samples, calendar, config.seq_len}) : at::Tensor();
    forecast(series, rows);
    std::vector<int32_t> every_layer;
    for (int32_t layer = 0; layer < config.e_layers; ++layer) every_layer.push_back(layer);
    forecast_with_maps(
        series, rows,
        std::vector<TimeXerMapRequest>(static_cast<size_t>(samples), {every_layer, false}));
  }
}

at::Tensor TimeXerForecaster::forecast(const at::Tensor& series, const at::Tensor& calendar) const {
  c10::InferenceMode guard;
  if (fused_) return fused_->forecast_samples(series, calendar);
  return to_cpu(model_->forecast_samples(series.to(device()), on(calendar, device())).forecast);
}

TimeXerForecastWithMaps TimeXerForecaster::forecast_with_maps(
    const at::Tensor& series, const at::Tensor& calendar,
    const std::vector<TimeXerMapRequest>& requests) const {
  c10::InferenceMode guard;
  if (fused_) return fused_->forecast_samples_with_maps(series, calendar, requests);
  const TimeXerForecast out =
      model_->forecast_samples(series.to(device()), on(calendar, device()), true);
  TimeXerForecastWithMaps result;
  result.forecast = to_cpu(out.forecast);
  result.self_maps.resize(requests.size());
  result.cross_maps.resize(requests.size());
  for (size_t s = 0; s < requests.size(); ++s) {
    const TimeXerMapRequest& request = requests[s];
    if (request.layers.empty()) continue;
    std::vector<at::Tensor> self_layers, cross_layers;
    for (int32_t layer : request.layers) {
      if (layer < 0 || layer >= model_->config().e_layers) {
        throw ModelError("attention map layer " + std::to_string(layer) +
                         " is out of range: the model has " +
                         std::to_string(model_->config().e_layers) + " encoder layers");
      }
      const auto sample = static_cast<int64_t>(s);
      self_layers.push_back(self_map(out, layer, sample, request.average_heads));
      cross_layers.push_back(cross_map(out, layer, sample, request.average_heads));
    }
    result.self_maps[s] = to_cpu(at::stack(self_layers));
    result.cross_maps[s] = to_cpu(at::stack(cross_layers));
  }
  return result;
}

EncoderOutput TimeXerForecaster::encode(const at::Tensor&, bool) const {
  throw ModelError(std::string("Encode is not served: ") + kTimeXerEncodeRefusal);
}

}  // namespace tsserve::model
