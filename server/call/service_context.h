#pragma once
// What every door's services share (gRPC: forecast_service.h, oip_service.h; HTTP:
// server/http/): the same models (the repository and its registry, each version with its
// own batchers), metrics, serving state, token check and accuracy tracker, and the token
// check every non-health call makes first.
//
// Its own header so that the call path (model_route.h, batched_call.h) can admit a call
// without including a service: the services include the call path, never the reverse.
//
// Thread safety: the members are constant after construction (the serving state they
// point to is atomic).

#include <cstddef>
#include <optional>
#include <string_view>

#include "server/accuracy/accuracy_tracker.h"
#include "server/auth/bearer_token.h"
#include "server/call/serving_state.h"
#include "server/live/live_series_metrics.h"
#include "server/live/series_store.h"
#include "server/observability/server_metrics.h"
#include "server/registry/model_registry.h"
#include "server/registry/repository_manager.h"
#include "server/status/status.h"

namespace tsserve::server {

struct ServiceContext {
  RepositoryManager* repository = nullptr;  // not owned; the models and their versions
  ModelRegistry* registry = nullptr;       // not owned; repository->registry()
  ServerMetrics* metrics = nullptr;        // not owned; may be null
  const ServingState* state = nullptr;     // not owned; new calls need serving()
  const BearerTokenCheck* auth = nullptr;  // not owned; null = no authentication
  AccuracyTracker* accuracy = nullptr;     // not owned; null = no ReportActuals
  SeriesStore* series = nullptr;           // not owned; null = no Observe
  LiveSeriesMetrics* live_metrics = nullptr;  // not owned; may be null
};

// OK when a call carrying these `authorization` values (none, one or `count`, the first
// given) may call a non-health method: no token is configured, or they carry it.
Status authenticate(const ServiceContext& service, std::optional<std::string_view> authorization,
                    std::size_t count = 1);

}  // namespace tsserve::server
