#include "server/codec/common/attention_steps.h"

namespace tsserve::server {
namespace {

bool has_layer(int32_t layer, int64_t count) { return layer >= 0 && layer < count; }

// The steps of encoder layer `layer`'s tokens.
std::vector<int32_t> encoder_steps(const ModelShape& model, int32_t layer) {
  std::vector<int32_t> steps;
  for (int64_t t = 0; t < model.seq_len; ++t)
    steps.push_back(static_cast<int32_t>(t - model.seq_len));
  for (int32_t i = 1; i <= layer; ++i) {
    const auto length = static_cast<int64_t>(steps.size());
    std::vector<int32_t> next;
    for (int64_t j = 0; j < model.map_sides[static_cast<size_t>(i)]; ++j) {
      next.push_back(steps[static_cast<size_t>(((2 * j - 1) % length + length) % length)]);
    }
    steps = std::move(next);
  }
  return steps;
}

std::vector<int32_t> decoder_steps(const ModelShape& model) {
  std::vector<int32_t> steps;
  for (int64_t t = -model.label_len; t < model.pred_len; ++t)
    steps.push_back(static_cast<int32_t>(t));
  return steps;
}

}  // namespace

MapExtent map_extent(const ModelShape& model, AttentionStack stack, int32_t layer,
                     int64_t variables) {
  const MapExtent none{-1, -1};
  if (stack == AttentionStack::kEncoder) {
    const bool known =
        has_layer(layer, model.e_layers) &&
        (model.map_sides.empty() || layer < static_cast<int64_t>(model.map_sides.size()));
    if (!known) return none;
    const int64_t side = model.attention_tokens(variables, layer);
    return {side, side};
  }
  if (stack == AttentionStack::kCovariates) {
    if (!model.covariate_maps || !has_layer(layer, model.e_layers)) return none;
    return {1, model.covariate_tokens()};
  }
  if (!has_layer(layer, model.d_layers) || model.map_sides.empty()) return none;
  const int64_t length = model.decoder_length();
  return {length, stack == AttentionStack::kDecoder ? length : model.map_sides.back()};
}

MapSteps map_steps(const ModelShape& model, AttentionStack stack, int32_t layer) {
  MapSteps steps;
  const bool time_tokens = model.time_inputs == TimeInputs::kStepMarks && !model.map_sides.empty();
  if (!time_tokens || map_extent(model, stack, layer, model.enc_in).rows < 0) return steps;
  switch (stack) {
    case AttentionStack::kEncoder:
      steps.rows = encoder_steps(model, layer);
      steps.columns = steps.rows;
      break;
    case AttentionStack::kDecoder:
      steps.rows = decoder_steps(model);
      steps.columns = steps.rows;
      break;
    case AttentionStack::kCross:
      steps.rows = decoder_steps(model);
      steps.columns = encoder_steps(model, static_cast<int32_t>(model.map_sides.size() - 1));
      break;
    case AttentionStack::kCovariates:
      break;  // covariate tokens, named (ForecastInput::covariate_token_names)
  }
  return steps;
}

const char* attention_stack_name(AttentionStack stack) {
  switch (stack) {
    case AttentionStack::kEncoder:
      return "encoder";
    case AttentionStack::kDecoder:
      return "decoder";
    case AttentionStack::kCross:
      return "cross";
    case AttentionStack::kCovariates:
      return "covariates";
  }
  return "encoder";
}

AttentionStack attention_stack_named(const std::string& name) {
  if (name == "decoder") return AttentionStack::kDecoder;
  if (name == "cross") return AttentionStack::kCross;
  if (name == "covariates") return AttentionStack::kCovariates;
  return AttentionStack::kEncoder;
}

}  // namespace tsserve::server
