#pragma once
// The Open Inference Protocol (KServe v2) on gRPC's callback API,
// inference.GRPCInferenceService, next to tsserve.v1 on the same port and over the same
// parts: ModelInfer decodes into the same ForecastTask and joins the same batcher as
// tsserve.v1 Forecast calls (they share batches), and ends through the same call path
// (deadlines, cancellation, metrics with protocol "oip"). Readiness reads the server's
// ServingState, as grpc.health.v1 does.
//
// Served: ServerLive, ServerReady, ModelReady, ServerMetadata, ModelMetadata, ModelInfer,
// and the model repository extension's RepositoryModelLoad/Unload (repository_manager.h);
// the answers are oip_answers.h's, shared with the REST binding.
// model_name/model_version pick the version as tsserve.v1's model/model_version do
// (model_route.h); ModelReady and ModelMetadata answer per version.
//
// Thread safety: as ForecastServiceImpl; members are constant after construction.

#include <string>

#include "inference/grpc_service.grpc.pb.h"
#include "server/call/batched_call.h"
#include "server/call/oip_answers.h"
#include "server/call/service_context.h"

namespace tsserve::server {

class OipServiceImpl final : public inference::GRPCInferenceService::CallbackService {
 public:
  // REQUIRES: context.repository, context.registry, context.state not null.
  OipServiceImpl(ServiceContext context, OipServerInfo server);

  grpc::ServerUnaryReactor* ServerLive(grpc::CallbackServerContext* context,
                                       const inference::ServerLiveRequest* request,
                                       inference::ServerLiveResponse* response) override;
  grpc::ServerUnaryReactor* ServerReady(grpc::CallbackServerContext* context,
                                        const inference::ServerReadyRequest* request,
                                        inference::ServerReadyResponse* response) override;
  grpc::ServerUnaryReactor* ModelReady(grpc::CallbackServerContext* context,
                                       const inference::ModelReadyRequest* request,
                                       inference::ModelReadyResponse* response) override;
  grpc::ServerUnaryReactor* ServerMetadata(grpc::CallbackServerContext* context,
                                           const inference::ServerMetadataRequest* request,
                                           inference::ServerMetadataResponse* response) override;
  grpc::ServerUnaryReactor* ModelMetadata(grpc::CallbackServerContext* context,
                                          const inference::ModelMetadataRequest* request,
                                          inference::ModelMetadataResponse* response) override;
  grpc::ServerUnaryReactor* ModelInfer(grpc::CallbackServerContext* context,
                                       const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response) override;
  grpc::ServerUnaryReactor* RepositoryModelLoad(
      grpc::CallbackServerContext* context, const inference::RepositoryModelLoadRequest* request,
      inference::RepositoryModelLoadResponse* response) override;
  grpc::ServerUnaryReactor* RepositoryModelUnload(
      grpc::CallbackServerContext* context, const inference::RepositoryModelUnloadRequest* request,
      inference::RepositoryModelUnloadResponse* response) override;

 private:
  const ServiceContext context_;
  const OipServerInfo server_;
  const BatchedMethod infer_;  // joins tsserve.v1 Forecast's batcher of the version
};

}  // namespace tsserve::server
