#pragma once
// The JSON API's forecast request (POST /v1/models/{m}/forecast, docs/api/openapi.json) as
// the tsserve.v1 ForecastRequest the gRPC door decodes, so both doors share one decoder
// and one batcher:
//
//   {"series": {"HUFL": [...], "OT": [...]},          required: columns, oldest point first
//    "timestamps": [1467331200, ...] | ["2016-07-01 00:00:00", ...],     optional
//    "intervals": [0.8, 0.95],                        optional: prediction interval levels
//    "attention": {"layers": [0], "average_heads": true, "variables": ["OT"]},  optional
//    "scaler": "auto" | "required" | "none",          optional, "auto" by default
//    "series_key": "...", "request_id": "..."}        optional
//
// `series` becomes a [N, T] tensor in the columns' order with their names; every number is
// read straight to float32 (json_numbers.h). Refused (INVALID_ARGUMENT naming the field):
// malformed JSON, a field twice, an unknown field, a wrong type, a number that is not
// finite in float32, columns of different lengths, timestamps mixing numbers and text.

#include <string>

#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

struct ForecastJsonRequest {
  v1::ForecastRequest message;
  // The timestamps came as ISO 8601 text: the answer's come back as text too.
  bool text_timestamps = false;
};

// Reads `body` (its capacity grows by simdjson's padding) into `request`.
Status parse_forecast_json_request(std::string& body, ForecastJsonRequest* request);

// A refusal of the shared decoder in the JSON API's terms: its field names are the
// message's (interval_levels, scaler_mode, variable_names); the JSON's are intervals,
// scaler and the columns of series.
Status in_forecast_json_terms(const Status& status);

}  // namespace tsserve::server
