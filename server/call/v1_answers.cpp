#include "server/call/v1_answers.h"

#include "server/call/call_status.h"
#include "server/call/model_route.h"
#include "server/codec/v1/report_actuals_codec.h"

namespace tsserve::server {

Status answer_model_info(const ServiceContext& service, const std::string& model,
                         const std::string& version, CallEnding& call, v1::ModelInfo* info) {
  ModelRoute route = route_call(service, Status(), model, version);
  TSSERVE_RETURN_IF_ERROR(route.status);
  call.set_model(route.lease->name());
  *info = route.lease->info();
  return {};
}

Status answer_report_actuals(const ServiceContext& service, const v1::ReportActualsRequest& request,
                             v1::ReportActualsResponse* response) {
  TSSERVE_RETURN_IF_ERROR(serving_status(*service.state));
  if (service.accuracy == nullptr) {
    return {StatusCode::kUnimplemented, "ReportActuals: this server keeps no forecasts"};
  }
  ActualsReport report;
  TSSERVE_RETURN_IF_ERROR(decode_report_actuals(request, &report));
  ActualsOutcome outcome;
  TSSERVE_RETURN_IF_ERROR(service.accuracy->report(report, &outcome));
  encode_report_actuals(outcome, response);
  return {};
}

}  // namespace tsserve::server
