#pragma once
// A thin, synchronous client for one tsserve: the tsserve.v1 calls and the gRPC health
// check, each with the deadline and bearer token of CallSettings. Errors come back as
// grpc::Status (code + the server's message); `unreachable` tells a connection failure
// from a server that answered UNAVAILABLE (for instance while draining).

#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>

#include <chrono>
#include <memory>
#include <string>

#include "grpc/health/v1/health.grpc.pb.h"
#include "tsserve/v1/forecast_service.grpc.pb.h"

namespace tsserve::client {

struct CallSettings {
  std::chrono::milliseconds timeout{30000};
  std::string bearer_token;  // sent as "authorization: Bearer <token>" when not empty
};

// Sets the deadline and credentials of one call.
void prepare_context(grpc::ClientContext& context, const CallSettings& settings);

class TsserveClient {
 public:
  TsserveClient(std::shared_ptr<grpc::Channel> channel, CallSettings settings);

  grpc::Status forecast(const v1::ForecastRequest& request, v1::ForecastResponse* response);
  grpc::Status encode(const v1::EncodeRequest& request, v1::EncodeResponse* response);
  // `version` "" = the newest ready one.
  grpc::Status model_info(const std::string& model, v1::ModelInfo* info,
                          const std::string& version = "");
  grpc::Status list_models(v1::ListModelsResponse* response);
  grpc::Status report_actuals(const v1::ReportActualsRequest& request,
                              v1::ReportActualsResponse* response);
  grpc::Status observe(const v1::ObserveRequest& request, v1::ObserveResponse* response);
  // grpc.health.v1 Check of `service` ("" = the whole server).
  grpc::Status health(const std::string& service,
                      grpc::health::v1::HealthCheckResponse::ServingStatus* status);

  // True when `status` means no connection was made (as opposed to an answer).
  bool unreachable(const grpc::Status& status) const;

  grpc::Channel& channel() { return *channel_; }
  v1::ForecastService::Stub& stub() { return *stub_; }
  const CallSettings& settings() const { return settings_; }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  CallSettings settings_;
  std::unique_ptr<v1::ForecastService::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

}  // namespace tsserve::client
