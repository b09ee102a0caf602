#pragma once
// The Forecast request an Observe call with `forecast` makes: the key's window as a
// Forecast caller with the full window would send it ([N, T] with its timestamps and
// names), so the answer is the one that call would get, bitwise.

#include "server/live/series_window.h"
#include "server/request/model_shape.h"
#include "server/request/observation.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// REQUIRES: window.points() >= 1. Runs on `shape`'s version (its name and version are
// named in the request). Interval levels: the observation's, else every calibrated
// level of the model.
v1::ForecastRequest window_forecast_request(const SeriesWindow& window,
                                            const Observation& observation,
                                            const ModelShape& shape);

}  // namespace tsserve::server
