#pragma once
// ForecastRequest -> ForecastInput: every rule the proto states for a Forecast request,
// checked before the request is admitted, and the series turned into the model's input
// rows (the last T points of each variable, scaled when the scaler applies) in one pass.
// The `model` field is the caller's (check_model_name in model_selection.h), as it picks
// the ModelShape passed here.

#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// Validates `request` for the model described by `model` under `limits` and fills *out.
// INVALID_ARGUMENT naming the field and the expectation for any broken rule (tensor rules,
// rank, N = 0, N > limits.max_series_rows, T_in < seq_len, non-finite values (the first in
// row-major order of the series as sent, the ignored earlier points included), names,
// timestamps, enums, attention options, request_id); FAILED_PRECONDITION for
// SCALER_MODE_REQUIRED on a model without a scaler. *out is meaningful only on OK; its
// buffers are reused, so a caller may keep one ForecastInput per thread.
// REQUIRES: model.seq_len >= 1.
Status decode_forecast_request(const v1::ForecastRequest& request, const ModelShape& model,
                               const RequestLimits& limits, ForecastInput* out);

}  // namespace tsserve::server
