#pragma once
// The JSON API's forecast answer, from the tsserve.v1 ForecastResponse, by column:
//
//   {"model": "etth1", "version": "1", "request_id": "...",
//    "forecast": {"HUFL": [...], "OT": [...]},              F points per column
//    "timestamps": [...],              the forecast's, when the request's were evenly spaced
//    "timestamps_note": "...",         why there are none, when the request had some
//    "intervals": {"0.8": {"lower": {"OT": [...]}, "upper": {...}}},   by level
//    "attention": [{"layer", "variable", "heads_averaged", "weights", "token_names"}],
//    "scaler_applied", "input_points_used", "forecast_stored",
//    "timing": {"queue_seconds", "compute_seconds", "batch_rows"}}
//
// Floats are written in the fewest digits that parse back to the same float32, so the
// forecast is bitwise the one the gRPC door returns. A level's key is its shortest
// decimal ("0.8"); attention weights nest as their shape ([H][Q][K] or [Q][K]).

#include <string>

#include "server/codec/v1_json/forecast_json_request.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// `response` must hold the VALUES encoding (the request's default) with [N, F] tensors.
std::string write_forecast_json_response(const ForecastJsonRequest& request,
                                         const v1::ForecastResponse& response);

}  // namespace tsserve::server
