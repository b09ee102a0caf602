#include "server/grpc/oip_service.h"

#include <memory>

#include "server/call/model_infer_codec.h"
#include "server/call/oip_answers.h"
#include "server/grpc/grpc_batched_call.h"
#include "server/grpc/unary_call.h"

namespace tsserve::server {
namespace {

// A call answered on the spot: `answer(call)` fills the response, may name the model it
// resolved (UnaryCall::set_model), and says how the call ends.
template <typename Answer>
grpc::ServerUnaryReactor* answer_now(grpc::CallbackServerContext* context, ServerMetrics* metrics,
                                     Method method, Answer answer) {
  const auto call = UnaryCall::start(metrics, method, *context);
  call->end(answer(*call));
  return call.get();
}

// The same for every RPC but the health checks: the caller's token is checked first.
template <typename Answer>
grpc::ServerUnaryReactor* answer_authenticated(grpc::CallbackServerContext* context,
                                               const ServiceContext& service, Method method,
                                               Answer answer) {
  return answer_now(context, service.metrics, method, [&](UnaryCall& call) {
    const Status authenticated = authenticate(service, *context);
    return authenticated.ok() ? answer(call) : authenticated;
  });
}

}  // namespace

OipServiceImpl::OipServiceImpl(ServiceContext context, OipServerInfo server)
    : context_(std::move(context)),
      server_(std::move(server)),
      infer_{Method::kModelInfer, &ModelVersion::forecast_batcher, context_.metrics} {}

// ServerLive and ServerReady are the protocol's health checks: open without a token,
// like grpc.health.v1, so probes need no secret.
grpc::ServerUnaryReactor* OipServiceImpl::ServerLive(grpc::CallbackServerContext* context,
                                                     const inference::ServerLiveRequest*,
                                                     inference::ServerLiveResponse* response) {
  return answer_now(context, context_.metrics, Method::kServerLive,
                    [&](UnaryCall&) { return answer_server_live(response); });
}

grpc::ServerUnaryReactor* OipServiceImpl::ServerReady(grpc::CallbackServerContext* context,
                                                      const inference::ServerReadyRequest*,
                                                      inference::ServerReadyResponse* response) {
  return answer_now(context, context_.metrics, Method::kServerReady,
                    [&](UnaryCall&) { return answer_server_ready(context_, response); });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelReady(grpc::CallbackServerContext* context,
                                                     const inference::ModelReadyRequest* request,
                                                     inference::ModelReadyResponse* response) {
  return answer_authenticated(context, context_, Method::kModelReady, [&](UnaryCall& call) {
    return answer_model_ready(context_, *request, call, response);
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ServerMetadata(
    grpc::CallbackServerContext* context, const inference::ServerMetadataRequest*,
    inference::ServerMetadataResponse* response) {
  // The model repository extension's load and unload are served (below); statistics,
  // shared memory and the others are not. The name is the one Triton advertises.
  return answer_authenticated(context, context_, Method::kServerMetadata, [&](UnaryCall&) {
    return answer_server_metadata(server_, {"model_repository"}, response);
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelMetadata(
    grpc::CallbackServerContext* context, const inference::ModelMetadataRequest* request,
    inference::ModelMetadataResponse* response) {
  return answer_authenticated(context, context_, Method::kModelMetadata, [&](UnaryCall& call) {
    return answer_model_metadata(context_, *request, call, response);
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelInfer(grpc::CallbackServerContext* context,
                                                     const inference::ModelInferRequest* request,
                                                     inference::ModelInferResponse* response) {
  return serve_batched_grpc_call<ModelInferCodec>(
      infer_, context, *request, response,
      route_call(context_, authenticate(context_, *context), request->model_name(),
                 request->model_version(), "model_name", "model_version"));
}

grpc::ServerUnaryReactor* OipServiceImpl::RepositoryModelLoad(
    grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
    inference::RepositoryModelLoadResponse* response) {
  return answer_authenticated(context, context_, Method::kRepositoryModelLoad, [&](UnaryCall&) {
    return answer_model_load(context_, *request, response);
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::RepositoryModelUnload(
    grpc::CallbackServerContext* context, const inference::RepositoryModelUnloadRequest* request,
    inference::RepositoryModelUnloadResponse* response) {
  return answer_authenticated(context, context_, Method::kRepositoryModelUnload, [&](UnaryCall&) {
    return answer_model_unload(context_, *request, response);
  });
}

}  // namespace tsserve::server
