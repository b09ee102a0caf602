#include "tsserve/model/patchtst.h"

#include <ATen/ATen.h>

#include "tsserve/model/encoder_from_config.h"
#include "tsserve/model/instance_norm.h"
#include "tsserve/model/model_error.h"
#include "tsserve/model/patchtst_family.h"
#include "tsserve/model/row_linear.h"
#include "tsserve/model/unit_passes.h"

namespace tsserve::model {
PatchTSTImpl::PatchTSTImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  if (config_.family != kPatchTSTFamily) {
    throw ModelError("PatchTST built from a config whose \"model\" is \"" + config_.family + "\"");
  }
  if (!config_.norm) throw ModelError("PatchTST needs the final norm variant (batch or layer)");
  const bool invariant = config_.batch_invariant;
  patch_embedding = register_module(
      "patch_embedding",
      PatchEmbedding(config_.d_model, config_.patch_len, config_.stride, invariant));

  encoder = register_module("encoder", encoder_from_config(config_, *config_.norm));
  head = register_module("head",
                         FlattenHead(config_.d_model * config_.patch_count(), config_.pred_len));
  eval();
}

RowForecast PatchTSTImpl::forecast_rows(const at::Tensor& series, bool need_attention) {
  if (series.dim() != 2 || series.size(1) != config_.seq_len) {
    throw ModelError("forecast_rows expects [rows, " + std::to_string(config_.seq_len) + "], got " +
                     c10::str(series.sizes()));
  }
  if (!runs_unit_by_unit(config_.batch_invariant, series)) {
    return forecast_batch(series, need_attention);
  }
  return forecast_unit_by_unit<RowForecast>(series.size(0), [&](int64_t row) {
    return forecast_batch(unit_input(series, row), need_attention);
  });
}

RowForecast PatchTSTImpl::forecast_batch(const at::Tensor& series, bool need_attention) {
  const int64_t rows = series.size(0);
  const NormalisedSeries normalised = normalise_over_time(series);
  EncoderOutput encoded =
      encoder->forward(patch_embedding->forward(normalised.values), {}, need_attention);
  // [R, P, D] -> [R, D, P] -> [R, D*P]: the head reads d-major (index d*P + p).
  const at::Tensor flat = encoded.output.transpose(1, 2).reshape({rows, 1, -1});
  const at::Tensor scaled =
      row_linear(flat, head->linear->weight, head->linear->bias, config_.batch_invariant)
          .view({rows, config_.pred_len});
  return {normalised.denormalise(scaled), std::move(encoded.output), std::move(encoded.weights)};
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
  if (!runs_unit_by_unit(config_.batch_invariant, tokens)) {
    return encode_batch(tokens, mask, need_attention);
  }
  std::vector<at::Tensor> joined = run_unit_by_unit(tokens.size(0), [&](int64_t sequence) {
    AttentionMask own{mask.causal, unit_input(mask.key_padding, sequence)};
    EncoderOutput one = encode_batch(unit_input(tokens, sequence), own, need_attention);
    std::vector<at::Tensor> parts{std::move(one.output)};
    for (at::Tensor& layer : one.weights) parts.push_back(std::move(layer));
    return parts;
  });
  EncoderOutput out{std::move(joined[0]), {}};
  out.weights.assign(std::make_move_iterator(joined.begin() + 1),
                     std::make_move_iterator(joined.end()));
  return out;
}

EncoderOutput PatchTSTImpl::encode_batch(const at::Tensor& tokens, const AttentionMask& mask,
                                         bool need_attention) {
  return encoder->forward(tokens, mask, need_attention);
}

}  // namespace tsserve::model
