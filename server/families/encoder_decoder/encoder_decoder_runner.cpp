#include "server/families/encoder_decoder/encoder_decoder_runner.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>

#include <algorithm>

#include "server/runtime/device.h"
#include "tsserve/model/intra_op_threads.h"
#include "tsserve/model/model_error.h"

namespace tsserve::server {
EncoderDecoderRunner::EncoderDecoderRunner(model::EncoderDecoder model,
                                           const RunnerOptions& options)
    : model_(std::move(model)), device_(parse_device(options.device)), threads_(options.threads) {
  if (options.threads < 1) throw model::ModelError("threads must be at least 1");
  tsserve::model::set_intra_op_threads(options.threads);
  device_name_ = device_.str();
  model_->to(device_);
  model_->eval();

  const auto& config = model_->config();
  const int64_t variables = config.enc_in;
  c10::InferenceMode guard;
  for (int64_t samples : {int64_t{1}, std::max<int64_t>(1, options.warm_up_rows / variables)}) {
    forecast(at::zeros({samples, variables, config.seq_len}),
             at::zeros({samples, config.seq_len + config.pred_len, model_->mark_width()}), true);
  }
  encode(at::zeros({1, config.seq_len, config.d_model}), true);
}

model::EncoderDecoderForecast EncoderDecoderRunner::forecast(const at::Tensor& series,
                                                             const at::Tensor& marks,
                                                             bool need_attention) const {
  c10::InferenceMode guard;
  model::EncoderDecoderForecast out =
      model_->forecast_samples(series.to(device_), marks.to(device_), need_attention);
  out.forecast = to_cpu(out.forecast);
  for (auto& layer : out.encoder_attention) layer = to_cpu(layer);
  out.decoder_attention.clear();  // not served yet: tsserve.v1's maps are the encoder's
  out.cross_attention.clear();
  return out;
}

model::EncoderOutput EncoderDecoderRunner::encode(const at::Tensor& tokens,
                                                  bool need_attention) const {
  c10::InferenceMode guard;
  model::EncoderOutput out = model_->encode(tokens.to(device_), {}, need_attention);
  out.output = to_cpu(out.output);
  for (auto& layer : out.weights) layer = to_cpu(layer);
  return out;
}

}  // namespace tsserve::server
