#pragma once
// tsserve.v1.ForecastService on gRPC's callback API. Handlers never block: they validate,
// hand a task to the batcher and return; the batcher's worker finishes the call, unless
// the caller cancels or the deadline passes first (unary_call.h). Every call ends through
// one path that records its status code and latency.
//
// Both protocols' services (this one and oip_service.h) share one ServiceContext
// (service_context.h): the same models, metrics and serving state.
//
// Thread safety: called by gRPC threads concurrently; the members are constant after
// construction (the serving state they point to is atomic).

#include "server/batching/dynamic_batcher.h"
#include "server/call/batched_call.h"
#include "server/call/service_context.h"
#include "tsserve/v1/forecast_service.grpc.pb.h"

namespace tsserve::server {

class ForecastServiceImpl final : public v1::ForecastService::CallbackService {
 public:
  // REQUIRES: context.repository, context.registry, context.state not null.
  explicit ForecastServiceImpl(ServiceContext context);

  grpc::ServerUnaryReactor* Forecast(grpc::CallbackServerContext* context,
                                     const v1::ForecastRequest* request,
                                     v1::ForecastResponse* response) override;
  grpc::ServerUnaryReactor* Encode(grpc::CallbackServerContext* context,
                                   const v1::EncodeRequest* request,
                                   v1::EncodeResponse* response) override;
  grpc::ServerUnaryReactor* GetModelInfo(grpc::CallbackServerContext* context,
                                         const v1::GetModelInfoRequest* request,
                                         v1::GetModelInfoResponse* response) override;
  grpc::ServerUnaryReactor* ListModels(grpc::CallbackServerContext* context,
                                       const v1::ListModelsRequest* request,
                                       v1::ListModelsResponse* response) override;
  // Scores reported actuals against the forecasts kept by series_key; UNIMPLEMENTED when
  // the context has no accuracy tracker.
  grpc::ServerUnaryReactor* ReportActuals(grpc::CallbackServerContext* context,
                                          const v1::ReportActualsRequest* request,
                                          v1::ReportActualsResponse* response) override;
  // Live series (observe_call.h); UNIMPLEMENTED when the context has no series store.
  grpc::ServerUnaryReactor* Observe(grpc::CallbackServerContext* context,
                                    const v1::ObserveRequest* request,
                                    v1::ObserveResponse* response) override;
  // Observe for many keys on one stream (observe_stream.h).
  grpc::ServerBidiReactor<v1::ObserveRequest, v1::ObserveResponse>* ObserveStream(
      grpc::CallbackServerContext* context) override;

 private:
  const ServiceContext context_;
  const BatchedMethod forecast_;
  const BatchedMethod encode_;
};

}  // namespace tsserve::server
