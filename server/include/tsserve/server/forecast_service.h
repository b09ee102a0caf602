#pragma once
// tsserve.v1.ForecastService on gRPC's callback API. Handlers never block: they validate,
// hand a task to the batcher and return; the batcher's worker finishes the call, unless
// the caller cancels or the deadline passes first (unary_call.h). Every call ends through
// one path that records its status code and latency.
//
// Thread safety: called by gRPC threads concurrently; the members are constant after
// construction, except `draining`, an atomic.

#include <atomic>
#include <chrono>
#include <functional>

#include "tsserve/server/dynamic_batcher.h"
#include "tsserve/server/model_shape.h"
#include "tsserve/server/server_metrics.h"
#include "tsserve/v1/forecast_service.grpc.pb.h"

namespace tsserve::server {

struct ServiceContext {
  ModelShape shape;
  RequestLimits limits;
  v1::ModelInfo info;
  DynamicBatcher* forecast_batcher = nullptr;  // not owned
  DynamicBatcher* encode_batcher = nullptr;    // not owned
  ServerMetrics* metrics = nullptr;            // not owned; may be null
};

class ForecastServiceImpl final : public v1::ForecastService::CallbackService {
 public:
  explicit ForecastServiceImpl(ServiceContext context) : context_(std::move(context)) {}

  grpc::ServerUnaryReactor* Forecast(grpc::CallbackServerContext* context,
                                     const v1::ForecastRequest* request,
                                     v1::ForecastResponse* response) override;
  grpc::ServerUnaryReactor* Encode(grpc::CallbackServerContext* context,
                                   const v1::EncodeRequest* request,
                                   v1::EncodeResponse* response) override;
  grpc::ServerUnaryReactor* GetModelInfo(grpc::CallbackServerContext* context,
                                         const v1::GetModelInfoRequest* request,
                                         v1::GetModelInfoResponse* response) override;

  // From now on new calls get UNAVAILABLE; admitted ones still finish.
  void start_draining() { draining_.store(true); }

 private:
  // The common admission checks; OK when the call may proceed.
  grpc::Status admit(const std::string& model) const;

  const ServiceContext context_;
  std::atomic<bool> draining_{false};
};

// gRPC deadline (system clock) -> the batcher's steady clock.
Clock::time_point steady_deadline(const grpc::CallbackServerContext& context);

}  // namespace tsserve::server
