#include "tsserve/model/fused_patchtst.h"

#include <ATen/ATen.h>

#include <cmath>

#include "tsserve/model/fused_encode_tensors.h"
#include "tsserve/model/fused_encode.h"
#include "tsserve/model/fused_forward.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/prob_attention.h"
#include "tsserve/model/prob_sampling.h"

namespace tsserve::model {
namespace {

constexpr double kBatchNormEps = 1e-5;

class ParameterTable {
 public:
  explicit ParameterTable(const PatchTSTImpl& model)
      : params_(model.named_parameters()), buffers_(model.named_buffers()) {}

  // A contiguous float copy of the named parameter or buffer, checked against `numel`.
  std::vector<float> get(const std::string& name, int64_t numel) const {
    const at::Tensor* found = params_.find(name);
    if (!found) found = buffers_.find(name);
    if (!found) throw ModelError("fused forward: the model has no tensor " + name);
    const at::Tensor t = found->detach().to(at::kCPU, at::kFloat).contiguous();
    if (t.numel() < numel) {
      throw ModelError("fused forward: " + name + " has " + std::to_string(t.numel()) +
                       " elements, expected at least " + std::to_string(numel));
    }
    return std::vector<float>(t.data_ptr<float>(), t.data_ptr<float>() + numel);
  }

