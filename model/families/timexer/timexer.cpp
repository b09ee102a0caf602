#include "tsserve/model/timexer.h"

#include <ATen/ATen.h>

#include <memory>
#include <utility>

#include "tsserve/model/full_attention.h"
#include "tsserve/model/instance_norm.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/row_linear.h"
#include "tsserve/model/timexer_family.h"
#include "tsserve/model/unit_passes.h"

namespace tsserve::model {
namespace {

torch::nn::LayerNorm layer_norm(int64_t d_model) {
  return torch::nn::LayerNorm(torch::nn::LayerNormOptions({d_model}).eps(1e-5));
}

}  // namespace

EnEmbeddingImpl::EnEmbeddingImpl(int64_t variables, int64_t d_model, int64_t patch_len,
                                 bool batch_invariant)
    : patch_len_(patch_len), batch_invariant_(batch_invariant) {
  value_embedding =
      register_module("value_embedding",
                      torch::nn::Linear(torch::nn::LinearOptions(patch_len, d_model).bias(false)));
  glb_token = register_parameter("glb_token", at::zeros({1, variables, 1, d_model}));
  position_embedding = register_module("position_embedding", PositionalEmbedding(d_model));
}

at::Tensor EnEmbeddingImpl::forward(const at::Tensor& endogenous) {
  const int64_t samples = endogenous.size(0);
  const int64_t variables = endogenous.size(1);
  const int64_t d_model = glb_token.size(3);
  const at::Tensor patches = endogenous.unfold(2, patch_len_, patch_len_);  // [S, n, P, len]
  const int64_t patch_count = patches.size(2);
  if (patch_count > PositionalEmbeddingImpl::kMaxLength) {
    throw ModelError("the series gives " + std::to_string(patch_count) +
                     " patches; the position embedding covers at most " +
                     std::to_string(PositionalEmbeddingImpl::kMaxLength));
  }
  const at::Tensor rows = patches.reshape({samples * variables, patch_count, patch_len_});
  const at::Tensor tokens =
      row_linear(rows.contiguous(), value_embedding->weight, {}, batch_invariant_) +
      position_embedding->pe.narrow(1, 0, patch_count);
  const at::Tensor global = glb_token.expand({samples, variables, 1, d_model});
  return at::cat({tokens.view({samples, variables, patch_count, d_model}), global}, 2)
      .view({samples * variables, patch_count + 1, d_model});
}

TimeXerLayerImpl::TimeXerLayerImpl(const ModelConfig& config)
    : activation_(config.activation), batch_invariant_(config.batch_invariant) {
  const int64_t d = config.d_model;
  const auto full = std::make_shared<FullAttention>();
  self_attention = register_module("self_attention",
                                   AttentionLayer(full, d, config.n_heads, config.batch_invariant));
  cross_attention = register_module(
      "cross_attention", AttentionLayer(full, d, config.n_heads, config.batch_invariant));
  conv1 = register_module("conv1", torch::nn::Conv1d(d, config.d_ff, 1));
  conv2 = register_module("conv2", torch::nn::Conv1d(config.d_ff, d, 1));
  norm1 = register_module("norm1", layer_norm(d));
  norm2 = register_module("norm2", layer_norm(d));
  norm3 = register_module("norm3", layer_norm(d));
}

TimeXerLayerOutput TimeXerLayerImpl::forward(const at::Tensor& x, const at::Tensor& covariates,
                                             bool need_weights) {
  const int64_t samples = covariates.size(0);
  const int64_t rows = x.size(0);
  const int64_t length = x.size(1);
  const int64_t d_model = x.size(2);
  AttentionOutput attended = self_attention->forward(x, x, x, {}, need_weights);
  const at::Tensor normed = norm1->forward(x + attended.context);
  // Each sample's endogenous variables' global tokens query its covariate tokens.
  const at::Tensor global =
      normed.select(1, length - 1).reshape({samples, rows / samples, d_model});
  AttentionOutput crossed =
      cross_attention->forward(global, covariates, covariates, {}, need_weights);
  const at::Tensor global_out = norm2->forward((global + crossed.context).view({rows, 1, d_model}));
  const at::Tensor tokens = at::cat({normed.narrow(1, 0, length - 1), global_out}, 1);
  at::Tensor hidden = row_linear(tokens, conv1->weight, conv1->bias, batch_invariant_);
  hidden = activation_ == Activation::kRelu ? at::relu(hidden) : at::gelu(hidden);
  const at::Tensor y = row_linear(hidden, conv2->weight, conv2->bias, batch_invariant_);
  return {norm3->forward(tokens + y), std::move(attended.weights), std::move(crossed.weights)};
}

TimeXerEncoderImpl::TimeXerEncoderImpl(const ModelConfig& config) {
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < config.e_layers; ++i) layers->push_back(TimeXerLayer(config));
  norm = register_module("norm", layer_norm(config.d_model));
}

TimeXerImpl::TimeXerImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  if (config_.family != kTimeXerFamily) {
    throw ModelError("TimeXer built from a config whose \"model\" is \"" + config_.family + "\"");
  }
  calendar_ = timexer_calendar_features(config_);
  en_embedding = register_module(
      "en_embedding", EnEmbedding(timexer_endogenous_count(config_, config_.enc_in),
                                  config_.d_model, config_.patch_len, config_.batch_invariant));
  ex_embedding = register_module(
      "ex_embedding",
      DataEmbeddingInverted(config_.seq_len, config_.d_model, config_.batch_invariant));
  encoder = register_module("encoder", TimeXerEncoder(config_));
  head = register_module(
      "head", FlattenHead(config_.d_model * timexer_token_count(config_), config_.pred_len));
  eval();
}

