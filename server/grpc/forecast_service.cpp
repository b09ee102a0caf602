#include "server/grpc/forecast_service.h"

#include "server/call/call_status.h"
#include "server/call/encode_codec.h"
#include "server/call/keeping_forecast_codec.h"
#include "server/call/model_listing.h"
#include "server/call/observe_call.h"
#include "server/call/v1_answers.h"
#include "server/codec/common/model_selection.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "server/codec/v1/observe_request_decoder.h"
#include "server/grpc/grpc_batched_call.h"
#include "server/grpc/observe_stream.h"
#include "server/grpc/unary_call.h"

namespace tsserve::server {
namespace {

using V1ForecastCodec = KeepingForecastCodec<v1::ForecastRequest, decode_forecast_request>;

}  // namespace

ForecastServiceImpl::ForecastServiceImpl(ServiceContext context)
    : context_(std::move(context)),
      forecast_{Method::kForecast, &ModelVersion::forecast_batcher, context_.metrics},
      encode_{Method::kEncode, &ModelVersion::encode_batcher, context_.metrics} {}

grpc::ServerUnaryReactor* ForecastServiceImpl::Forecast(grpc::CallbackServerContext* context,
                                                        const v1::ForecastRequest* request,
                                                        v1::ForecastResponse* response) {
  return serve_batched_grpc_call(forecast_, context, *request, response,
                                 route_call(context_, authenticate(context_, *context),
                                            request->model(), request->model_version()),
                                 V1ForecastCodec{context_.accuracy});
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Encode(grpc::CallbackServerContext* context,
                                                      const v1::EncodeRequest* request,
                                                      v1::EncodeResponse* response) {
  return serve_batched_grpc_call<EncodeCodec>(
      encode_, context, *request, response,
      route_call(context_, authenticate(context_, *context), request->model(),
                 request->model_version()));
}

grpc::ServerUnaryReactor* ForecastServiceImpl::GetModelInfo(grpc::CallbackServerContext* context,
                                                            const v1::GetModelInfoRequest* request,
                                                            v1::GetModelInfoResponse* response) {
  const auto call = UnaryCall::start(context_.metrics, Method::kGetModelInfo, *context);
  call->end([&]() -> Status {
    TSSERVE_RETURN_IF_ERROR(authenticate(context_, *context));
    return answer_model_info(context_, request->model(), request->model_version(), *call,
                             response->mutable_info());
  });
  return call.get();
}

grpc::ServerUnaryReactor* ForecastServiceImpl::ListModels(grpc::CallbackServerContext* context,
                                                          const v1::ListModelsRequest*,
                                                          v1::ListModelsResponse* response) {
  const auto call = UnaryCall::start(context_.metrics, Method::kListModels, *context);
  const Status status = authenticate(context_, *context);
  if (status.ok()) *response = list_models(*context_.repository);
  call->end(status);
  return call.get();
}

grpc::ServerUnaryReactor* ForecastServiceImpl::ReportActuals(
    grpc::CallbackServerContext* context, const v1::ReportActualsRequest* request,
    v1::ReportActualsResponse* response) {
  const auto call = UnaryCall::start(context_.metrics, Method::kReportActuals, *context);
  call->end([&]() -> Status {
    TSSERVE_RETURN_IF_ERROR(authenticate(context_, *context));
    return answer_report_actuals(context_, *request, response);
  });
  return call.get();
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Observe(grpc::CallbackServerContext* context,
                                                       const v1::ObserveRequest* request,
                                                       v1::ObserveResponse* response) {
  const auto call = UnaryCall::start(context_.metrics, Method::kObserve, *context);
  Observation observation;
  Status admitted = authenticate(context_, *context);
  if (admitted.ok()) admitted = decode_observe_request(*request, &observation);
  if (admitted.ok()) {
    serve_observe(context_, forecast_, call, observation, response);
  } else {
    call->end(admitted);
  }
  return call.get();
}

grpc::ServerBidiReactor<v1::ObserveRequest, v1::ObserveResponse>*
ForecastServiceImpl::ObserveStream(grpc::CallbackServerContext* context) {
  return ObserveStreamCall::start(context_, forecast_, context);
}

}  // namespace tsserve::server
