#include "server/service/forecast_service.h"

#include "server/codec/common/model_selection.h"
#include "server/codec/v1/encode_request_decoder.h"
#include "server/codec/v1/encode_response_encoder.h"
#include "server/codec/v1/forecast_request_decoder.h"
#include "server/codec/v1/forecast_response_encoder.h"
#include "server/codec/v1/report_actuals_codec.h"
#include "server/service/keeping_forecast_codec.h"
#include "server/service/status_mapping.h"
#include "server/service/unary_call.h"

namespace tsserve::server {
namespace {

// tsserve.v1's messages for BatchedCall (batched_call.h).
using EncodeCodec = StatelessCodec<decode_encode_request, encode_encode_response>;

}  // namespace

ForecastServiceImpl::ForecastServiceImpl(ServiceContext context)
    : context_(std::move(context)),
      forecast_{Method::kForecast, context_.forecast_batcher, &context_.shape, context_.limits,
                context_.metrics},
      encode_{Method::kEncode, context_.encode_batcher, &context_.shape, context_.limits,
              context_.metrics} {}

grpc::Status authenticate(const ServiceContext& service, const grpc::ServerContextBase& context) {
  return service.auth ? service.auth->check(context) : grpc::Status::OK;
}

grpc::Status ForecastServiceImpl::admit(const grpc::ServerContextBase& context,
                                        const std::string& model) const {
  // Who asks comes first: an unauthenticated caller learns nothing, not even whether the
  // server is draining or which models it has.
  const grpc::Status authenticated = authenticate(context_, context);
  if (!authenticated.ok()) return authenticated;
  const grpc::Status serving = to_grpc_status(*context_.state);
  if (!serving.ok()) return serving;
  return check_model_name(model, {context_.shape.name});
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Forecast(grpc::CallbackServerContext* context,
                                                        const v1::ForecastRequest* request,
                                                        v1::ForecastResponse* response) {
  return BatchedCall<KeepingForecastCodec>::start(forecast_, context, *request, response,
                                                  admit(*context, request->model()),
                                                  KeepingForecastCodec{context_.accuracy});
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Encode(grpc::CallbackServerContext* context,
                                                      const v1::EncodeRequest* request,
                                                      v1::EncodeResponse* response) {
  return BatchedCall<EncodeCodec>::start(encode_, context, *request, response,
                                         admit(*context, request->model()));
}

grpc::ServerUnaryReactor* ForecastServiceImpl::GetModelInfo(grpc::CallbackServerContext* context,
                                                            const v1::GetModelInfoRequest* request,
                                                            v1::GetModelInfoResponse* response) {
  const auto call =
      UnaryCall::start(context_.metrics, Method::kGetModelInfo, steady_deadline(*context));
  const grpc::Status admitted = admit(*context, request->model());
  if (admitted.ok()) *response->mutable_info() = context_.info;
  call->end(admitted);
  return call.get();
}

grpc::ServerUnaryReactor* ForecastServiceImpl::ReportActuals(
    grpc::CallbackServerContext* context, const v1::ReportActualsRequest* request,
    v1::ReportActualsResponse* response) {
  const auto call =
      UnaryCall::start(context_.metrics, Method::kReportActuals, steady_deadline(*context));
  call->end([&]() -> grpc::Status {
    grpc::Status status = authenticate(context_, *context);
    if (!status.ok()) return status;
    status = to_grpc_status(*context_.state);
    if (!status.ok()) return status;
    if (context_.accuracy == nullptr) {
      return {grpc::StatusCode::UNIMPLEMENTED, "ReportActuals: this server keeps no forecasts"};
    }
    ActualsReport report;
    status = decode_report_actuals(*request, &report);
    if (!status.ok()) return status;
    encode_report_actuals(context_.accuracy->report(report), response);
    return grpc::Status::OK;
  });
  return call.get();
}

}  // namespace tsserve::server
