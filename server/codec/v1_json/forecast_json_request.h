#pragma once
// The JSON API's forecast request (POST /v1/models/{m}/forecast, docs/api/openapi.json),
// read into its own buffers and then decoded by the rules every door shares
// (codec/common/forecast_request_view.h) under the JSON's field names, straight into the
// neutral ForecastInput the batcher takes:
//
//   {"series": {"HUFL": [...], "OT": [...]},          required: columns, oldest point first
//    "timestamps": [1467331200, ...] | ["2016-07-01 00:00:00", ...],     optional
//    "intervals": [0.8, 0.95],                        optional: prediction interval levels
//    "attention": {"layers": [0], "average_heads": true, "variables": ["OT"]},  optional
//    "target": "OT",                                  optional: features "MS" models
//    "scaler": "auto" | "required" | "none",          optional, "auto" by default
//    "series_key": "...", "request_id": "..."}        optional
//
// `series` becomes a [N, T] series in the columns' order with their names; every number is
// read straight to float32 (json_numbers.h). Refused by the parse (INVALID_ARGUMENT naming
// the field): malformed JSON, a field twice, an unknown field, a wrong type, a number that
// is not finite in float32, columns of different lengths, timestamps mixing numbers and
// text, attention on a name that is not a column. The decode then puts a target-forecasting
// model's columns in its training order (codec/common/target_columns.h), refusing a
// missing, extra or misnamed covariate or target by name.

#include <optional>
#include <string>

#include "server/codec/common/forecast_request_view.h"
#include "server/request/model_shape.h"
#include "server/request/request_types.h"
#include "server/status/status.h"

namespace tsserve::server {

// columns: series' names, in the body's order (one per column, unique); attention's
// variables: indices into them.
struct ForecastJsonRequest : PlainForecastRequest {
  // The timestamps came as ISO 8601 text: the answer's come back as text too.
  bool text_timestamps = false;
  // "target": the column to forecast, for a model that forecasts a target from covariates
  // (target_columns.h); absent: the model's own (its scaler's last column), or the last.
  std::optional<std::string> target;
};

// Reads `body` (its capacity grows by simdjson's padding) into `request`.
Status parse_forecast_json_request(std::string& body, ForecastJsonRequest* request);

// The parsed request for the model described by `model` under `limits`: the shared rules,
// refusals naming the JSON's fields (series and its columns, timestamps, intervals,
// scaler, attention.*, series_key, request_id). *out as decode_forecast_request's.
Status decode_forecast_json_request(const ForecastJsonRequest& request, const ModelShape& model,
                                    const RequestLimits& limits, ForecastInput* out);

}  // namespace tsserve::server
