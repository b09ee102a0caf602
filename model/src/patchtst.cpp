#include "tsserve/model/patchtst.h"

#include <ATen/ATen.h>

#include "tsserve/model/full_attention.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/row_linear.h"

namespace tsserve::model {
namespace {

// Instance normalisation has no learnable affine; the epsilon sits inside the root.
constexpr double kInstanceNormEps = 1e-5;

std::shared_ptr<const InnerAttention> make_inner_attention(const ModelConfig& config) {
  if (config.attention == AttentionKind::kFull) return std::make_shared<FullAttention>();
  ProbAttentionOptions options;
  options.factor = config.factor;
  options.layout = config.prob_layout;
  options.seed = config.prob_seed;
  return std::make_shared<ProbAttention>(options);
}

}  // namespace

FlattenHeadImpl::FlattenHeadImpl(int64_t inputs, int64_t pred_len) {
  linear = register_module("linear", torch::nn::Linear(inputs, pred_len));
}

PatchTSTImpl::PatchTSTImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  if (!config_.norm) throw ModelError("PatchTST needs the final norm variant (batch or layer)");
  const bool invariant = config_.batch_invariant;
  patch_embedding = register_module(
      "patch_embedding",
      PatchEmbedding(config_.d_model, config_.patch_len, config_.stride, invariant));

  const auto inner = make_inner_attention(config_);
  std::vector<EncoderLayer> layers;
  for (int64_t i = 0; i < config_.e_layers; ++i) {
    layers.emplace_back(AttentionLayer(inner, config_.d_model, config_.n_heads, invariant),
                        config_.d_model, config_.d_ff, config_.activation, invariant);
  }
  encoder = register_module("encoder",
                            Encoder(std::move(layers), std::vector<DistillingConv>{}, *config_.norm,
                                    config_.d_model));
  head = register_module("head",
                         FlattenHead(config_.d_model * config_.patch_count(), config_.pred_len));
  eval();
}

RowForecast PatchTSTImpl::forecast_rows(const at::Tensor& series, bool need_attention) {
  if (series.dim() != 2 || series.size(1) != config_.seq_len) {
    throw ModelError("forecast_rows expects [rows, " + std::to_string(config_.seq_len) +
                     "], got " + c10::str(series.sizes()));
  }
  const int64_t rows = series.size(0);
  const at::Tensor mean = series.mean(1, true);
  const at::Tensor centred = series - mean;
  const at::Tensor stdev =
      at::sqrt(at::var(centred, 1, /*unbiased=*/false, /*keepdim=*/true) + kInstanceNormEps);

  EncoderOutput encoded =
      encoder->forward(patch_embedding->forward(centred / stdev), {}, need_attention);
  // [R, P, D] -> [R, D, P] -> [R, D*P]: the head reads d-major (index d*P + p).
  const at::Tensor flat = encoded.output.transpose(1, 2).reshape({rows, 1, -1});
  const at::Tensor scaled = row_linear(flat, head->linear->weight, head->linear->bias,
                                       config_.batch_invariant)
                                .view({rows, config_.pred_len});
  return {scaled * stdev + mean, std::move(encoded.output), std::move(encoded.weights)};
}

at::Tensor PatchTSTImpl::forward(const at::Tensor& x) {
  const int64_t batch = x.size(0);
  const int64_t variables = x.size(2);
  const at::Tensor rows = x.permute({0, 2, 1}).reshape({batch * variables, x.size(1)});
  const at::Tensor forecast = forecast_rows(rows).forecast;
  return forecast.view({batch, variables, config_.pred_len}).permute({0, 2, 1});
}

EncoderOutput PatchTSTImpl::encode(const at::Tensor& tokens, const AttentionMask& mask,
                                   bool need_attention) {
  if (tokens.dim() != 3 || tokens.size(2) != config_.d_model) {
    throw ModelError("encode expects tokens [batch, length, " + std::to_string(config_.d_model) +
                     "], got " + c10::str(tokens.sizes()));
  }
  return encoder->forward(tokens, mask, need_attention);
}

}  // namespace tsserve::model
