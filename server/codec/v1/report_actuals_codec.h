#pragma once
// tsserve.v1 ReportActuals messages <-> ActualsReport / ActualsOutcome (request/actuals_report.h).

#include "server/request/actuals_report.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// Checks the request's rules (forecast_service.proto, ReportActualsRequest) and fills *out;
// INVALID_ARGUMENT naming the field and what was expected otherwise. Non-finite values
// are kept: they are counted, not refused.
Status decode_report_actuals(const v1::ReportActualsRequest& request, ActualsReport* out);

void encode_report_actuals(const ActualsOutcome& outcome, v1::ReportActualsResponse* out);

}  // namespace tsserve::server
