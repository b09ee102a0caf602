#pragma once
// A Forecast's result -> ForecastResponse: the forecast as store_forecast() writes it
// (codec/common/forecast_values.h), encoded as the request asked.

#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// Fills *out for the request decoded into `input`: forecast [N, F] (or [F, N] for the
// TIME_BY_VARIABLES layout) in the series' units, in raw_values or values per
// input.raw_output; model name and version, timing, attention maps ordered by variable
// then layer, request_id, input_points_used, scaler_applied. Consumes `result`'s buffers.
// INTERNAL, with *out untouched, when `result` does not fit `input`
// (check_forecast_output): a runtime bug, not the caller's.
Status encode_forecast_response(const ForecastInput& input, const ModelShape& model,
                                ForecastOutput&& result, v1::ForecastResponse* out);

}  // namespace tsserve::server
