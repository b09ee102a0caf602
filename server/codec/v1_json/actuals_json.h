#pragma once
// The JSON API's report of actuals (POST /v1/actuals) as the tsserve.v1
// ReportActualsRequest, and its answer:
//
//   {"series_key": "etth1-ot",                       required: the forecasts' key
//    "timestamps": [...],                            Unix seconds or ISO 8601 text
//    "actuals": {"OT": [1.5, null, ...]}}            by column; null is a gap (not scored)
//
//   {"matched": 96, "unmatched": {"unknown_key": 0, "not_finite": 1, "unknown_variable": 0,
//                                 "no_forecast": 0, "already_reported": 0}}

#include <string>

#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// INVALID_ARGUMENT naming the field: malformed JSON, a field twice or unknown, a wrong
// type, a column whose length is not the timestamps' count.
Status parse_actuals_json_request(std::string& body, v1::ReportActualsRequest* request);

std::string write_actuals_json_response(const v1::ReportActualsResponse& response);

}  // namespace tsserve::server
