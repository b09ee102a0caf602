#include "server/service/oip_service.h"

#include <memory>

#include "server/codec/common/model_selection.h"
#include "server/codec/oip/oip_model_metadata.h"
#include "server/service/model_infer_codec.h"
#include "server/service/status_mapping.h"
#include "server/service/unary_call.h"

namespace tsserve::server {
namespace {

// A call answered on the spot: `answer(call)` fills the response, may name the model it
// resolved (UnaryCall::set_model), and says how the call ends.
template <typename Answer>
grpc::ServerUnaryReactor* answer_now(grpc::CallbackServerContext* context, ServerMetrics* metrics,
                                     Method method, Answer answer) {
  const auto call = UnaryCall::start(metrics, method, steady_deadline(*context));
  call->end(answer(*call));
  return call.get();
}

// The same for every RPC but the health checks: the caller's token is checked first.
template <typename Answer>
grpc::ServerUnaryReactor* answer_authenticated(grpc::CallbackServerContext* context,
                                               const ServiceContext& service, Method method,
                                               Answer answer) {
  return answer_now(context, service.metrics, method, [&](UnaryCall& call) {
    const grpc::Status authenticated = authenticate(service, *context);
    return authenticated.ok() ? answer(call) : authenticated;
  });
}

}  // namespace

OipServiceImpl::OipServiceImpl(ServiceContext context, OipServerInfo server)
    : context_(std::move(context)),
      server_(std::move(server)),
      infer_{Method::kModelInfer, &ModelVersion::forecast_batcher,
             context_.metrics} {}

grpc::ServerUnaryReactor* OipServiceImpl::ServerLive(grpc::CallbackServerContext* context,
                                                     const inference::ServerLiveRequest*,
                                                     inference::ServerLiveResponse* response) {
  // ServerLive and ServerReady are the protocol's health checks: open without a token,
  // like grpc.health.v1, so probes need no secret.
  // Live whenever it answers: the process is up, starting or draining, and restarting it
  // would not help (a liveness probe that fails during a drain would kill the drain).
  return answer_now(context, context_.metrics, Method::kServerLive, [&](UnaryCall&) {
    response->set_live(true);
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ServerReady(grpc::CallbackServerContext* context,
                                                      const inference::ServerReadyRequest*,
                                                      inference::ServerReadyResponse* response) {
  return answer_now(context, context_.metrics, Method::kServerReady, [&](UnaryCall&) {
    response->set_ready(context_.state->serving());
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelReady(grpc::CallbackServerContext* context,
                                                     const inference::ModelReadyRequest* request,
                                                     inference::ModelReadyResponse* response) {
  return answer_authenticated(context, context_, Method::kModelReady, [&](UnaryCall& call) {
    // A version that is not ready is not found: the protocol's NOT_FOUND for an unknown
    // model, and ready=false for one loading would read the same to a rollout script.
    ModelRoute route = route_to_version(*context_.registry, request->name(), request->version(),
                                        "name", "version");
    if (route.lease) call.set_model(route.lease->name());
    if (route.status.error_code() == grpc::StatusCode::UNAVAILABLE) return grpc::Status::OK;
    if (route.status.ok()) response->set_ready(context_.state->serving());
    return route.status;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ServerMetadata(
    grpc::CallbackServerContext* context, const inference::ServerMetadataRequest*,
    inference::ServerMetadataResponse* response) {
  return answer_authenticated(context, context_, Method::kServerMetadata, [&](UnaryCall&) {
    response->set_name(server_.name);
    response->set_version(server_.version);
    // The model repository extension's load and unload are served (below); statistics,
    // shared memory and the others are not. The name is the one Triton advertises.
    response->add_extensions("model_repository");
    return grpc::Status::OK;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelMetadata(
    grpc::CallbackServerContext* context, const inference::ModelMetadataRequest* request,
    inference::ModelMetadataResponse* response) {
  return answer_authenticated(context, context_, Method::kModelMetadata, [&](UnaryCall& call) {
    ModelRoute route = route_to_version(*context_.registry, request->name(), request->version(),
                                        "name", "version");
    if (route.lease) call.set_model(route.lease->name());
    if (route.status.ok()) *response = route.lease->oip_metadata();
    return route.status;
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::ModelInfer(grpc::CallbackServerContext* context,
                                                     const inference::ModelInferRequest* request,
                                                     inference::ModelInferResponse* response) {
  return BatchedCall<ModelInferCodec>::start(
      infer_, context, *request, response,
      route_call(context_, *context, request->model_name(), request->model_version(), "model_name",
                 "model_version"));
}

// Loading runs on the calling gRPC thread (a callback thread), as Triton's does; it
// never holds a lock that serving takes, so other calls go on meanwhile.
grpc::ServerUnaryReactor* OipServiceImpl::RepositoryModelLoad(
    grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
    inference::RepositoryModelLoadResponse* response) {
  return answer_authenticated(context, context_, Method::kRepositoryModelLoad, [&](UnaryCall&) {
    if (request->model_name().empty())
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "model_name: empty; name a model");
    const Status loaded = context_.repository->load_model(request->model_name());
    response->set_model_name(request->model_name());
    response->set_isloaded(loaded.ok());
    return to_grpc_status(loaded, "model_name");
  });
}

grpc::ServerUnaryReactor* OipServiceImpl::RepositoryModelUnload(
    grpc::CallbackServerContext* context, const inference::RepositoryModelUnloadRequest* request,
    inference::RepositoryModelUnloadResponse* response) {
  return answer_authenticated(context, context_, Method::kRepositoryModelUnload, [&](UnaryCall&) {
    if (!context_.repository->unload_model(request->model_name())) {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "model_name: model \"" + request->model_name() + "\" is not loaded");
    }
    response->set_model_name(request->model_name());
    response->set_isunloaded(true);
    return grpc::Status::OK;
  });
}

}  // namespace tsserve::server
