#include "tsserve/client/tsserve_client.h"

namespace tsserve::client {

void prepare_context(grpc::ClientContext& context, const CallSettings& settings) {
  context.set_deadline(std::chrono::system_clock::now() + settings.timeout);
  if (!settings.bearer_token.empty()) {
    context.AddMetadata("authorization", "Bearer " + settings.bearer_token);
  }
}

TsserveClient::TsserveClient(std::shared_ptr<grpc::Channel> channel, CallSettings settings)
    : channel_(std::move(channel)),
      settings_(std::move(settings)),
      stub_(v1::ForecastService::NewStub(channel_)),
      health_(grpc::health::v1::Health::NewStub(channel_)) {}

grpc::Status TsserveClient::forecast(const v1::ForecastRequest& request,
                                     v1::ForecastResponse* response) {
  grpc::ClientContext context;
  prepare_context(context, settings_);
  return stub_->Forecast(&context, request, response);
}

grpc::Status TsserveClient::encode(const v1::EncodeRequest& request,
                                   v1::EncodeResponse* response) {
  grpc::ClientContext context;
  prepare_context(context, settings_);
  return stub_->Encode(&context, request, response);
}

grpc::Status TsserveClient::report_actuals(const v1::ReportActualsRequest& request,
                                           v1::ReportActualsResponse* response) {
  grpc::ClientContext context;
  prepare_context(context, settings_);
  return stub_->ReportActuals(&context, request, response);
}

grpc::Status TsserveClient::observe(const v1::ObserveRequest& request,
                                    v1::ObserveResponse* response) {
  grpc::ClientContext context;
  prepare_context(context, settings_);
  return stub_->Observe(&context, request, response);
}

grpc::Status TsserveClient::model_info(const std::string& model, v1::ModelInfo* info,
                                       const std::string& version) {
  grpc::ClientContext context;
  prepare_context(context, settings_);
  v1::GetModelInfoRequest request;
  request.set_model(model);
  request.set_model_version(version);
  v1::GetModelInfoResponse response;
  grpc::Status status = stub_->GetModelInfo(&context, request, &response);
  if (status.ok()) *info = response.info();
  return status;
}

grpc::Status TsserveClient::list_models(v1::ListModelsResponse* response) {
  grpc::ClientContext context;
  prepare_context(context, settings_);
  return stub_->ListModels(&context, v1::ListModelsRequest{}, response);
}

grpc::Status TsserveClient::health(const std::string& service,
                                   grpc::health::v1::HealthCheckResponse::ServingStatus* status) {
  grpc::ClientContext context;
  prepare_context(context, settings_);
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  grpc::Status call = health_->Check(&context, request, &response);
  if (call.ok()) *status = response.status();
  return call;
}

bool TsserveClient::unreachable(const grpc::Status& status) const {
  // A fail-fast call on a channel that never connected ends UNAVAILABLE (or at its deadline
  // while connecting); a draining server also says UNAVAILABLE, but over a live connection.
  if (status.error_code() != grpc::StatusCode::UNAVAILABLE &&
      status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
    return false;
  }
  return channel_->GetState(false) != GRPC_CHANNEL_READY &&
         channel_->GetState(false) != GRPC_CHANNEL_IDLE;
}

}  // namespace tsserve::client
