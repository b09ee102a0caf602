#include "server/codec/common/forecast_values.h"

#include <cstring>
#include <string>

#include "server/codec/common/attention_maps.h"
#include "server/codec/common/tensor_codec.h"
#include "tsserve/model/standard_scaler.h"

namespace tsserve::server {

void store_forecast(const ForecastInput& input, const ModelShape& model,
                    const std::vector<float>& forecast, unsigned char* dst) {
  const int64_t horizon = model.pred_len;
  const int64_t per_sample = input.forecast_per_sample();  // N, or K of a subset
  if (!input.scaler_applied && input.variables_by_time) {
    // [B, N, F] is the model's own [rows, F].
    std::memcpy(dst, forecast.data(), forecast.size() * sizeof(float));
    return;
  }
  for (int64_t row = 0; row < input.forecast_rows(); ++row) {
    model::ScalerColumn scaler;
    if (input.scaler_applied) {
      const auto c = static_cast<std::size_t>(
          input.scaler_column[static_cast<std::size_t>(input.series_row_of(row))]);
      scaler = {model.scaler_mean[c], model.scaler_std[c]};
    }
    const float* values = forecast.data() + row * horizon;
    // Within sample b: [N, F] puts variable n's points consecutively; [F, N] makes it
    // column n.
    const int64_t b = row / per_sample;
    const int64_t n = row % per_sample;
    const int64_t first = b * per_sample * horizon + (input.variables_by_time ? n * horizon : n);
    const int64_t step = input.variables_by_time ? 1 : per_sample;
    for (int64_t f = 0; f < horizon; ++f) {
      const float value =
          input.scaler_applied ? static_cast<float>(scaler.unscale(values[f])) : values[f];
      store_float(dst, first + f * step, value);
    }
  }
}

std::vector<int64_t> forecast_shape(const ForecastInput& input, const ModelShape& model) {
  const int64_t per_sample = input.forecast_per_sample();
  return input.variables_by_time ? std::vector<int64_t>{per_sample, model.pred_len}
                                 : std::vector<int64_t>{model.pred_len, per_sample};
}

std::vector<int32_t> forecast_variable_indices(const ForecastInput& input) {
  std::vector<int32_t> indices;
  if (input.forecast_per_sample() == input.variables_per_sample()) return indices;
  for (int64_t row = 0; row < input.forecast_per_sample(); ++row) {
    const int64_t series_row = input.series_row_of(row);
    indices.push_back(static_cast<size_t>(series_row) < input.request_variables.size()
                          ? input.request_variables[static_cast<size_t>(series_row)]
                          : static_cast<int32_t>(series_row));
  }
  return indices;
}

Status check_forecast_output(const ForecastInput& input, const ModelShape& model,
                             const ForecastOutput& result) {
  const int64_t expected = input.forecast_rows() * model.pred_len;
  if (static_cast<int64_t>(result.forecast.size()) != expected) {
    return {StatusCode::kInternal, "forecast: the model returned " +
                                       std::to_string(result.forecast.size()) + " values for " +
                                       std::to_string(input.forecast_rows()) + " variables x " +
                                       std::to_string(model.pred_len) + " points"};
  }
  const int64_t variables = input.samples > 0 ? input.series_rows / input.samples : 0;
  return check_attention_blocks(result.attention, model, variables);
}

}  // namespace tsserve::server
