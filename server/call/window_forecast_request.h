#pragma once
// The Forecast request an Observe call with `forecast` makes: the key's window as a
// Forecast caller with the full window would send it ([N, T] with its timestamps and
// names), so the answer is the one that call would get, bitwise. Held in plain buffers
// and decoded by the rules every door shares (codec/common/forecast_request_view.h), in
// tsserve.v1's field names.

#include "server/codec/common/forecast_request_view.h"
#include "server/live/series_window.h"
#include "server/request/model_shape.h"
#include "server/request/observation.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// REQUIRES: window.points() >= 1. Interval levels: the observation's, else every
// calibrated level of `shape`'s model.
PlainForecastRequest window_forecast_request(const SeriesWindow& window,
                                             const Observation& observation,
                                             const ModelShape& shape);

// The request for the model described by `model`: decode_plain_forecast_request in
// tsserve.v1's names (a refusal becomes the answer's forecast_message).
Status decode_window_forecast(const PlainForecastRequest& request, const ModelShape& model,
                              const RequestLimits& limits, ForecastInput* out);

}  // namespace tsserve::server
