#pragma once
// The JSON API's live series (POST /v1/series/{key}/observe, docs/api/openapi.json), read
// straight into the neutral Observation by the rules every door shares
// (codec/common/observation_rules.h), and its answer by column:
//
//   {"timestamps": [1467331200, ...] | ["2016-07-01 00:00:00", ...],   required: the new points'
//    "values": {"HUFL": [...], "OT": [...]},        required: the new points by column
//    "forecast": true,                              optional: also the next forecast
//    "intervals": [0.8, 0.99],                      optional: its levels (default: every calibrated
//    one) "model": "...", "model_version": "1",          optional: a new key's model (and pin)
//    "scaler": "auto" | "required" | "none", "request_id": "..."}        optional
//
//   {"series_key", "model", "version", "request_id", "window_points", "anomalies",
//    "timestamps": [...],                            the new points' times, as sent
//    "points": {"OT": [{"value", "scored", "forecast", "step", "score", "anomaly",
//                       "intervals": [{"level", "lower", "upper", "outside"}]}, ...]},
//    "forecast": {...},                              as POST .../forecast answers it
//    "forecast_error": {"code": "FAILED_PRECONDITION", "message": "..."}}   why not, if asked
//
// The columns are the variables, in the order given: every call names them (the JSON API
// knows variables by name). Values are read as doubles, as the gRPC door's.

#include <string>

#include "server/request/observation.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

struct ObserveJsonRequest {
  Observation observation;       // its variables are the columns of values
  bool text_timestamps = false;  // the answer's timestamps come back as text too
};

// Reads `body` (its capacity grows by simdjson's padding) for the key `series_key` (the
// path's). INVALID_ARGUMENT naming the field: malformed JSON, a field twice or unknown, a
// wrong type, columns of different lengths or not one point per timestamp.
Status parse_observe_json_request(std::string& body, const std::string& series_key,
                                  ObserveJsonRequest* request);

// The parsed observation by the rules every door shares (check_observation), refusals
// naming the JSON's fields (values for the variables and their names).
Status check_observe_json_request(ObserveJsonRequest* request);

std::string write_observe_json_response(const ObserveJsonRequest& request,
                                        const v1::ObserveResponse& response);

}  // namespace tsserve::server
