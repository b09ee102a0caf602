#pragma once
// Readiness of this replica, one rule for every door: grpc.health.v1's "" (and the service
// names), the Open Inference Protocol's ServerReady (gRPC and GET /v2/health/ready) and
// tsserve_ready all read it.
//
// Ready = the server admits calls (ServingState) AND some model has a ready version. Not
// "every configured model": with a repository shared by every replica, a new model whose
// first version fails to load would otherwise take every replica out of its endpoints at
// once, though each still serves the other models. Such a model is reported on its own
// (its grpc.health.v1 name, GET /v2/models/M/ready, tsserve_model_load_failures_total).
// A replica with no ready model has nothing to serve, and is not ready.
//
// Liveness is not this: the process is live while it answers at all (answer_server_live).
//
// Thread safety: any thread.

#include "server/call/serving_state.h"
#include "server/registry/model_registry.h"

namespace tsserve::server {

bool replica_ready(const ServingState& state, const ModelRegistry& registry);

}  // namespace tsserve::server
