#include "tsserve/model/fused_itransformer.h"

#include <ATen/ATen.h>

#include "tsserve/model/fused_encode.h"
#include "tsserve/model/fused_encode_tensors.h"
#include "tsserve/model/fused_itransformer_forward.h"
#include "tsserve/model/itransformer_family.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/module_tensors.h"
#include "tsserve/model/sample_inputs.h"

namespace tsserve::model {
namespace {

FusedITransformerLayer pack_itransformer_layer(const ModuleTensors& p, const std::string& prefix,
                                               int64_t d, int64_t d_ff) {
  FusedITransformerLayer layer;
  layer.query = p.linear(prefix + "attention.query_projection", d, d);
  layer.key = p.linear(prefix + "attention.key_projection", d, d);
  layer.value = p.linear(prefix + "attention.value_projection", d, d);
  layer.out = p.linear(prefix + "attention.out_projection", d, d);
  layer.ff1 = p.linear(prefix + "conv1", d_ff, d);
  layer.ff2 = p.linear(prefix + "conv2", d, d_ff);
  layer.norm1_weight = p.floats(prefix + "norm1.weight", d);
  layer.norm1_bias = p.floats(prefix + "norm1.bias", d);
  layer.norm2_weight = p.floats(prefix + "norm2.weight", d);
  layer.norm2_bias = p.floats(prefix + "norm2.bias", d);
  return layer;
}

}  // namespace

std::string fused_itransformer_unsupported_reason(const ModelConfig& config) {
  if (config.family != kITransformerFamily) {
    return "the fused iTransformer forward runs iTransformer models only, not " + config.family;
  }
  if (config.attention != AttentionKind::kFull) {
    return "the fused iTransformer forward has Full attention only, not ProbSparse";
  }
  return "";
}

FusedITransformerWeights pack_fused_itransformer_weights(const ITransformerImpl& model) {
  const ModelConfig& config = model.config();
  const std::string unsupported = fused_itransformer_unsupported_reason(config);
  if (!unsupported.empty()) throw ModelError(unsupported);
  const ModuleTensors p(model, "fused iTransformer");

  FusedITransformerWeights w;
  w.seq_len = config.seq_len;
  w.pred_len = config.pred_len;
  w.d_model = config.d_model;
  w.n_heads = config.n_heads;
  w.d_ff = config.d_ff;
  w.calendar_tokens = model.calendar_token_count();
  w.activation =
      config.activation == Activation::kRelu ? FusedActivation::kRelu : FusedActivation::kGelu;
  const int64_t d = config.d_model;
  w.embedding = p.linear("enc_embedding.value_embedding", d, config.seq_len);
  for (int64_t i = 0; i < config.e_layers; ++i) {
    w.layers.push_back(pack_itransformer_layer(p, "encoder.attn_layers." + std::to_string(i) + ".",
                                               d, config.d_ff));
  }
  w.final_weight = p.floats("encoder.norm.weight", d);
  w.final_bias = p.floats("encoder.norm.bias", d);
  w.projection = p.linear("projection", config.pred_len, d);
  return w;
}

FusedITransformer::FusedITransformer(const ITransformerImpl& model)
    : weights_(pack_fused_itransformer_weights(model)) {}

std::pair<at::Tensor, at::Tensor> FusedITransformer::checked_inputs(
    const at::Tensor& series, const at::Tensor& calendar) const {
  return checked_sample_inputs(
      series, calendar, {"the fused iTransformer", 0, weights_.seq_len, weights_.calendar_tokens});
}

at::Tensor FusedITransformer::forecast_samples(const at::Tensor& series,
                                               const at::Tensor& calendar) const {
  const auto [input, marks] = checked_inputs(series, calendar);
  at::Tensor forecast =
      at::empty({input.size(0), input.size(1), weights_.pred_len}, input.options());
  fused_itransformer_forecast(weights_, input.data_ptr<float>(),
                              marks.defined() ? marks.data_ptr<float>() : nullptr, input.size(0),
                              input.size(1), forecast.data_ptr<float>());
  return forecast;
}

SampleForecastWithMaps FusedITransformer::forecast_samples_with_maps(
    const at::Tensor& series, const at::Tensor& calendar,
    const std::vector<RowMapRequest>& requests) const {
  const auto [input, marks] = checked_inputs(series, calendar);
  const int64_t samples = input.size(0);
  const int64_t N = input.size(1);
  if (static_cast<int64_t>(requests.size()) != samples) {
    throw ModelError("the fused iTransformer expects one map request per sample (" +
                     std::to_string(samples) + "), got " + std::to_string(requests.size()));
  }
  const int64_t layers = static_cast<int64_t>(weights_.layers.size());
  const int64_t tokens = N + weights_.calendar_tokens;
  SampleForecastWithMaps out;
  out.maps.resize(samples);
  std::vector<FusedRowMaps> maps(samples);
  bool any = false;
  for (int64_t i = 0; i < samples; ++i) {
    const RowMapRequest& r = requests[i];
    if (r.layers.empty()) continue;
    for (int32_t layer : r.layers) {
      if (layer < 0 || layer >= layers) {
        throw ModelError("attention map layer " + std::to_string(layer) +
                         " is out of range: the model has " + std::to_string(layers) +
                         " encoder layers");
      }
    }
    const int64_t count = static_cast<int64_t>(r.layers.size());
    out.maps[i] = r.average_heads
                      ? at::empty({count, tokens, tokens}, input.options())
                      : at::empty({count, weights_.n_heads, tokens, tokens}, input.options());
    maps[i].destination = out.maps[i].data_ptr<float>();
    maps[i].layers = r.layers.data();
    maps[i].layer_count = static_cast<int32_t>(count);
    maps[i].average_heads = r.average_heads;
    any = true;
  }
  out.forecast = at::empty({samples, N, weights_.pred_len}, input.options());
  fused_itransformer_forecast(weights_, input.data_ptr<float>(),
                              marks.defined() ? marks.data_ptr<float>() : nullptr, samples, N,
                              out.forecast.data_ptr<float>(), any ? maps.data() : nullptr);
  return out;
}

EncoderOutput FusedITransformer::encode(const at::Tensor& tokens, bool need_attention) const {
  return fused_encoder_output(
      tokens, weights_.d_model, static_cast<int64_t>(weights_.layers.size()), weights_.n_heads,
      need_attention,
      [&](const float* in, int64_t batch, int64_t length, float* output, float* maps) {
        fused_itransformer_encode(weights_, in, batch, length, output, maps);
      });
}

}  // namespace tsserve::model
