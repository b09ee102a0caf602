#include "tsserve/model/itransformer_forecaster.h"

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

// Why the fused forward does not serve this model ("" when it does).
std::string fused_refusal(const ITransformerImpl& model, at::Device device) {
  const std::string reason = fused_itransformer_unsupported_reason(model.config());
  if (!reason.empty()) return reason;
  if (!device.is_cpu())
    return "the fused kernels run on the CPU and the model is on " + device.str();
  return "";
}

}  // namespace

void check_itransformer_servable(const ModelConfig& config, const std::string& config_origin) {
  if (config.any_variable_count || config.enc_in >= 1) return;
  throw ModelError("model config " + config_origin +
                   ": 'enc_in' must give the variables this iTransformer was trained on (>= 1), "
                   "got " +
                   std::to_string(config.enc_in) +
                   "; requests must carry that many, unless 'any_variable_count' is true");
}

ITransformerForecaster::ITransformerForecaster(ITransformer model, const ForecasterOptions& options)
    : PlacedForecaster(std::move(model), options) {
  kernels_.name = "torch";
  if (options.cpu_kernels == CpuKernels::kFused) {
    kernels_.fallback_reason = fused_refusal(*model_, device());
    if (kernels_.fallback_reason.empty()) {
      fused_.emplace(*model_);
      kernels_.name = std::string("fused-") + fused_instruction_set();
    }
  }
  const auto& config = model_->config();
  const int64_t variables = config.enc_in > 0 ? config.enc_in : 7;
  const int64_t calendar = model_->calendar_token_count();
  c10::InferenceMode guard;
  for (int64_t samples : {int64_t{1}, std::max<int64_t>(1, options.warm_up_rows / variables)}) {
    const at::Tensor series = at::zeros({samples, variables, config.seq_len});
    const at::Tensor rows =
        calendar > 0 ? at::zeros({samples, calendar, config.seq_len}) : at::Tensor();
    forecast(series, rows);
    std::vector<int32_t> every_layer;
    for (int32_t layer = 0; layer < config.e_layers; ++layer) every_layer.push_back(layer);
    forecast_with_maps(
        series, rows,
        std::vector<RowMapRequest>(static_cast<size_t>(samples), {every_layer, false}));
  }
  encode(at::zeros({1, variables + calendar, config.d_model}), true);
}

at::Tensor ITransformerForecaster::forecast(const at::Tensor& series,
                                            const at::Tensor& calendar) const {
  c10::InferenceMode guard;
  if (fused_) return fused_->forecast_samples(series, calendar);
  return to_cpu(model_->forecast_samples(series.to(device()), on(calendar, device())).forecast);
}

ForecastWithRowMaps ITransformerForecaster::forecast_with_maps(
    const at::Tensor& series, const at::Tensor& calendar,
    const std::vector<RowMapRequest>& requests) const {
  c10::InferenceMode guard;
  if (fused_) return fused_->forecast_samples_with_maps(series, calendar, requests);
  const SampleForecast out =
      model_->forecast_samples(series.to(device()), on(calendar, device()), true);
  ForecastWithRowMaps result;
  result.forecast = to_cpu(out.forecast);
  result.maps.resize(requests.size());
  for (size_t s = 0; s < requests.size(); ++s) {
    const RowMapRequest& request = requests[s];
    if (request.layers.empty()) continue;
    std::vector<at::Tensor> layers;
    for (int32_t layer : request.layers) {
      const at::Tensor map = out.attention.at(static_cast<size_t>(layer))[static_cast<int64_t>(s)];
      layers.push_back(request.average_heads ? map.mean(0) : map);
    }
    result.maps[s] = to_cpu(at::stack(layers));
  }
  return result;
}

EncoderOutput ITransformerForecaster::encode(const at::Tensor& tokens, bool need_attention) const {
  c10::InferenceMode guard;
  if (fused_) return fused_->encode(tokens, need_attention);
  return encoder_output_on_cpu(model_->encoder->forward(tokens.to(device()), {}, need_attention));
}

}  // namespace tsserve::model
