#include "server/codec/common/finite_answer.h"

#include <cmath>
#include <cstdio>

#include "server/codec/common/tensor_codec.h"
#include "tsserve/model/standard_scaler.h"

namespace tsserve::server {
namespace {

const unsigned char* bytes_of(const std::vector<float>& values) {
  return reinterpret_cast<const unsigned char*>(values.data());
}

const char* describe(float value) {
  return std::isnan(value) ? "NaN" : value > 0 ? "infinity" : "-infinity";
}

Status out_of_range(const std::string& what, const char* input = "series") {
  return {StatusCode::kOutOfRange,
          what +
              ": the answer for this input lies outside float32's range, so it is not sent; "
              "send the " +
              input + " in smaller numbers (larger units)"};
}

// "sample 1, variable \"OT\"" (the sample only when there are several).
std::string row_label(const ForecastInput& input, int64_t row) {
  const int64_t per_sample = input.series_rows / input.samples;
  const int64_t n = row % per_sample;
  std::string label =
      input.samples > 1 ? "sample " + std::to_string(row / per_sample) + ", " : std::string();
  if (input.variable_names.empty()) return label + "variable " + std::to_string(n);
  return label + "variable \"" + input.variable_names[static_cast<std::size_t>(n)] + "\"";
}

// The first block holding a weight that is not finite, or null.
const AttentionBlock* first_non_finite_block(const std::vector<AttentionBlock>& blocks,
                                             float* weight) {
  for (const AttentionBlock& block : blocks) {
    const auto count = static_cast<int64_t>(block.weights.size());
    if (all_finite(bytes_of(block.weights), count)) continue;
    *weight =
        block.weights[static_cast<std::size_t>(find_non_finite(bytes_of(block.weights), count))];
    return &block;
  }
  return nullptr;
}

}  // namespace

Status check_forecast_finite(const ForecastInput& input, const ModelShape& model,
                             const ForecastOutput& result, const AnswerFields& fields) {
  const int64_t horizon = model.pred_len;
  for (int64_t forecast_row = 0; forecast_row < input.forecast_rows(); ++forecast_row) {
    const int64_t row = input.series_row_of(forecast_row);
    const float* values = result.forecast.data() + forecast_row * horizon;
    if (!input.scaler_applied &&
        all_finite(reinterpret_cast<const unsigned char*>(values), horizon)) {
      continue;
    }
    model::ScalerColumn scaler;
    if (input.scaler_applied) {
      const auto c = static_cast<std::size_t>(input.scaler_column[static_cast<std::size_t>(row)]);
      scaler = {model.scaler_mean[c], model.scaler_std[c]};
    }
    for (int64_t f = 0; f < horizon; ++f) {
      // store_forecast's value: unscaled in double, rounded once to float.
      const float sent =
          input.scaler_applied ? static_cast<float>(scaler.unscale(values[f])) : values[f];
      if (std::isfinite(sent)) continue;
      std::string what = fields.forecast + ": point " + std::to_string(f) + " of " +
                         row_label(input, row) + " is " + describe(sent);
      if (std::isfinite(values[f])) {
        char model_value[32];
        std::snprintf(model_value, sizeof model_value, "%g", static_cast<double>(values[f]));
        what += std::string(" once unscaled (the model's value is ") + model_value + ")";
      }
      return out_of_range(what);
    }
  }
  float weight = 0;
  if (const AttentionBlock* block = first_non_finite_block(result.attention, &weight)) {
    return out_of_range(fields.attention + ": the map of " + row_label(input, block->variable) +
                        ", layer " + std::to_string(block->layer) + " has a weight that is " +
                        describe(weight));
  }
  return Status();
}

Status check_encode_finite(const EncodeInput& input, const ModelShape& model,
                           const EncodeOutput& result) {
  const auto count = static_cast<int64_t>(result.output.size());
  if (!all_finite(bytes_of(result.output), count)) {
    const int64_t bad = find_non_finite(bytes_of(result.output), count);
    return out_of_range("output: token " + std::to_string(bad / model.d_model) + " of " +
                            std::to_string(input.tokens) + " holds a value that is " +
                            describe(result.output[static_cast<std::size_t>(bad)]),
                        "tokens");
  }
  float weight = 0;
  if (const AttentionBlock* block = first_non_finite_block(result.attention, &weight)) {
    return out_of_range("attention: the map of layer " + std::to_string(block->layer) +
                            " has a weight that is " + describe(weight),
                        "tokens");
  }
  return Status();
}

}  // namespace tsserve::server
