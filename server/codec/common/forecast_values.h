#pragma once
// A Forecast's result (model space, [forecast_rows(), F]) -> the numbers every protocol sends
// back: unscaled when the scaler was applied, laid out as the request's series were.
// tsserve.v1 (codec/v1/forecast_response_encoder) and the Open Inference Protocol
// (codec/oip/oip_response_encoder) both write the forecast with store_forecast(), so both
// answer with the same numbers.

#include <cstdint>
#include <vector>

#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// The forecast in the request's units and layout, written to `dst` (input.forecast_rows() *
// pred_len little-endian floats, any alignment): each of the input.samples samples in
// turn, [N, F] or [F, N] as input.variables_by_time says, unscaled by the model's
// StandardScaler (tsserve/model/standard_scaler.h) when input.scaler_applied.
// REQUIRES: check_forecast_output(input, model, result).ok() for the result holding
// `forecast`.
void store_forecast(const ForecastInput& input, const ModelShape& model,
                    const std::vector<float>& forecast, unsigned char* dst);

// The shape of one sample's forecast: [N, F], or [F, N] when !input.variables_by_time (K
// for N when the model forecasts only a sample's last K variables).
std::vector<int64_t> forecast_shape(const ForecastInput& input, const ModelShape& model);

// The indices, into a sample's N variables, of the variables its forecast holds: empty
// when it holds all N (ForecastResponse.forecast_variables).
std::vector<int32_t> forecast_variable_indices(const ForecastInput& input);

// OK when `result` fits `input` (forecast_rows() * F forecast values, attention maps [H, P, P]
// or [P, P] with P = model.attention_tokens(N)); INTERNAL otherwise: a runtime bug, not
// the caller's.
Status check_forecast_output(const ForecastInput& input, const ModelShape& model,
                             const ForecastOutput& result);

}  // namespace tsserve::server
