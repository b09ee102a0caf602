#pragma once
// The response side of the request fuzzers: a stand-in for the model's output, made so
// that every value says where it came from, and the checks that the encoders put each
// value where the protos say, unscaled by the formula they state.

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz_target.h"
#include "server/codec/common/attention_maps.h"
#include "server/codec/common/attention_selection.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "server/codec/v1/forecast_response_encoder.h"
#include "server/request/model_shape.h"

namespace tsserve::fuzz {

// Attention maps cost heads x tokens^2 floats each; the encoders are exercised on small
// selections only, so that one input stays cheap.
constexpr std::size_t kMaxEncodedAttentionFloats = 1 << 16;

// Model space: forecast point f of row r is r * F + f, exact in float for every
// admissible request (rows <= 448, F = 96).
inline std::vector<float> numbered_forecast(int64_t rows, int64_t horizon) {
  std::vector<float> forecast(static_cast<std::size_t>(rows * horizon));
  for (std::size_t i = 0; i < forecast.size(); ++i) forecast[i] = static_cast<float>(i);
  return forecast;
}

// The value the response must hold for row `row`, point `f` of numbered_forecast: as is,
// or float(x * std[c] + mean[c]) in double when the scaler was applied.
inline float expected_forecast_value(const server::ForecastInput& input,
                                     const server::ModelShape& model, int64_t row, int64_t f) {
  const auto x = static_cast<float>(row * model.pred_len + f);
  if (!input.scaler_applied) return x;
  const auto c = static_cast<std::size_t>(input.scaler_column[static_cast<std::size_t>(row)]);
  return static_cast<float>(static_cast<double>(x) * model.scaler_std[c] + model.scaler_mean[c]);
}

// `got`: the response's forecast, `input.samples` blocks of [N, F] (variables_by_time)
// or [F, N].
inline void check_forecast_values(const std::vector<float>& got, const server::ForecastInput& input,
                                  const server::ModelShape& model) {
  const int64_t horizon = model.pred_len;
  const int64_t per_sample = input.series_rows / input.samples;
  FUZZ_CHECK(got.size() == static_cast<std::size_t>(input.series_rows * horizon),
             std::to_string(got.size()) + " forecast values for " +
                 std::to_string(input.series_rows) + " rows");
  for (int64_t row = 0; row < input.series_rows; ++row) {
    const int64_t b = row / per_sample;
    const int64_t n = row % per_sample;
    for (int64_t f = 0; f < horizon; ++f) {
      const int64_t at = b * per_sample * horizon +
                         (input.variables_by_time ? n * horizon + f : f * per_sample + n);
      const float expected = expected_forecast_value(input, model, row, f);
      FUZZ_CHECK(got[static_cast<std::size_t>(at)] == expected,
                 "forecast of row " + std::to_string(row) + " point " + std::to_string(f) + " is " +
                     std::to_string(got[static_cast<std::size_t>(at)]) + ", expected " +
                     std::to_string(expected));
    }
  }
}

// Every weight of the map for (variable, layer).
inline float attention_marker(int32_t variable, int32_t layer) {
  return static_cast<float>(variable * 16 + layer);
}

// One block per selected (variable, layer), [H, P, P] or [P, P], filled with its marker,
// handed over in reverse order (the runner promises no order). Empty when the selection
// is disabled or larger than kMaxEncodedAttentionFloats; *fits says which.
inline std::vector<server::AttentionBlock> marked_attention(
    const server::AttentionSelection& selection, int64_t heads, int64_t tokens, bool* fits) {
  std::vector<server::AttentionBlock> blocks;
  const int64_t per_map = (selection.average_heads ? 1 : heads) * tokens * tokens;
  const auto total =
      static_cast<std::size_t>(per_map) * selection.variables.size() * selection.layers.size();
  *fits = selection.enabled && total <= kMaxEncodedAttentionFloats;
  if (!*fits) return blocks;
  for (auto v = selection.variables.rbegin(); v != selection.variables.rend(); ++v) {
    for (auto l = selection.layers.rbegin(); l != selection.layers.rend(); ++l) {
      server::AttentionBlock block;
      block.variable = *v;
      block.layer = *l;
      block.heads_averaged = selection.average_heads;
      block.shape = selection.average_heads ? std::vector<int64_t>{tokens, tokens}
                                            : std::vector<int64_t>{heads, tokens, tokens};
      block.weights.assign(static_cast<std::size_t>(per_map), attention_marker(*v, *l));
      blocks.push_back(std::move(block));
    }
  }
  return blocks;
}

}  // namespace tsserve::fuzz
