#include "tsserve/model/itransformer.h"

#include <ATen/ATen.h>

#include "tsserve/model/encoder_from_config.h"
#include "tsserve/model/instance_norm.h"
#include "tsserve/model/itransformer_family.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/row_linear.h"
#include "tsserve/model/unit_passes.h"

namespace tsserve::model {
namespace {

at::Tensor first_sample(const at::Tensor& t) { return t.select(0, 0); }

}  // namespace

ITransformerImpl::ITransformerImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  if (config_.family != kITransformerFamily) {
    throw ModelError("iTransformer built from a config whose \"model\" is \"" + config_.family +
                     "\"");
  }
  calendar_ = calendar_features(config_);
  enc_embedding = register_module(
      "enc_embedding",
      DataEmbeddingInverted(config_.seq_len, config_.d_model, config_.batch_invariant));
  encoder = register_module("encoder", encoder_from_config(config_, FinalNorm::kLayer));
  projection = register_module("projection", torch::nn::Linear(config_.d_model, config_.pred_len));
  eval();
}

SampleForecast ITransformerImpl::forecast_samples(const at::Tensor& series,
                                                  const at::Tensor& calendar, bool need_attention) {
  const std::string T = std::to_string(config_.seq_len);
  if (series.dim() != 3 || series.size(1) < 1 || series.size(2) != config_.seq_len) {
    throw ModelError("iTransformer expects series [samples, variables >= 1, " + T + "], got " +
                     c10::str(series.sizes()));
  }
  const int64_t C = calendar_token_count();
  if (C > 0) {
    if (!calendar.defined() || calendar.dim() != 3 || calendar.size(0) != series.size(0) ||
        calendar.size(1) != C || calendar.size(2) != config_.seq_len) {
      throw ModelError("iTransformer (freq \"" + config_.freq + "\") expects calendar rows [" +
                       std::to_string(series.size(0)) + ", " + std::to_string(C) + ", " + T +
                       "], got " + (calendar.defined() ? c10::str(calendar.sizes()) : "none"));
    }
  } else if (calendar.defined()) {
    throw ModelError("this iTransformer has no calendar tokens, but calendar rows were given");
  }
  if (!runs_unit_by_unit(config_.batch_invariant, series)) {
    return forecast_batch(series, calendar, need_attention);
  }
  return forecast_unit_by_unit<SampleForecast>(series.size(0), [&](int64_t sample) {
    return forecast_batch(unit_input(series, sample), unit_input(calendar, sample),
                          need_attention);
  });
}

SampleForecast ITransformerImpl::forecast_batch(const at::Tensor& series,
                                                const at::Tensor& calendar, bool need_attention) {
  const int64_t variables = series.size(1);
  const NormalisedSeries normalised = normalise_over_time(series);
  EncoderOutput encoded =
      encoder->forward(enc_embedding->forward(normalised.values, calendar), {}, need_attention);
  // Only the variable tokens are forecast (TSLib projects all and keeps the first N).
  const at::Tensor variable_tokens = encoded.output.narrow(1, 0, variables);
  const at::Tensor scaled =
      row_linear(variable_tokens, projection->weight, projection->bias, config_.batch_invariant);
  return {normalised.denormalise(scaled), std::move(encoded.output), std::move(encoded.weights)};
}

at::Tensor ITransformerImpl::calendar_rows(const std::vector<int64_t>& timestamps) const {
  std::vector<float> rows =
      time_feature_rows(calendar_, timestamps, static_cast<size_t>(config_.seq_len));
  return at::tensor(rows, at::kFloat).view({calendar_token_count(), config_.seq_len});
}

SampleForecast ITransformerImpl::forecast_sample(const at::Tensor& series,
                                                 const std::vector<int64_t>& timestamps,
                                                 bool need_attention) {
  if (series.dim() != 2) {
    throw ModelError("iTransformer expects one sample's series [variables, " +
                     std::to_string(config_.seq_len) + "], got " + c10::str(series.sizes()));
  }
  const at::Tensor calendar =
      calendar_.empty() ? at::Tensor() : calendar_rows(timestamps).unsqueeze(0);
  SampleForecast batched = forecast_samples(series.unsqueeze(0), calendar, need_attention);
  SampleForecast out{first_sample(batched.forecast), first_sample(batched.encoder_output), {}};
  for (const at::Tensor& weights : batched.attention)
    out.attention.push_back(first_sample(weights));
  return out;
}

at::Tensor ITransformerImpl::forward(const at::Tensor& x, const at::Tensor& x_mark) {
  const at::Tensor calendar = x_mark.defined() ? x_mark.transpose(1, 2) : at::Tensor();
  return forecast_samples(x.transpose(1, 2), calendar).forecast.transpose(1, 2);
}

std::vector<std::string> ITransformerImpl::token_names(
    const std::vector<std::string>& variable_names) const {
  std::vector<std::string> names = variable_names;
  for (TimeFeature feature : calendar_) names.push_back(time_feature_name(feature));
  return names;
}

}  // namespace tsserve::model
