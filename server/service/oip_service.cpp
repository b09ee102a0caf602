#include "server/service/oip_service.h"

#include <memory>

#include "server/codec/common/model_selection.h"
#include "server/codec/oip/oip_model_metadata.h"
#include "server/codec/oip/oip_request_decoder.h"
#include "server/codec/oip/oip_response_encoder.h"
#include "server/service/status_mapping.h"
#include "server/service/unary_call.h"

namespace tsserve::server {
namespace {

// A call answered on the spot: `answer` fills the response and says how the call ends.
template <typename Answer>
grpc::ServerUnaryReactor* answer_now(grpc::CallbackServerContext* context, ServerMetrics* metrics,
                                     Method method, Answer answer) {
  const auto call = UnaryCall::start(metrics, method, steady_deadline(*context));
  call->end(answer());
  return call.get();
}

// The same for every RPC but the health checks: the caller's token is checked first.
template <typename Answer>
grpc::ServerUnaryReactor* answer_authenticated(grpc::CallbackServerContext* context,
                                               const ServiceContext& service, Method method,
                                               Answer answer) {
  return answer_now(context, service.metrics, method, [&] {
    const grpc::Status authenticated = authenticate(service, *context);
    return authenticated.ok() ? answer() : authenticated;
  });
}

// ModelInfer's messages for BatchedCall (batched_call.h). The decoder decides the answer's
// form (outputs, raw or typed, id); the worker's encoder reads it.
struct ModelInferCodec {
  using Request = inference::ModelInferRequest;
  using Response = inference::ModelInferResponse;
  using Input = ForecastInput;
  using Output = ForecastOutput;
  grpc::Status decode(const Request& request, const ModelShape& shape, const RequestLimits& limits,
                      Input* input) {
    return decode_model_infer_request(request, shape, limits, input, &reply);
  }
  grpc::Status encode(const Input& input, const ModelShape& shape, Output&& output,
                      Response* response) {
    return encode_model_infer_response(input, reply, shape, std::move(output), response);
  }

  OipReply reply;
};

}  // namespace

OipServiceImpl::OipServiceImpl(ServiceContext context, OipServerInfo server)
    : context_(std::move(context)),
      server_(std::move(server)),
      infer_{Method::kModelInfer, context_.forecast_batcher, &context_.shape, context_.limits,
             context_.metrics} {}

grpc::Status OipServiceImpl::find_model(const std::string& name, const std::string& version,
                                        const char* name_field, const char* version_field) const {
  grpc::Status status = check_model_name(name, {context_.shape.name}, nullptr, name_field);
  if (!status.ok()) return status;
  if (!version.empty() && version != context_.shape.version) {
    return {grpc::StatusCode::NOT_FOUND, std::string(version_field) + ": model \"" +
                                             context_.shape.name + "\" has no version \"" +
                                             version + "\"; it has \"" + context_.shape.version +
                                             "\" (or leave it empty)"};
  }
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* OipServiceImpl::ServerLive(grpc::CallbackServerContext* context,
                                                     const inference::ServerLiveRequest*,
                                                     inference::ServerLiveResponse* response) {
  // ServerLive and ServerReady are the protocol's health checks: open without a token,
  // like grpc.health.v1, so probes need no secret.
  // Live whenever it answers: the process is up, starting or draining, and restarting it
  // would not help (a liveness probe that fails during a drain would kill the drain).
  return answer_now(context, context_.metrics, Method::kServerLive, [&] {
    response->set_live(true);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ServerReady(grpc::CallbackServerContext* context,
                                                      const inference::ServerReadyRequest*,
                                                      inference::ServerReadyResponse* response) {
  return answer_now(context, context_.metrics, Method::kServerReady, [&] {
    response->set_ready(context_.state->serving());
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelReady(grpc::CallbackServerContext* context,
                                                     const inference::ModelReadyRequest* request,
                                                     inference::ModelReadyResponse* response) {
  return answer_authenticated(context, context_, Method::kModelReady, [&] {
    grpc::Status status = find_model(request->name(), request->version(), "name", "version");
    if (status.ok()) response->set_ready(context_.state->serving());
    return status;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ServerMetadata(
    grpc::CallbackServerContext* context, const inference::ServerMetadataRequest*,
    inference::ServerMetadataResponse* response) {
  return answer_authenticated(context, context_, Method::kServerMetadata, [&] {
    response->set_name(server_.name);
    response->set_version(server_.version);
    // No protocol extension (model repository, statistics, shared memory, ...) is served.
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelMetadata(
    grpc::CallbackServerContext* context, const inference::ModelMetadataRequest* request,
    inference::ModelMetadataResponse* response) {
  return answer_authenticated(context, context_, Method::kModelMetadata, [&] {
    grpc::Status status = find_model(request->name(), request->version(), "name", "version");
    if (status.ok()) *response = oip_model_metadata(context_.shape);
    return status;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelInfer(grpc::CallbackServerContext* context,
                                                     const inference::ModelInferRequest* request,
                                                     inference::ModelInferResponse* response) {
  grpc::Status admitted = authenticate(context_, *context);
  if (admitted.ok()) admitted = to_grpc_status(*context_.state);
  if (admitted.ok()) {
    admitted =
        find_model(request->model_name(), request->model_version(), "model_name", "model_version");
  }
  return BatchedCall<ModelInferCodec>::start(infer_, context, *request, response, admitted);
}

}  // namespace tsserve::server
