#pragma once
// tsserve.v1's answers that need no batcher, shared by the gRPC door (forecast_service.h)
// and the JSON API (http/forecast_json_routes.h), so both answer alike. Each runs once
// the caller is authenticated.

#include "server/call/call_ending.h"
#include "server/call/service_context.h"
#include "server/status/status.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

// GetModelInfo of `model` at `version` ("" = newest ready); the call learns the model.
Status answer_model_info(const ServiceContext& service, const std::string& model,
                         const std::string& version, CallEnding& call, v1::ModelInfo* info);

// ReportActuals: UNAVAILABLE while not serving, UNIMPLEMENTED when no forecasts are kept,
// INVALID_ARGUMENT naming the field of a bad report.
Status answer_report_actuals(const ServiceContext& service, const v1::ReportActualsRequest& request,
                             v1::ReportActualsResponse* response);

}  // namespace tsserve::server
