#pragma once
// The Open Inference Protocol's answers that need no batcher (health, metadata, the model
// repository extension), the same behind every door: the gRPC service (oip_service.h)
// and the REST binding (server/http/oip_rest_routes.h) call these and differ only in how
// they carry the messages. The door checks the token first (all but the health checks).
//
// `call` learns the model an answer resolved (CallEnding::set_model), for its metrics.

#include <string>
#include <vector>

#include "inference/grpc_service.pb.h"
#include "server/call/call_ending.h"
#include "server/call/service_context.h"
#include "server/status/status.h"

namespace tsserve::server {

// ServerMetadata's answer.
struct OipServerInfo {
  std::string name = "tsserve";
  std::string version;
};

// Live whenever it answers: the process is up, starting or draining, and restarting it
// would not help (a liveness probe that fails during a drain would kill the drain).
Status answer_server_live(inference::ServerLiveResponse* response);
// Ready while the server admits calls and some model has a ready version (replica_ready.h).
Status answer_server_ready(const ServiceContext& service, inference::ServerReadyResponse* response);
// NOT_FOUND for a version that is not ready, as for an unknown model.
Status answer_model_ready(const ServiceContext& service,
                          const inference::ModelReadyRequest& request, CallEnding& call,
                          inference::ModelReadyResponse* response);
// `extensions`: exactly what the answering door serves.
Status answer_server_metadata(const OipServerInfo& server,
                              const std::vector<std::string>& extensions,
                              inference::ServerMetadataResponse* response);
Status answer_model_metadata(const ServiceContext& service,
                             const inference::ModelMetadataRequest& request, CallEnding& call,
                             inference::ModelMetadataResponse* response);
// Loading runs on the calling thread, as Triton's does; it never holds a lock that serving
// takes, so other calls go on meanwhile.
Status answer_model_load(const ServiceContext& service,
                         const inference::RepositoryModelLoadRequest& request,
                         inference::RepositoryModelLoadResponse* response);
Status answer_model_unload(const ServiceContext& service,
                           const inference::RepositoryModelUnloadRequest& request,
                           inference::RepositoryModelUnloadResponse* response);

}  // namespace tsserve::server
