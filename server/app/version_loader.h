#pragma once
// How the server loads one model version of its repository (ModelRegistry::Loader): the
// checkpoint and config of the version folder with the server's model options (device,
// kernels, attention overrides), the model's settings (model.json) over the server's
// parallelism and batching, a ServedModel warmed up, its two batchers and what
// GetModelInfo says about it. Also the single --model as a repository of one.

#include "server/config/server_config.h"
#include "server/observability/server_metrics.h"
#include "server/registry/model_registry.h"
#include "server/registry/repository_manager.h"
#include "server/repository/repository_scan.h"

namespace tsserve::server {

// `metrics` may be null; it outlives every version loaded.
ModelRegistry::Loader version_loader(const ServerConfig& config, ServerMetrics* metrics);

// The scan of the server's models: config.repository.model_repository's, or, when that is
// empty, config.model.model alone, named by its config's "name" and versioned by its
// config's "version" when that is a positive integer (else 1). Throws model::ModelError
// when the single model's config cannot be read (the server cannot start without it).
RepositoryManager::Scanner repository_scanner(const ServerConfig& config);

}  // namespace tsserve::server
