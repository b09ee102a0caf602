#include "tsserve/model/fused_timexer.h"

#include <ATen/ATen.h>

#include "tsserve/model/fused_timexer_forward.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/module_tensors.h"
#include "tsserve/model/sample_inputs.h"
#include "tsserve/model/timexer_family.h"

namespace tsserve::model {
namespace {

FusedTimeXerAttention pack_attention(const ModuleTensors& p, const std::string& prefix, int64_t d) {
  FusedTimeXerAttention a;
  a.query = p.linear(prefix + ".query_projection", d, d);
  a.key = p.linear(prefix + ".key_projection", d, d);
  a.value = p.linear(prefix + ".value_projection", d, d);
  a.out = p.linear(prefix + ".out_projection", d, d);
  return a;
}

FusedTimeXerLayer pack_layer(const ModuleTensors& p, const std::string& prefix, int64_t d,
                             int64_t d_ff) {
  FusedTimeXerLayer layer;
  layer.self_attention = pack_attention(p, prefix + "self_attention", d);
  layer.cross_attention = pack_attention(p, prefix + "cross_attention", d);
  layer.ff1 = p.linear(prefix + "conv1", d_ff, d);
  layer.ff2 = p.linear(prefix + "conv2", d, d_ff);
  layer.norm1_weight = p.floats(prefix + "norm1.weight", d);
  layer.norm1_bias = p.floats(prefix + "norm1.bias", d);
  layer.norm2_weight = p.floats(prefix + "norm2.weight", d);
  layer.norm2_bias = p.floats(prefix + "norm2.bias", d);
  layer.norm3_weight = p.floats(prefix + "norm3.weight", d);
  layer.norm3_bias = p.floats(prefix + "norm3.bias", d);
  return layer;
}

// head.linear [F][D * L] (TSLib flattens each variable's [D, L]: column d * L + l) with its
// columns moved to where the kernels keep token l's feature d: l * padded D + d.
FusedPackedLinear pack_head(const ModuleTensors& p, int64_t pred_len, int64_t d, int64_t tokens) {
  const at::Tensor weight = p.get("head.linear.weight", pred_len * d * tokens);
  const at::Tensor bias = p.get("head.linear.bias", pred_len);
  const int64_t dp = fused_round_up(d);
  std::vector<float> moved(static_cast<size_t>(pred_len * tokens * dp), 0.0f);
  const float* from = weight.data_ptr<float>();
  for (int64_t f = 0; f < pred_len; ++f) {
    for (int64_t j = 0; j < d; ++j) {
      for (int64_t l = 0; l < tokens; ++l) {
        moved[static_cast<size_t>((f * tokens + l) * dp + j)] = from[(f * d + j) * tokens + l];
      }
    }
  }
  return pack_linear(moved.data(), bias.data_ptr<float>(), pred_len, tokens * dp);
}

}  // namespace

FusedTimeXerWeights pack_fused_timexer_weights(const TimeXerImpl& model) {
  const ModelConfig& config = model.config();
  const ModuleTensors p(model, "fused TimeXer");
  FusedTimeXerWeights w;
  w.seq_len = config.seq_len;
  w.pred_len = config.pred_len;
  w.d_model = config.d_model;
  w.n_heads = config.n_heads;
  w.d_ff = config.d_ff;
  w.patch_len = config.patch_len;
  w.patches = timexer_patch_count(config);
  w.variables = config.enc_in;
  w.every_variable = timexer_forecasts_every_variable(config);
  w.calendar_tokens = model.calendar_token_count();
  w.use_norm = config.use_norm;
  w.activation =
      config.activation == Activation::kRelu ? FusedActivation::kRelu : FusedActivation::kGelu;
  const int64_t d = config.d_model;
  const at::Tensor patch = p.get("en_embedding.value_embedding.weight", d * config.patch_len);
  w.patch_embedding = pack_linear(patch.data_ptr<float>(), nullptr, d, config.patch_len);
  const at::Tensor pe = p.get("en_embedding.position_embedding.pe", kMaxPositions * d);
  w.positions.assign(pe.data_ptr<float>(), pe.data_ptr<float>() + w.patches * d);
  w.global_tokens = p.floats("en_embedding.glb_token", w.endogenous() * d);
  w.covariate_embedding = p.linear("ex_embedding.value_embedding", d, config.seq_len);
  for (int64_t i = 0; i < config.e_layers; ++i) {
    w.layers.push_back(pack_layer(p, "encoder.layers." + std::to_string(i) + ".", d, config.d_ff));
  }
  w.final_weight = p.floats("encoder.norm.weight", d);
  w.final_bias = p.floats("encoder.norm.bias", d);
  w.head = pack_head(p, config.pred_len, d, w.tokens());
  return w;
}

FusedTimeXer::FusedTimeXer(const TimeXerImpl& model)
    : weights_(pack_fused_timexer_weights(model)) {}

std::pair<at::Tensor, at::Tensor> FusedTimeXer::checked_inputs(const at::Tensor& series,
                                                               const at::Tensor& calendar) const {
  return checked_sample_inputs(
      series, calendar,
      {"the fused TimeXer", weights_.variables, weights_.seq_len, weights_.calendar_tokens});
}

at::Tensor FusedTimeXer::forecast_samples(const at::Tensor& series,
                                          const at::Tensor& calendar) const {
  const auto [input, marks] = checked_inputs(series, calendar);
  at::Tensor forecast =
      at::empty({input.size(0), weights_.endogenous(), weights_.pred_len}, input.options());
  fused_timexer_forecast(weights_, input.data_ptr<float>(),
                         marks.defined() ? marks.data_ptr<float>() : nullptr, input.size(0),
                         forecast.data_ptr<float>());
  return forecast;
}

TimeXerForecastWithMaps FusedTimeXer::forecast_samples_with_maps(
    const at::Tensor& series, const at::Tensor& calendar,
    const std::vector<TimeXerMapRequest>& requests) const {
  const auto [input, marks] = checked_inputs(series, calendar);
  const int64_t samples = input.size(0);
  if (static_cast<int64_t>(requests.size()) != samples) {
    throw ModelError("the fused TimeXer expects one map request per sample (" +
                     std::to_string(samples) + "), got " + std::to_string(requests.size()));
  }
  const FusedTimeXerWeights& w = weights_;
  const int64_t layers = static_cast<int64_t>(w.layers.size());
  const int64_t K = w.endogenous();
  const int64_t L = w.tokens();
  const int64_t V = w.covariates();
  TimeXerForecastWithMaps out;
  out.self_maps.resize(static_cast<size_t>(samples));
  out.cross_maps.resize(static_cast<size_t>(samples));
  std::vector<FusedTimeXerMaps> maps(static_cast<size_t>(samples));
  bool any = false;
  for (int64_t i = 0; i < samples; ++i) {
    const TimeXerMapRequest& r = requests[static_cast<size_t>(i)];
    if (r.layers.empty()) continue;
    for (int32_t layer : r.layers) {
      if (layer < 0 || layer >= layers) {
        throw ModelError("attention map layer " + std::to_string(layer) +
                         " is out of range: the model has " + std::to_string(layers) +
                         " encoder layers");
      }
    }
    const int64_t count = static_cast<int64_t>(r.layers.size());
    const auto options = input.options();
    out.self_maps[i] = r.average_heads ? at::empty({count, K, L, L}, options)
                                       : at::empty({count, K, w.n_heads, L, L}, options);
    out.cross_maps[i] = r.average_heads ? at::empty({count, K, V}, options)
                                        : at::empty({count, w.n_heads, K, V}, options);
    maps[i] = {r.layers.data(), static_cast<int32_t>(count), r.average_heads,
               out.self_maps[i].data_ptr<float>(), out.cross_maps[i].data_ptr<float>()};
    any = true;
  }
  out.forecast = at::empty({samples, K, w.pred_len}, input.options());
  fused_timexer_forecast(w, input.data_ptr<float>(),
                         marks.defined() ? marks.data_ptr<float>() : nullptr, samples,
                         out.forecast.data_ptr<float>(), any ? maps.data() : nullptr);
  return out;
}

}  // namespace tsserve::model
