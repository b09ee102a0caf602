#include "tsserve/model/encoder_decoder_forecaster.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>
#include <string>

#include "tsserve/model/model_error.h"
#include "tsserve/model/placement.h"

namespace tsserve::model {

void check_encoder_decoder_servable(const ModelConfig& config, const std::string& config_origin) {
  if (config.features != ForecastFeatures::kM || config.c_out == config.enc_in) return;
  throw ModelError("model config " + config_origin + ": \"c_out\" " + std::to_string(config.c_out) +
                   " with \"features\" M and enc_in = " + std::to_string(config.enc_in) +
                   "; tsserve serves \"M\" as a forecast of every input variable (c_out = "
                   "enc_in), \"MS\" as the target's alone (the last variable), or \"S\" (one "
                   "variable)");
}
EncoderDecoderForecaster::EncoderDecoderForecaster(EncoderDecoder model,
                                                   const ForecasterOptions& options)
    : PlacedForecaster(std::move(model), options) {
  kernels_ = libtorch_kernels(options, model_->config().family);
  const auto& config = model_->config();
  const int64_t variables = config.enc_in;
  c10::InferenceMode guard;
  for (int64_t samples : {int64_t{1}, std::max<int64_t>(1, options.warm_up_rows / variables)}) {
    forecast(at::zeros({samples, variables, config.seq_len}),
             at::zeros({samples, config.seq_len + config.pred_len, model_->mark_width()}), true);
  }
  encode(at::zeros({1, config.seq_len, config.d_model}), true);
}

EncoderDecoderForecast EncoderDecoderForecaster::forecast(const at::Tensor& series,
                                                          const at::Tensor& marks,
                                                          bool need_attention) const {
  c10::InferenceMode guard;
  EncoderDecoderForecast out =
      model_->forecast_samples(series.to(device()), marks.to(device()), need_attention);
  out.forecast = to_cpu(out.forecast);
  for (auto* maps : {&out.encoder_attention, &out.decoder_attention, &out.cross_attention}) {
    for (auto& layer : *maps) layer = to_cpu(layer);
  }
  return out;
}

EncoderOutput EncoderDecoderForecaster::encode(const at::Tensor& tokens,
                                               bool need_attention) const {
  c10::InferenceMode guard;
  return encoder_output_on_cpu(model_->encode(tokens.to(device()), {}, need_attention));
}

}  // namespace tsserve::model
