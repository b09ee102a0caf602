#include "tsserve/server/forecast_service.h"

#include "tsserve/server/batched_call.h"
#include "tsserve/server/forecast_task.h"
#include "tsserve/server/model_selection.h"
#include "tsserve/server/status_mapping.h"
#include "tsserve/server/unary_call.h"

namespace tsserve::server {

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
  return serve_batched<ForecastTask>(context, *request, response, Method::kForecast,
                                     admit(*context, request->model()), context_.shape, context_.limits,
                                     context_.metrics, *context_.forecast_batcher,
                                     decode_forecast_request, encode_forecast_response);
}

grpc::ServerUnaryReactor* ForecastServiceImpl::Encode(grpc::CallbackServerContext* context,
                                                      const v1::EncodeRequest* request,
                                                      v1::EncodeResponse* response) {
  return serve_batched<EncodeTask>(context, *request, response, Method::kEncode,
                                   admit(*context, request->model()), context_.shape, context_.limits,
                                   context_.metrics, *context_.encode_batcher,
                                   decode_encode_request, encode_encode_response);
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

}  // namespace tsserve::server
