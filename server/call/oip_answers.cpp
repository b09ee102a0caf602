#include "server/call/oip_answers.h"

#include "server/call/call_status.h"
#include "server/call/model_route.h"
#include "server/call/replica_ready.h"

namespace tsserve::server {

Status answer_server_live(inference::ServerLiveResponse* response) {
  response->set_live(true);
  return {};
}

Status answer_server_ready(const ServiceContext& service,
                           inference::ServerReadyResponse* response) {
  response->set_ready(replica_ready(*service.state, *service.registry));
  return {};
}

Status answer_model_ready(const ServiceContext& service,
                          const inference::ModelReadyRequest& request, CallEnding& call,
                          inference::ModelReadyResponse* response) {
  // A version that is not ready is not found: the protocol's NOT_FOUND for an unknown
  // model, and ready=false for one loading would read the same to a rollout script.
  ModelRoute route =
      route_to_version(*service.registry, request.name(), request.version(), "name", "version");
  if (route.lease) call.set_model(route.lease->name());
  if (route.status.code() == StatusCode::kUnavailable) return {};
  if (route.status.ok()) response->set_ready(service.state->serving());
  return route.status;
}

Status answer_server_metadata(const OipServerInfo& server,
                              const std::vector<std::string>& extensions,
                              inference::ServerMetadataResponse* response) {
  response->set_name(server.name);
  response->set_version(server.version);
  for (const std::string& extension : extensions) response->add_extensions(extension);
  return {};
}

Status answer_model_metadata(const ServiceContext& service,
                             const inference::ModelMetadataRequest& request, CallEnding& call,
                             inference::ModelMetadataResponse* response) {
  ModelRoute route =
      route_to_version(*service.registry, request.name(), request.version(), "name", "version");
  if (route.lease) call.set_model(route.lease->name());
  if (route.status.ok()) *response = route.lease->oip_metadata();
  return route.status;
}

Status answer_model_load(const ServiceContext& service,
                         const inference::RepositoryModelLoadRequest& request,
                         inference::RepositoryModelLoadResponse* response) {
  if (request.model_name().empty()) return invalid_argument("model_name: empty; name a model");
  const Status loaded = service.repository->load_model(request.model_name());
  response->set_model_name(request.model_name());
  response->set_isloaded(loaded.ok());
  return with_field(loaded, "model_name");
}

Status answer_model_unload(const ServiceContext& service,
                           const inference::RepositoryModelUnloadRequest& request,
                           inference::RepositoryModelUnloadResponse* response) {
  if (!service.repository->unload_model(request.model_name())) {
    return {StatusCode::kNotFound,
            "model_name: model \"" + request.model_name() + "\" is not loaded"};
  }
  response->set_model_name(request.model_name());
  response->set_isunloaded(true);
  return {};
}

}  // namespace tsserve::server
