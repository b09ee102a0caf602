#pragma once
// ListModels' answer: every model of the repository, each version's state, reason and
// resident bytes, and the repository's refusals.

#include "server/registry/model_repository.h"
#include "tsserve/v1/forecast_service.pb.h"

namespace tsserve::server {

v1::ListModelsResponse list_models(ModelRepository& repository);

}  // namespace tsserve::server
