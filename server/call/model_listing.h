#pragma once
// ListModels' answer: every model of the repository, each version's state, reason and
// resident bytes, and the repository's refusals.

#include "server/registry/repository_manager.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

v1::ListModelsResponse list_models(RepositoryManager& repository);

}  // namespace tsserve::server