 private:
  torch::OrderedDict<std::string, at::Tensor> params_;
  torch::OrderedDict<std::string, at::Tensor> buffers_;
};

void append(std::vector<float>& to, const std::vector<float>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

FusedLayerWeights pack_layer(const ParameterTable& table, const std::string& prefix, int64_t d,
                             int64_t d_ff) {
  FusedLayerWeights layer;
  for (const char* projection : {"query", "key", "value"}) {
    const std::string name = prefix + "attention." + projection + "_projection.";
    append(layer.qkv_weight, table.get(name + "weight", d * d));
    append(layer.qkv_bias, table.get(name + "bias", d));
  }
  layer.out_weight = table.get(prefix + "attention.out_projection.weight", d * d);
  layer.out_bias = table.get(prefix + "attention.out_projection.bias", d);
  layer.ff1_weight = table.get(prefix + "conv1.weight", d_ff * d);  // [D_ff, D, 1]
  layer.ff1_bias = table.get(prefix + "conv1.bias", d_ff);
  layer.ff2_weight = table.get(prefix + "conv2.weight", d * d_ff);  // [D, D_ff, 1]
  layer.ff2_bias = table.get(prefix + "conv2.bias", d);
  layer.norm1_weight = table.get(prefix + "norm1.weight", d);
  layer.norm1_bias = table.get(prefix + "norm1.bias", d);
  layer.norm2_weight = table.get(prefix + "norm2.weight", d);
  layer.norm2_bias = table.get(prefix + "norm2.bias", d);
  return layer;
}

}  // namespace

std::string fused_unsupported_reason(const ModelConfig& config) {
  if (!config.norm) return "the fused CPU forward needs the final norm variant (batch or layer)";
  return "";
}

FusedWeights pack_fused_weights(const PatchTSTImpl& model) {
  const ModelConfig& config = model.config();
  const std::string unsupported = fused_unsupported_reason(config);
  if (!unsupported.empty()) throw ModelError(unsupported);
  const ParameterTable table(model);

  FusedWeights w;
  w.seq_len = config.seq_len;
  w.pred_len = config.pred_len;
  w.d_model = config.d_model;
  w.n_heads = config.n_heads;
  w.d_ff = config.d_ff;
  w.patch_len = config.patch_len;
  w.stride = config.stride;
  w.patches = config.patch_count();
  w.padded_patches = fused_round_up(w.patches);
  w.padded_pred = fused_round_up(w.pred_len);
  w.activation =
      config.activation == Activation::kRelu ? FusedActivation::kRelu : FusedActivation::kGelu;
  const int64_t d = w.d_model;
  const int64_t p = w.patches;
  if (config.attention == AttentionKind::kProb) {
    // The encoder's self-attention: as many queries as keys, no mask, the default scale.
    w.attention = FusedAttention::kProbSparse;
    w.prob_samples = ProbAttention::sample_count(config.factor, p);
    w.prob_active = ProbAttention::sample_count(config.factor, p);
    w.prob_tslib_layout = config.prob_layout == ProbLayout::kTslib;
    const at::Tensor index = prob_sample_index(config.prob_seed, p, p, w.prob_samples);
    const int64_t* picked = index.data_ptr<int64_t>();
    w.prob_sample_index.assign(picked, picked + index.numel());
  }

  w.embed_weight = table.get("patch_embedding.value_embedding.weight", d * w.patch_len);
  const std::vector<float> pe = table.get("patch_embedding.position_embedding.pe", p * d);
  w.position_transposed.assign(d * w.padded_patches, 0.0f);
  for (int64_t i = 0; i < p; ++i) {
    for (int64_t j = 0; j < d; ++j) w.position_transposed[j * w.padded_patches + i] = pe[i * d + j];
  }
  for (int64_t i = 0; i < config.e_layers; ++i) {
    w.layers.push_back(
        pack_layer(table, "encoder.attn_layers." + std::to_string(i) + ".", d, w.d_ff));
  }

  switch (*config.norm) {
    case FinalNorm::kLayer:
      w.final_norm = FusedFinalNorm::kLayer;
      w.final_weight = table.get("encoder.norm.weight", d);
      w.final_bias = table.get("encoder.norm.bias", d);
      break;
    case FinalNorm::kBatch: {
      // Eval BatchNorm is one affine map per channel: x * scale + shift.
      w.final_norm = FusedFinalNorm::kBatch;
      const auto gamma = table.get("encoder.norm.1.weight", d);
      const auto beta = table.get("encoder.norm.1.bias", d);
      const auto mean = table.get("encoder.norm.1.running_mean", d);
      const auto var = table.get("encoder.norm.1.running_var", d);
      for (int64_t j = 0; j < d; ++j) {
        const double scale = gamma[j] / std::sqrt(static_cast<double>(var[j]) + kBatchNormEps);
        w.final_weight.push_back(static_cast<float>(scale));
        w.final_bias.push_back(static_cast<float>(beta[j] - mean[j] * scale));
      }
      break;
    }
    case FinalNorm::kNone:
      w.final_norm = FusedFinalNorm::kNone;
      break;
  }

  const std::vector<float> head = table.get("head.linear.weight", w.pred_len * d * p);
  w.head_weight_transposed.assign(d * p * w.padded_pred, 0.0f);
  for (int64_t f = 0; f < w.pred_len; ++f) {
    for (int64_t k = 0; k < d * p; ++k) {
      w.head_weight_transposed[k * w.padded_pred + f] = head[f * d * p + k];
    }
  }
  w.head_bias = table.get("head.linear.bias", w.pred_len);
  w.head_bias.resize(w.padded_pred, 0.0f);
  return w;
}

FusedPatchTST::FusedPatchTST(const PatchTSTImpl& model) : weights_(pack_fused_weights(model)) {}

at::Tensor FusedPatchTST::forecast_rows(const at::Tensor& series, const FusedRowMaps* maps) const {
  if (series.dim() != 2 || series.size(1) != weights_.seq_len ||
      series.scalar_type() != at::kFloat || !series.device().is_cpu()) {
    throw ModelError("the fused forward expects float32 CPU series [rows, " +
                     std::to_string(weights_.seq_len) + "], got " + c10::str(series.sizes()) + " " +
                     c10::str(series.scalar_type()) + " on " + series.device().str());
  }
  const at::Tensor input = series.contiguous();
  at::Tensor forecast = at::empty({series.size(0), weights_.pred_len}, series.options());
  fused_forecast_rows(weights_, input.data_ptr<float>(), series.size(0), forecast.data_ptr<float>(),
                      maps);
  return forecast;
}

ForecastWithRowMaps FusedPatchTST::forecast_rows_with_maps(
    const at::Tensor& series, const std::vector<RowMapRequest>& requests) const {
  if (series.dim() >= 1 && static_cast<int64_t>(requests.size()) != series.size(0)) {
    throw ModelError("attention maps: " + std::to_string(requests.size()) + " row requests for " +
                     std::to_string(series.size(0)) + " series rows");
  }
  ForecastWithRowMaps out;
  out.maps.resize(requests.size());
  std::vector<FusedRowMaps> maps(requests.size());
  for (size_t row = 0; row < requests.size(); ++row) {
    const RowMapRequest& request = requests[row];
    if (request.layers.empty()) continue;
    const auto layers = static_cast<int64_t>(request.layers.size());
    const int64_t p = weights_.patches;
    out.maps[row] = request.average_heads ? at::empty({layers, p, p}, at::kFloat)
                                          : at::empty({layers, weights_.n_heads, p, p}, at::kFloat);
    maps[row] = {out.maps[row].data_ptr<float>(), request.layers.data(),
                 static_cast<int32_t>(layers), request.average_heads};
  }
  out.forecast = forecast_rows(series, maps.data());
  return out;
}

std::string FusedPatchTST::encode_unsupported_reason(int64_t length) const {
  return fused_patchtst_encode_unsupported_reason(weights_, length);
}

EncoderOutput FusedPatchTST::encode(const at::Tensor& tokens, bool need_attention) const {
  return fused_encoder_output(
      tokens, weights_.d_model, static_cast<int64_t>(weights_.layers.size()), weights_.n_heads,
      need_attention,
      [&](const float* in, int64_t batch, int64_t length, float* output, float* maps) {
        fused_patchtst_encode(weights_, in, batch, length, output, maps);
      });
}

}  // namespace tsserve::model