TimeXerForecast TimeXerImpl::forecast_samples(const at::Tensor& series, const at::Tensor& calendar,
                                              bool need_attention) {
  const std::string T = std::to_string(config_.seq_len);
  if (series.dim() != 3 || series.size(1) != config_.enc_in || series.size(2) != config_.seq_len) {
    throw ModelError("TimeXer expects series [samples, " + std::to_string(config_.enc_in) + ", " +
                     T + "], got " + c10::str(series.sizes()));
  }
  const int64_t C = calendar_token_count();
  if (C > 0) {
    if (!calendar.defined() || calendar.dim() != 3 || calendar.size(0) != series.size(0) ||
        calendar.size(1) != C || calendar.size(2) != config_.seq_len) {
      throw ModelError("TimeXer (freq \"" + config_.freq + "\") expects calendar rows [" +
                       std::to_string(series.size(0)) + ", " + std::to_string(C) + ", " + T +
                       "], got " + (calendar.defined() ? c10::str(calendar.sizes()) : "none"));
    }
  } else if (calendar.defined()) {
    throw ModelError("this TimeXer has no calendar tokens, but calendar rows were given");
  }
  if (!runs_unit_by_unit(config_.batch_invariant, series)) {
    return forecast_batch(series, calendar, need_attention);
  }
  const int64_t layers = need_attention ? config_.e_layers : 0;
  std::vector<at::Tensor> joined = run_unit_by_unit(series.size(0), [&](int64_t sample) {
    TimeXerForecast one =
        forecast_batch(unit_input(series, sample), unit_input(calendar, sample), need_attention);
    std::vector<at::Tensor> parts{std::move(one.forecast), std::move(one.encoder_output)};
    for (at::Tensor& map : one.self_attention) parts.push_back(std::move(map));
    for (at::Tensor& map : one.cross_attention) parts.push_back(std::move(map));
    return parts;
  });
  TimeXerForecast out;
  out.forecast = std::move(joined[0]);
  out.encoder_output = std::move(joined[1]);
  for (int64_t l = 0; l < layers; ++l) {
    out.self_attention.push_back(std::move(joined[static_cast<size_t>(2 + l)]));
    out.cross_attention.push_back(std::move(joined[static_cast<size_t>(2 + layers + l)]));
  }
  return out;
}

TimeXerForecast TimeXerImpl::forecast_batch(const at::Tensor& series, const at::Tensor& calendar,
                                            bool need_attention) {
  const int64_t samples = series.size(0);
  const int64_t variables = series.size(1);
  const int64_t d_model = config_.d_model;
  const bool every = timexer_forecasts_every_variable(config_);
  NormalisedSeries normalised;
  if (config_.use_norm) normalised = normalise_over_time(series);
  const at::Tensor values = config_.use_norm ? normalised.values : series;
  const at::Tensor endogenous = every ? values : values.narrow(1, variables - 1, 1);
  const at::Tensor covariate_series = every ? values : values.narrow(1, 0, variables - 1);
  const int64_t endogenous_count = endogenous.size(1);

  at::Tensor x = en_embedding->forward(endogenous);
  const at::Tensor covariates = ex_embedding->forward(covariate_series.contiguous(), calendar);
  TimeXerForecast out;
  for (const auto& module : *encoder->layers) {
    TimeXerLayerOutput layer =
        module->as<TimeXerLayerImpl>()->forward(x, covariates, need_attention);
    x = std::move(layer.output);
    if (!need_attention) continue;
    const at::Tensor& self = layer.self_weights;
    out.self_attention.push_back(
        self.view({samples, endogenous_count, self.size(1), self.size(2), self.size(3)}));
    out.cross_attention.push_back(std::move(layer.cross_weights));  // TSLib's [S, H, K, V]
  }
  x = encoder->norm->forward(x);
  const int64_t length = x.size(1);
  // TSLib's FlattenHead reads each variable's tokens as [D, L], flattened D-major.
  const at::Tensor flattened =
      x.transpose(1, 2).reshape({samples * endogenous_count, d_model * length});
  at::Tensor forecast =
      row_linear(flattened, head->linear->weight, head->linear->bias, config_.batch_invariant)
          .view({samples, endogenous_count, config_.pred_len});
  if (config_.use_norm) {
    const at::Tensor stdev =
        every ? normalised.stdev : normalised.stdev.narrow(1, variables - 1, 1);
    const at::Tensor mean = every ? normalised.mean : normalised.mean.narrow(1, variables - 1, 1);
    forecast = forecast * stdev + mean;
  }
  out.forecast = std::move(forecast);
  out.encoder_output = x.view({samples, endogenous_count, length, d_model});
  return out;
}

at::Tensor TimeXerImpl::forward(const at::Tensor& x, const at::Tensor& x_mark) {
  const at::Tensor calendar = x_mark.defined() ? x_mark.transpose(1, 2).contiguous() : at::Tensor();
  return forecast_samples(x.transpose(1, 2).contiguous(), calendar).forecast.transpose(1, 2);
}

at::Tensor TimeXerImpl::calendar_rows(const std::vector<int64_t>& timestamps) const {
  std::vector<float> rows =
      time_feature_rows(calendar_, timestamps, static_cast<size_t>(config_.seq_len));
  return at::tensor(rows, at::kFloat).view({calendar_token_count(), config_.seq_len});
}

std::vector<std::string> TimeXerImpl::covariate_names(
    const std::vector<std::string>& variable_names) const {
  std::vector<std::string> names = variable_names;
  if (!timexer_forecasts_every_variable(config_) && !names.empty()) names.pop_back();
  for (TimeFeature feature : calendar_) names.push_back(time_feature_name(feature));
  return names;
}

}  // namespace tsserve::model
